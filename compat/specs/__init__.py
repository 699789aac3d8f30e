"""The specs: one module per family, each a set of pytest tests taking ``xp``."""

from pathlib import Path

DIRECTORY = str(Path(__file__).resolve().parent)

# the families, in the order reports list them: each is compat/specs/<family>.py, and a
# deliberately broken adapter (compat.adapters.broken) names the one that must catch it
FAMILIES = (
    "promotion",
    "broadcasting",
    "indexing",
    "numerics",
    "gradients",
    "placement",
    "dtypes",
    "sorting",
    "sets",
    "statistics",
    "operators",
    "manipulation",
    "creation",
    "special_cases",
    "fft",
    "interchange",
    "linalg",
)

# pytest's rootdir where compat runs its specs (survey, selftest, detect, bench): the folder
# that holds the package (the checkout, or site-packages), so that node ids read
# compat/specs/x.py::... installed or not
ROOTDIR = str(Path(__file__).resolve().parents[2])


def report_options(results) -> list[str]:
    """pytest's options of a run of compat's specs from any directory (node ids read
    compat/specs/..., no cache left in ROOTDIR), quiet, recording without failing into ``results``."""
    return [
        "--rootdir",
        ROOTDIR,
        "-p",
        "no:cacheprovider",
        "-q",
        "--compat-mode",
        "report",
        "--compat-results",
        str(results),
    ]
