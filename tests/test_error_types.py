"""compat.core.errortypes and the oracle's error-type rule: where NumPy and the standard agree
on an exception's class, a backend raising another class (or its own, not derived from it)
differs in kind ``error`` with the classes' names as signature."""

from __future__ import annotations

import numpy as np
import pytest

from compat.core import errortypes
from compat.core.outcome import Outcome
from compat.harness.isolation import ChildError
from compat.judge.oracle import compare


def raised(error: BaseException, category: str) -> Outcome:
    return Outcome(error=error, error_category=category)


class TensorIndexError(IndexError):
    """A framework's own class derived from the standard's (like NumPy's AxisError)."""


class InvalidArgumentError(Exception):
    """A framework's own class derived from none of them (like TensorFlow's)."""


def numpy_error(call) -> BaseException:
    with pytest.raises(Exception) as info:
        call()
    return info.value


def test_the_table_is_what_numpy_raises():
    """The table's classes are NumPy's own answers in those situations."""
    a = np.zeros((2, 3))
    assert isinstance(numpy_error(lambda: a[5]), errortypes.ERROR_TYPES["index"])
    assert isinstance(numpy_error(lambda: a[0, 0, 0]), errortypes.ERROR_TYPES["index"])
    assert isinstance(numpy_error(lambda: a + np.zeros(4)), errortypes.ERROR_TYPES["shape"])
    assert isinstance(numpy_error(lambda: np.bitwise_and(a, a)), errortypes.ERROR_TYPES["dtype"])


@pytest.mark.parametrize(
    ("category", "expected", "actual", "name"),
    [
        (
            "index",
            IndexError("index 5 is out of bounds"),
            RuntimeError("index 5 is out of bounds"),
            "RuntimeError",
        ),
        ("index", IndexError("too many indices"), ValueError("too many indices"), "ValueError"),
        ("shape", ValueError("could not be broadcast"), RuntimeError("size of tensor a"), "RuntimeError"),
        ("dtype", TypeError("ufunc not supported"), ValueError("unsupported dtype"), "ValueError"),
        (
            "index",
            IndexError("out of bounds"),
            InvalidArgumentError("out of range"),
            "tests.InvalidArgumentError",
        ),
    ],
)
def test_another_class_differs_in_kind_error_with_the_class_names(category, expected, actual, name):
    [m] = compare(raised(expected, category), raised(actual, category))
    assert (m.kind, m.expected, m.actual) == ("error", type(expected).__name__, name)


@pytest.mark.parametrize(
    ("category", "expected", "actual"),
    [
        ("index", IndexError("out of bounds"), IndexError("index out of range")),
        ("index", IndexError("out of bounds"), TensorIndexError("out of range")),  # a subclass
        ("shape", ValueError("could not be broadcast"), ValueError("incompatible shapes")),
        ("dtype", TypeError("ufunc"), np.exceptions.DTypePromotionError("no common dtype")),  # a TypeError
    ],
)
def test_the_same_class_or_a_subclass_agrees(category, expected, actual):
    assert compare(raised(expected, category), raised(actual, category)) == []


def test_a_class_numpy_raised_outside_the_table_is_left_open():
    """An axis beyond the rank: NumPy's AxisError, but the standard names no class."""
    axis = np.exceptions.AxisError(3, 2)
    assert compare(raised(axis, "index"), raised(RuntimeError("dim out of range"), "index")) == []
    # NumPy raising another class than the table's in that category: no rule either
    assert compare(raised(KeyError("x"), "index"), raised(RuntimeError("x"), "index")) == []


def test_a_class_raised_in_a_child_process_is_judged_by_its_name():
    """The isolation's ChildError carries the class's qualified name, not the class."""
    child = ChildError("builtins.RuntimeError", "index 5 is out of bounds")
    [m] = compare(raised(IndexError("out of bounds"), "index"), raised(child, "index"))
    assert (m.expected, m.actual) == ("IndexError", "RuntimeError")
    assert (
        compare(raised(IndexError("x"), "index"), raised(ChildError("builtins.IndexError", "x"), "index"))
        == []
    )
