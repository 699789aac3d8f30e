"""compat.judge's entry point: every role has its steps, and NumPy is asked once per distinct
case within a judgement."""

import numpy as np

from compat.adapters import load_adapter
from compat.core.case import Case, index_tag
from compat.judge import Role, judge
from compat.judge.accurate import accurate
from compat.judge.steps import STEPS

NUMPY = load_adapter("numpy")
TINY = np.finfo(np.float32).tiny


class CountingNumPy:
    """NumPy as the semantic reference, counting the cases it is asked."""

    role = Role.SEMANTIC
    id = "numpy"

    def __init__(self):
        self.asked = 0

    def outcome(self, case):
        self.asked += 1
        return accurate(NUMPY, case, NUMPY.call(case.op, case.args, case.kwargs))


def test_every_role_has_its_steps():
    assert set(STEPS) == set(Role)


def test_numpy_is_not_asked_twice_for_one_case():
    """A float64 result where NumPy's is float32, its subnormal flushed to zero: the dtype's
    consequences ask NumPy in float64, flush-to-zero asks the case and that again with its
    operands read as zero, which here (no operand is subnormal) are the same two questions."""
    reference = CountingNumPy()
    x = np.array([TINY * 1.5, 1.0], np.float32)
    case = Case("multiply", (x, np.float32(0.5)))
    expected = reference.outcome(case)
    actual = NUMPY.call("multiply", (np.array([0.0, 1.0]), 0.5))
    verdict = judge(reference, case, actual, lambda *cell: None, expected=expected)
    assert {(m.kind, m.expected, m.actual) for m in verdict.mismatches} == {
        ("dtype", "float32", "float64"),
        ("value", "subnormal", "flushed"),
    }
    assert reference.asked == 2  # the case, and the case in float64


def test_a_zero_d_boolean_index_is_told_from_a_mask():
    """A 0-d boolean array adds an axis where a mask selects: a divergence's inputs say which, so
    that a registry entry for one does not hide the other."""
    assert index_tag((Ellipsis, np.array(False))) == "idx(...,0d-b-array)"
    assert index_tag(np.array([True, False])) == "idx(b-array)"
    assert index_tag((np.array(0), slice(None))) == "idx(0d-i-array,slice)"
