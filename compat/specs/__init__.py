"""The specs: one module per family, each a set of pytest tests taking ``xp``."""

from pathlib import Path

DIRECTORY = str(Path(__file__).resolve().parent)

# pytest's rootdir where compat runs its specs (survey, selftest, detect, bench): the folder
# that holds the package (the checkout, or site-packages), so that node ids read
# compat/specs/x.py::... installed or not
ROOTDIR = str(Path(__file__).resolve().parents[2])
