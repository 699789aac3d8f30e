"""Wires the compat pytest plugin in for runs from a source tree where compat
is not pip-installed (an installed compat loads it through its pytest11 entry point)."""

import importlib.metadata

try:
    importlib.metadata.distribution("compat")
except importlib.metadata.PackageNotFoundError:
    pytest_plugins = ["compat.harness.plugin"]
