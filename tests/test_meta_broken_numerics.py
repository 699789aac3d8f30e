"""Meta-tests for the numerics family and the ULP oracle: value faults that an absolute
tolerance lets through (compat/adapters/broken/: a multiply one ULP off, a square root
off by 3.7e-4 below 1e-6, log(0) giving NaN, a tanh 3 ULP off that a flat 4-ULP bound
accepted) are caught by a default-profile run, recorded as value divergences of their
operation, with a reproducer that shows the difference."""

from __future__ import annotations

import numpy as np
import pytest

from compat.core import dtypes
from compat.results import records
from tests.helpers import json_of, output, reproducer_lines, run_pytest, run_reproducer

pytestmark = [
    pytest.mark.xdist_group("meta-broken-numerics"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

SPEC = "compat/specs/numerics.py"
PLANTS = {  # adapter class -> (its name, the operation it breaks)
    "MultiplyRoundsTowardZero": ("broken_multiply_rounding", "multiply"),
    "SmallSquareRootsFromFastReciprocal": ("broken_small_sqrt", "sqrt"),
    "LogOfZeroIsNan": ("broken_log_of_zero", "log"),
    "TanhThreeUlpsOff": ("broken_tanh_accuracy", "tanh"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One child run with the broken adapters side by side (one start-up, not one each)."""
    where = tmp_path_factory.mktemp("meta-numerics")
    ops = " or ".join(op for _, op in PLANTS.values())
    args = [
        SPEC,
        "-q",
        "--compat-mode",
        "report",
        "-k",
        f"special_values and ({ops})",
        "--hypothesis-seed",
        "0",
        *(a for adapter in PLANTS for a in ("--adapter", f"compat.adapters.broken:{adapter}")),
    ]
    process = run_pytest(args, where)
    assert process.returncode == 0, output(process)
    (loaded,) = records.load(where / "results").runs.values()
    return json_of(loaded.divergences), process


def divergences(run, adapter) -> list[dict]:
    found, process = run
    name, _ = PLANTS[adapter]
    mine = [r for r in found if r["backend"]["name"] == name]
    assert mine, output(process)
    return mine


@pytest.mark.parametrize("adapter", PLANTS)
def test_value_fault_is_recorded_as_a_new_value_divergence_of_its_operation(run, adapter, tmp_path):
    name, op = PLANTS[adapter]
    found = divergences(run, adapter)
    assert {(r["op"], r["kind"], r["status"], r["family"]) for r in found} == {
        (op, "value", "new", "numerics")
    }
    smallest = min(found, key=lambda r: len(r["reproducer"]))
    numpy_line, broken_line = reproducer_lines(run_reproducer(smallest, tmp_path), name)
    assert numpy_line.split(": ", 1)[1] != broken_line.split(": ", 1)[1]


def test_one_ulp_off_a_correctly_rounded_multiply_is_a_divergence(run):
    """The recorded values differ by exactly one float step toward zero (NumPy's nextafter)."""
    for record in divergences(run, "MultiplyRoundsTowardZero"):
        dtype = dtypes.to_numpy(record["expected"]["dtype"])
        expected = np.array(record["expected"]["values"], dtype=np.float64).astype(dtype)
        actual = np.array(record["actual"]["values"], dtype=np.float64).astype(dtype)
        off = expected != actual
        assert off.any() and np.array_equal(actual[off], np.nextafter(expected[off], np.zeros((), dtype)))
