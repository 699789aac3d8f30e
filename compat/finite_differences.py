"""The reference for gradients: the derivative itself, by finite differences.

NumPy has no autodiff, so ``numpy-fd`` computes each transform numerically:
central differences in float64 at steps h and 2h, combined by Richardson
extrapolation (error O(h^4)); ``|d(h) - d(2h)|`` plus the rounding of f over h
estimates the error left,
and the gradient spec widens its tolerance by it. Results come back in the
input's dtype (a gradient has its input's dtype). The transforms are source
text, like every adapter's ops, so reproducers show exactly this code.
"""

from __future__ import annotations

import numpy as np

from compat.adapters.numpy import NumpyAdapter

DERIVATIVE = '''def derivative(g, x, errors=None):
    """d g(x) / d x, shape g(x).shape + x.shape: central differences in float64, Richardson-extrapolated."""
    x = np.asarray(x, dtype=np.float64)
    out_shape = np.shape(g(x))
    columns, spread = [], []
    for i in np.ndindex(x.shape):
        h = 1e-4 * max(1.0, abs(x[i]))
        def at(t):
            y = x.copy()
            y[i] += t
            return np.asarray(g(y), dtype=np.float64)
        ahead, behind = at(h), at(-h)
        d1 = (ahead - behind) / (2 * h)
        d2 = (at(2 * h) - at(-2 * h)) / (4 * h)
        columns.append((4 * d1 - d2) / 3)
        # truncation (the two steps disagree) plus float64 rounding of f, magnified by 1/h
        spread.append(np.abs(d1 - d2) + 1e-15 * (np.abs(ahead) + np.abs(behind)) / h)
    def stacked(parts):
        return np.stack(parts, axis=-1).reshape(out_shape + x.shape) if parts else np.zeros(out_shape + x.shape)
    if errors is not None:
        errors.append(stacked(spread))
    return stacked(columns)
'''


def transform(name: str, body: str) -> str:
    return DERIVATIVE + f"\n\ndef {name}" + body


class FiniteDifferences(NumpyAdapter):
    """Gradients of NumPy programs by finite differences (the ``numpy-fd`` reference)."""

    name = "numpy-fd"
    OPS = {
        "grad": transform("grad", '''(f, *xs, errors=None):
    """Gradient of scalar f with respect to each input."""
    def wrt(k):
        return lambda y: f(*xs[:k], y, *xs[k + 1:])
    return tuple(derivative(wrt(k), x, errors).astype(x.dtype) for k, x in enumerate(xs))
'''),
        "jacobian": transform("jacobian", '''(f, x, errors=None):
    return derivative(f, x, errors).astype(x.dtype)
'''),
        "per_example_grad": transform("per_example_grad", '''(f, params, batch, errors=None):
    """Gradient with respect to params of f(params, example), for each example of the batch."""
    parts = []
    grads = [derivative(lambda p: f(p, example), params, parts) for example in batch]
    if errors is not None:
        errors.append(np.stack(parts) if parts else np.zeros((0,) + params.shape))
    return (np.stack(grads) if grads else np.zeros((0,) + params.shape)).astype(params.dtype)
'''),
        "hvp": transform("hvp", '''(f, x, v, errors=None):
    """Hessian times v: the derivative of the gradient along v."""
    x64, v64 = np.asarray(x, np.float64), np.asarray(v, np.float64)
    inner = []
    def gradient_along(t):
        return derivative(f, x64 + t * v64, inner)
    outer = []
    hv = derivative(gradient_along, np.zeros(()), outer)
    if errors is not None:  # the inner gradients' error, magnified by the outer step (1e-4)
        errors.append(outer[0] + 2 * np.max(inner, axis=0) / 1e-4)
    return hv.astype(x.dtype)
'''),
    }

    def version(self) -> str:
        return np.__version__

    def distribution(self) -> str:
        return "numpy"
