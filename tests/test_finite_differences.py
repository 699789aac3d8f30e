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


def weighted(op, *args, part=None):
    """sum(c0 * op(x0[, x1])) (``part`` of a tuple result): the gradient programs' linalg form."""
    node = Node(op, (x0, *args))
    if part is not None:
        node = Node("getitem", (node,), params=(part,))
    return Node("sum", (Node("multiply", (node, Node("const", slot=0))),))


A = np.array([[2.0, 0.7, -0.3], [-0.4, 1.5, 0.2], [0.6, -0.1, 3.0]])  # not symmetric, kappa ~ 2.6
W = np.array([[0.3, -1.2, 0.5], [1.1, 0.4, -0.7], [-0.2, 0.9, 1.6]])


def symmetric_weights_derivative(weights):
    """The derivative of sum(w * eigvalsh((A + A^T) / 2)) with respect to A: V diag(w) V^T."""
    _, v = np.linalg.eigh((A + A.T) / 2)
    return v @ np.diag(weights) @ v.T


# (program, its input, the weights, the derivative by its closed form (Jacobi's formula, the
# inverse's and the spectra's first-order perturbation theory)); the inverse's transpose is the
# mistake a backward pass makes, and the tolerance must not accept it
INVERSE_T = np.linalg.inv(A).T
U, S, VT = np.linalg.svd(A)
LINALG_DERIVATIVES = {
    "det": (weighted("det"), np.array(1.5), 1.5 * np.linalg.det(A) * INVERSE_T),
    "slogdet": (weighted("slogdet", part=1), np.array(-0.8), -0.8 * INVERSE_T),
    "inv": (weighted("inv"), W, -INVERSE_T @ W @ INVERSE_T),
    "svdvals": (weighted("svdvals"), np.array([0.5, -1.0, 2.0]), U @ np.diag([0.5, -1.0, 2.0]) @ VT),
    "norm": (weighted("norm"), np.array(0.7), 0.7 * A / np.linalg.norm(A)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", LINALG_DERIVATIVES)
def test_linear_algebra_derivatives_are_in_the_tolerance(op, dtype):
    # LAPACK computes these in float64 (no long double): the tolerance must hold that rounding,
    # and still reject the derivative's transpose
    root, weights, exact = LINALG_DERIVATIVES[op]
    x = A.astype(dtype)
    program = Program(root, (x,), (np.asarray(weights, dtype=dtype),))
    assert within_tolerance("grad", program, (x,), exact).all()
    assert not within_tolerance("grad", program, (x,), exact.T).all()


def test_eigenvalues_of_the_symmetrized_matrix_are_in_the_tolerance():
    half = Node("const", slot=0)
    symmetric = Node("multiply", (Node("add", (x0, Node("matrix_transpose", (x0,)))), half))
    root = Node("sum", (Node("multiply", (Node("eigvalsh", (symmetric,)), Node("const", slot=1))),))
    weights = np.array([0.5, -1.0, 2.0])
    program = Program(root, (A,), (np.array(0.5), weights))
    assert within_tolerance("grad", program, (A,), symmetric_weights_derivative(weights)).all()


@pytest.mark.parametrize(
    "op, where_not_smooth",
    [
        ("det", np.array([[1.0, 2.0], [2.0, 4.0]])),  # singular
        ("inv", np.array([[1.0, 0.0], [0.0, 1e-3]])),  # kappa 1000
        ("cholesky", np.array([[2.0, 1.0], [0.0, 2.0]])),  # not symmetric
        ("cholesky", np.array([[1.0, 0.0], [0.0, -1.0]])),  # indefinite
        ("eigvalsh", np.array([[1.0, 0.0], [0.0, 1.0]])),  # a repeated eigenvalue
        ("svdvals", np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])),  # a zero singular value
        ("svdvals", np.array([[1.0, 0.0], [0.0, -1.0]])),  # a repeated singular value
        ("vector_norm", np.zeros(3)),
        ("det", np.ones(3)),  # not a matrix
        ("solve", np.ones((2, 3))),  # not square
    ],
)
def test_linalg_functions_are_not_smooth_where_their_derivative_does_not_exist(op, where_not_smooth):
    from compat.core import ops

    assert not ops.get(op).smooth(where_not_smooth)
    assert ops.get(op).smooth(np.diag([2.0, 4.0, 6.0]))  # distinct, positive, well-conditioned


def test_a_linalg_program_is_rebuilt_from_its_records_lambda():
    # records write NumPy's spelling, np.linalg.slogdet(x0)[1]; the registry's examples parse it back
    from compat.core.parse import program_from_source

    program = Program(weighted("slogdet", part=1), (A,), (np.array(2.0),))
    text = program.numpy_lambda()
    assert "np.linalg.slogdet(x0)[1]" in text
    assert program_from_source(text, program.inputs, program.constants).root == program.root
