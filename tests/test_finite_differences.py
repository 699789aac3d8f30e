"""The finite-difference reference is as accurate as the tolerance it hands the gradient specs."""

import numpy as np
import pytest

from compat.adapters.numpy_fd import FiniteDifferences
from compat.core.programs import Node, Program
from compat.judge.gradients import gradient_tolerance

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
    program = Program(
        Node("sum", (Node("subtract", (Node("add", (x0, x1)), x1)),)), (np.array(0.0), np.array(big))
    )
    assert within_tolerance("per_example_grad", program, (np.array(0.0), np.array([big, -big])), 1.0).all()


def test_truncation_is_in_the_tolerance():
    program = Program(
        Node("sum", (Node("exp", (Node("multiply", (x0, x0)),)),)), (np.array([0.5, -1.0, 1.2]),)
    )
    x = program.inputs[0]
    assert within_tolerance("grad", program, (x,), 2 * x * np.exp(x * x)).all()


def test_backend_rounding_of_cancelling_derivatives_is_in_the_tolerance():
    # hvp of sum(c2 * where(c1, (x0 @ c0) * (x0 / x0), x0)): the true value at index 0
    # is 0, but the partials of x0 / x0 (+-1/x and +-2/x^2, ~11 here) cancel only in
    # exact arithmetic. jax[x32] 0.10.2 computes 1.1444092e-05 there; the CI run of
    # 2026-11-22 reported it as a divergence.
    c = [Node("const", slot=i) for i in range(3)]
    ratio = Node("true_divide", (x0, x0))
    root = Node(
        "sum",
        (
            Node(
                "multiply",
                (Node("where", (c[1], Node("multiply", (Node("matmul", (x0, c[0])), ratio)), x0)), c[2]),
            ),
        ),
    )
    x = np.array([-0.296779066324234, -0.296779066324234, 2.0], dtype=np.float32)
    c0 = np.array([-1.4300464391708374, 0, 0, 0, 0, 0, 1.1875, 0, 0], dtype=np.float32).reshape(3, 3)
    program = Program(root, (x,), (c0, np.array([True, False, False]), np.full(3, 1.1875, dtype=np.float32)))
    v = np.ones(3, dtype=np.float32)
    assert within_tolerance("hvp", program, (x, v), np.array([1.1444092e-05, 0.0, 0.0])).all()
    assert not within_tolerance("hvp", program, (x, v), np.array([1e-2, 0.0, 0.0])).all()
