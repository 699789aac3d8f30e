"""No false alarm: where the standard leaves the order of equal elements open (sort without
stable=True), -0.0 and 0.0 (and NaNs) in either order are one answer; two raises of one class are
no error divergence for what their messages say; a value difference that computing in the
backend's result dtype explains follows from the dtype divergence. Each rule keeps what it must:
a stable sort's order, another class of error, a value the dtype does not explain."""

import numpy as np

from compat.adapters import load_adapter
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.judge import Role, judge
from compat.judge.accurate import accurate

NUMPY = load_adapter("numpy")


class NumPyReference:
    role = Role.SEMANTIC
    id = "numpy"

    def outcome(self, case):
        return accurate(NUMPY, case, NUMPY.call(case.op, case.args, case.kwargs))


def mismatches(case: Case, actual: Outcome) -> set[tuple[str, str, str]]:
    verdict = judge(NumPyReference(), case, actual, lambda *cell: None)
    return {(m.kind, m.expected, m.actual) for m in verdict.mismatches}


def values(array) -> Outcome:
    array = np.asarray(array)
    return Outcome(values=array, dtype=array.dtype.name, shape=array.shape)


X = np.array([2.0, np.nan, -0.0, 2.0, 0.0, -1.0], np.float32)
NUMPY_ORDER = np.array([np.nan, 2.0, 2.0, -0.0, 0.0, -1.0], np.float32)  # descending, ties in x's order
SWAPPED = np.array([np.nan, 2.0, 2.0, 0.0, -0.0, -1.0], np.float32)  # the two zeros the other way


def test_an_unstable_sort_may_put_the_zeros_either_way():
    case = Case("sort", (X,), {"descending": True, "stable": False})
    assert mismatches(case, values(SWAPPED)) == set()


def test_a_stable_sort_keeps_the_order_of_equal_elements():
    """stable=True (the default) keeps -0.0 before 0.0 as in x: the other order is a divergence."""
    for kwargs in ({"descending": True, "stable": True}, {"descending": True}):
        assert mismatches(Case("sort", (X,), kwargs), values(SWAPPED)) == {("value", "-0", "+0")}


def test_an_unstable_sort_still_sorts():
    unsorted = np.array([np.nan, 2.0, -0.0, 2.0, 0.0, -1.0], np.float32)
    found = mismatches(Case("sort", (X,), {"descending": True, "stable": False}), values(unsorted))
    assert {kind for kind, _, _ in found} == {"value"}


def raised(error: BaseException, category: str) -> Outcome:
    return Outcome(error=error, error_category=category)


def test_one_class_of_error_in_two_words_is_no_divergence():
    """NumPy's ValueError for a 1-d matrix_transpose, a backend's ValueError whose message reads as
    another category: the same error."""
    case = Case("matrix_transpose", (np.arange(3.0),))
    assert NUMPY.call("matrix_transpose", case.args).error_category != "value"
    assert mismatches(case, raised(ValueError("input must have at least 2 dimensions"), "value")) == set()


def test_a_base_class_of_numpys_error_is_the_same_error():
    """NumPy's AxisError (a ValueError and an IndexError): a plain ValueError agrees."""
    case = Case("sum", (np.arange(3.0),), {"axis": 5})
    assert mismatches(case, raised(ValueError("dim 5 is not a dimension"), "value")) == set()


def test_another_class_of_error_is_still_a_divergence():
    case = Case("matrix_transpose", (np.arange(3.0),))
    found = mismatches(case, raised(RuntimeError("expected a tensor of rank 2"), "other"))
    assert found and {kind for kind, _, _ in found} == {"error"}


def test_values_a_wider_dtype_explains_follow_from_it():
    """x op= y kept in y's wider dtype (an immutable array's x = x + y): int8 -128 << 1 wraps in
    NumPy and is -256 in int16; the dtype divergence is the one reported, not the values."""
    x, y = np.array([-128], np.int8), np.array([1], np.int16)
    wider = values(np.array([-256], np.int16))
    assert mismatches(Case("__ilshift__", (x, y)), wider) == {("dtype", "int8", "int16")}


def test_values_the_dtype_does_not_explain_stay():
    x, y = np.array([-128], np.int8), np.array([1], np.int16)
    wrong = values(np.array([5], np.int16))
    assert {kind for kind, _, _ in mismatches(Case("__ilshift__", (x, y)), wrong)} == {"dtype", "value"}
