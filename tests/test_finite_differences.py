"""The finite-difference reference is as accurate as the tolerance it hands the gradient specs."""

import numpy as np
import pytest

from compat.checker import gradient_tolerance
from compat.finite_differences import FiniteDifferences
from compat.programs import Node, Program

x0, x1 = Node("input", slot=0), Node("input", slot=1)


def within_tolerance(transform, program, args, exact):
    outcome = gradient_tolerance(FiniteDifferences(), transform, program, args)
    assert not outcome.raised, outcome.error
    part = outcome.parts[0] if outcome.parts else outcome
    return np.abs(part.values.astype(np.float64) - exact) <= part.tolerance


@pytest.mark.parametrize("big", [1.0, 1e3, 1e5])
def test_rounding_of_large_intermediates_is_in_the_tolerance(big):
    # (x0 + x1) - x1 == x0, but x0 + x1 is rounded at the scale of x1 and the
    # difference quotient magnifies that by 1/h; f's own values do not show it.
    program = Program(Node("sum", (Node("subtract", (Node("add", (x0, x1)), x1)),)),
                      (np.array(0.0), np.array(big)))
    assert within_tolerance("per_example_grad", program, (np.array(0.0), np.array([big, -big])), 1.0).all()


def test_truncation_is_in_the_tolerance():
    program = Program(Node("sum", (Node("exp", (Node("multiply", (x0, x0)),)),)), (np.array([0.5, -1.0, 1.2]),))
    x = program.inputs[0]
    assert within_tolerance("grad", program, (x,), 2 * x * np.exp(x * x)).all()


def test_tolerance_stays_tight():
    # A gradient 1e-9 off (relative) must stay outside a float64 tolerance, or
    # the spec could not catch a float64 gradient computed in float32 steps.
    program = Program(Node("sum", (Node("tanh", (x0,)),)), (np.array([0.3, -2.0]),))
    x = program.inputs[0]
    exact = 1 - np.tanh(x) ** 2
    assert within_tolerance("grad", program, (x,), exact).all()
    assert not within_tolerance("grad", program, (x,), exact * (1 + 1e-9)).any()
