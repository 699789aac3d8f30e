"""Value facts (compat.core.facts, Op.values): in a default run, the examples of each operation meet
its facts, as measured from the run's records (Checks.facts, counted by the harness for every case
checked, whichever spec drew it): an operation that moves or selects elements sees all-equal arrays
in at most ALL_EQUAL_AT_MOST of its cases; ties, nonzero imaginary parts and negative operands are
there in at least MET_AT_LEAST of the cases each applies to. The measure can fail: the draws the
specs made before (hypothesis's arrays with their fill value) are all-equal in about a third of
their examples."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compat.core import facts, ops
from compat.core.strategies import arrays, shapes
from compat.results import records
from tests.helpers import SPECS, output, run_pytest

pytestmark = [pytest.mark.xdist_group("value-facts"), pytest.mark.slow]

ALL_EQUAL_AT_MOST = 0.1  # of an operation's cases whose first array has two elements or more
MET_AT_LEAST = {"distinct": 0.5, "ties": 0.9, "imaginary": 0.9, "negative": 0.9}
LEAST_CASES = 10  # an operation checked fewer times says too little about a share
# the families whose specs draw operands for the operations with value facts
FAMILIES = (
    "manipulation",
    "indexing",
    "sorting",
    "sets",
    "operators",
    "promotion",
    "broadcasting",
    "linalg",
    "numerics",
    "creation",
    "fft",
)


def test_facts_are_read_from_the_operands():
    assert facts.met(("distinct",), (np.array([1, 2, 3]),)) == {"distinct": True, "all-equal": False}
    assert facts.met(("distinct",), (np.array([2, 2]),)) == {"distinct": False, "all-equal": True}
    assert facts.met(("distinct",), (np.array([0.0, -0.0]),))["all-equal"]  # -0.0 == 0.0
    assert facts.met(("ties",), (np.array([1.0, np.nan, np.nan]),)) == {"ties": True}  # they sort as equals
    assert facts.met(("ties",), (np.array([1.0, np.nan, 2.0]),)) == {"ties": False}
    assert facts.met(("ties",), (np.array([0.0, -0.0]),)) == {"ties": True}
    assert facts.met(("imaginary",), (np.array([1 + 0j, 2 + 0j]),)) == {"imaginary": False}
    assert facts.met(("imaginary",), (np.array([1.0]),)) == {}  # real operands: not applicable
    assert facts.met(("negative",), (np.array([3, -1], np.int8),)) == {"negative": True}
    assert facts.met(("negative",), (np.array([3], np.uint8),)) == {}


def all_equal_share(op: str | None) -> float:
    """The share of all-equal arrays among 200 drawn int32 arrays of two elements or more."""
    seen: list[bool] = []

    @settings(max_examples=200, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def draw(data):
        x = data.draw(arrays("int32", shapes(min_dims=1, max_dims=3), op=op))
        if x.size >= 2:
            seen.append(facts.met(("distinct",), (x,))["all-equal"])

    draw()
    return sum(seen) / len(seen)


def test_the_measure_fails_careless_draws():
    """Plain arrays (no op): all-equal far more often than the threshold; for flip, never."""
    assert all_equal_share(None) > 2 * ALL_EQUAL_AT_MOST
    assert all_equal_share("flip") == 0


@pytest.fixture(scope="module")
def shares(tmp_path_factory):
    """op -> fact -> (cases meeting it, cases it applies to), over a default run of the families on
    NumPy's row (the ci profile: the test command's)."""
    tmp = tmp_path_factory.mktemp("facts")
    process = run_pytest(
        [*(str(SPECS / f"{family}.py") for family in FAMILIES), "--backends", "numpy", "-q", "-p", "no:xdist"]
        + ["--hypothesis-profile", "ci", "--compat-mode", "report", "--device", "none"],
        tmp,
    )
    assert process.returncode in (0, 1), output(process)
    found: dict[str, dict[str, list[int]]] = {}
    for run in records.load(tmp / "results").runs.values():
        for checks in run.checks:
            for op, of_op in checks.facts.items():
                for fact, (met, of) in of_op.items():
                    counts = found.setdefault(op, {}).setdefault(fact, [0, 0])
                    counts[0] += met
                    counts[1] += of
    return found


def test_rearranging_operations_rarely_see_all_equal_arrays(shares):
    moving = [op.name for op in ops.TABLE if "distinct" in op.values]
    measured = {
        op: shares[op]["all-equal"] for op in moving if shares.get(op, {}).get("all-equal", [0, 0])[1]
    }
    assert len(measured) >= 15, sorted(measured)  # the run drew for most of them
    too_often = {
        op: f"{met}/{of}"
        for op, (met, of) in measured.items()
        if of >= LEAST_CASES and met > ALL_EQUAL_AT_MOST * of
    }
    assert not too_often


@pytest.mark.parametrize("fact", sorted(MET_AT_LEAST))
def test_each_value_fact_is_met(shares, fact):
    wanted = [op.name for op in ops.TABLE if fact in op.values]
    measured = {op: shares[op][fact] for op in wanted if fact in shares.get(op, {})}
    assert measured, f"no operation with {fact} was drawn for"
    short = {
        op: f"{met}/{of}"
        for op, (met, of) in measured.items()
        if of >= LEAST_CASES and met < MET_AT_LEAST[fact] * of
    }
    assert not short
