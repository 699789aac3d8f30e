"""compat's command line, ``python -m compat COMMAND``: one module per command, each with
``HELP`` and ``DESCRIPTION`` (its line in ``--help`` and its own ``--help``),
``add_arguments(parser)`` and ``run(args) -> int``; ``COMMANDS`` lists them in the
order ``--help`` shows them. A module with ``PYTEST_ARGS = True`` takes extra arguments
and passes them to pytest (``args.pytest_args``)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from compat import adapters
from compat.cli.common import UsageError
from compat.devices import DeviceBuildError
from compat.results import records, registry, store

COMMANDS = (
    "survey",
    "report",
    "bench",
    "merge",
    "dashboard",
    "devices",
    "selftest",
    "detect",
    "ops",
    "known",
    "gpu-check",
)

# what a command may raise for a one-line message and exit status 2, not a traceback
USER_ERRORS = (
    records.ResultsError,
    registry.RegistryError,
    store.StoreError,
    adapters.AdapterError,
    DeviceBuildError,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compat", description="Cross-backend compatibility harness for array frameworks."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {name: importlib.import_module(f"compat.cli.{name.replace('-', '_')}") for name in COMMANDS}
    for name, module in modules.items():
        module.add_arguments(subparsers.add_parser(name, help=module.HELP, description=module.DESCRIPTION))
    args, extra = parser.parse_known_args(argv)
    module = modules[args.command]
    if extra and not getattr(module, "PYTEST_ARGS", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.pytest_args = extra
    try:
        return module.run(args)
    except UsageError as error:
        parser.error(str(error))
    except USER_ERRORS as error:
        print(f"compat {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `python -m compat report | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit's flush
        return 1
