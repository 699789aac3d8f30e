"""The specs: one module per family, each a set of pytest tests taking ``xp``."""

from pathlib import Path

DIRECTORY = str(Path(__file__).resolve().parent)

# How compat runs its specs in a pytest of its own (survey): the folder that holds the package
# as rootdir (the checkout, or site-packages), so that node ids read compat/specs/x.py::...
# installed or not; no pytest cache, which would land in that folder (a checkout's pytest
# configuration says the same)
RUN_ARGS = ["--rootdir", str(Path(__file__).resolve().parents[2]), "-p", "no:cacheprovider"]
