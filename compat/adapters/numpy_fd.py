"""The reference for gradients: the derivative itself, by finite differences.

NumPy has no autodiff, so ``numpy-fd`` computes each transform numerically:
central differences at steps h and 2h, combined by Richardson extrapolation
(error O(h^4)); ``|d(h) - d(2h)|`` plus the rounding of f over h estimates the
error left, and the gradient spec widens its tolerance by it. That estimate is
the error of d(h), not of the extrapolation: deliberately loose (about 1e-8
relative), as it also has to cover the backend's own rounding inside the
derivative, which a cancelling program (``x / x``) makes far larger than its
result.

The program runs in NumPy's extended precision (``np.longdouble``, 64-bit
mantissa on x86): a difference quotient magnifies the rounding of every
intermediate value by 1/h, and an intermediate can be far larger than f
itself (``(x0 + x1) - x1``). That rounding does not show in f's values, so
``rounding_error`` bounds it from the largest intermediate value, and the
gradient spec adds the bound to its tolerance.

LAPACK has no extended precision: the linalg functions that go through it run on the operands
rounded to float64 (``in_float64``), and ``rounding_error`` bounds their rounding with float64's
epsilon (times LAPACK's test threshold: the matrices the gradient programs draw are well-conditioned).

Results come back in the input's dtype (a gradient has its input's dtype).
The transforms are functions of this module, like every adapter's operations,
so reproducers show exactly this code.
"""

from __future__ import annotations

import numpy as np

from compat.adapters.numpy import NumpyAdapter

STEP = 1e-4  # relative step; the smallest step is STEP itself


def derivative(g, x, errors=None):
    """d g(x) / d x, shape g(x).shape + x.shape: central differences in extended precision, Richardson-extrapolated."""
    x = np.asarray(x, dtype=np.longdouble)
    eps = np.finfo(np.longdouble).eps
    out_shape = np.shape(g(x))
    columns, spread = [], []
    for i in np.ndindex(x.shape):
        h = STEP * max(1.0, abs(x[i]))

        def at(t, i=i):
            y = x.copy()
            y[i] += t
            return np.asarray(g(y), dtype=np.longdouble)

        ahead, behind = at(h), at(-h)
        d1 = (ahead - behind) / (2 * h)
        d2 = (at(2 * h) - at(-2 * h)) / (4 * h)
        columns.append((4 * d1 - d2) / 3)
        # truncation (the two steps disagree) plus rounding of f, magnified by 1/h
        spread.append(np.abs(d1 - d2) + 8 * eps * (np.abs(ahead) + np.abs(behind)) / h)

    def stacked(parts):
        return (
            np.stack(parts, axis=-1).reshape(out_shape + x.shape) if parts else np.zeros(out_shape + x.shape)
        )

    if errors is not None:
        errors.append(stacked(spread).astype(np.float64))
    return stacked(columns)


LAPACK_THRESHOLD = 30  # a LAPACK result is within 30 n eps of its backward-stable answer (n <= 3 here)


def in_float64(function, *operands):
    """``function`` (through LAPACK, which has no long double) of the operands in float64, its
    result (each part of a tuple) back in long double."""
    result = function(*(np.asarray(a, dtype=np.float64) for a in operands))
    if isinstance(result, tuple):
        return tuple(np.asarray(part, dtype=np.longdouble) for part in result)
    return np.asarray(result, dtype=np.longdouble)


def cholesky(x, upper=False):
    return in_float64(lambda a: np.linalg.cholesky(a, upper=upper), x)


def det(x):
    return in_float64(np.linalg.det, x)


def slogdet(x):
    return in_float64(np.linalg.slogdet, x)


def eigh(x):
    return in_float64(np.linalg.eigh, x)


def eigvalsh(x):
    return in_float64(np.linalg.eigvalsh, x)


def inv(x):
    return in_float64(np.linalg.inv, x)


def solve(x1, x2):
    return in_float64(np.linalg.solve, x1, x2)


def svdvals(x):
    return in_float64(np.linalg.svdvals, x)


IN_FLOAT64 = {"cholesky": cholesky, "det": det, "slogdet": slogdet, "eigh": eigh, "eigvalsh": eigvalsh}
IN_FLOAT64 |= {"inv": inv, "solve": solve, "svdvals": svdvals}


def grad(f, *xs, errors=None):
    """Gradient of scalar f with respect to each input."""

    def wrt(k):
        return lambda y: f(*xs[:k], y, *xs[k + 1 :])

    return tuple(derivative(wrt(k), x, errors).astype(x.dtype) for k, x in enumerate(xs))


def jacobian(f, x, errors=None):
    return derivative(f, x, errors).astype(x.dtype)


def per_example_grad(f, params, batch, errors=None):
    """Gradient with respect to params of f(params, example), for each example of the batch."""
    parts = []
    grads = [derivative(lambda p, example=example: f(p, example), params, parts) for example in batch]
    if errors is not None:
        errors.append(np.stack(parts) if parts else np.zeros((0,) + params.shape))
    return (np.stack(grads) if grads else np.zeros((0,) + params.shape)).astype(params.dtype)


def hvp(f, x, v, errors=None):
    """Hessian times v: the derivative of the gradient along v."""
    x_, v_ = np.asarray(x, np.longdouble), np.asarray(v, np.longdouble)
    inner = []

    def gradient_along(t):
        return derivative(f, x_ + t * v_, inner)

    outer = []
    hv = derivative(gradient_along, np.zeros(()), outer)
    if errors is not None:  # the inner gradients' error, magnified by the outer step
        errors.append(outer[0] + 2 * np.max(inner, axis=0) / STEP)
    return hv.astype(x.dtype)


class FiniteDifferences(NumpyAdapter):
    """Gradients of NumPy programs by finite differences (the ``numpy-fd`` reference)."""

    name = "numpy-fd"
    OPS = {
        **NumpyAdapter.OPS,
        "grad": grad,
        "jacobian": jacobian,
        "per_example_grad": per_example_grad,
        "hvp": hvp,
        **IN_FLOAT64,
    }

    @staticmethod
    def rounding_error(transform: str, largest: float, program) -> float:
        """A bound of the error that rounding inside f (each of the ``program``'s
        operations, on values up to ``largest``) leaves in a ``transform``, after the
        difference quotients magnify it by 1/h (twice for hvp): long double's, or
        LAPACK's in float64 where the program calls a function of IN_FLOAT64."""
        steps = 2 if transform == "hvp" else 1
        eps = float(np.finfo(np.longdouble).eps)
        if program.root.ops() & IN_FLOAT64.keys():
            eps = LAPACK_THRESHOLD * 3 * float(np.finfo(np.float64).eps)
        return 2 * program.nodes() * eps * largest / STEP**steps

    def version(self) -> str:
        return np.__version__

    def distribution(self) -> str:
        return "numpy"
