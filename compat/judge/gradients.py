"""How far a backend's gradient may be from the finite-difference reference: the
tolerance ``numpy-fd`` attaches to each part of its result."""

from __future__ import annotations

import numpy as np

from compat.core import dtypes
from compat.core.outcome import Outcome
from compat.core.programs import Program


def gradient_tolerance(fd, transform: str, program: Program, args: tuple) -> Outcome:
    """The finite-difference result (``fd``: the numpy-fd adapter, compat.adapters.numpy_fd),
    each part with its tolerance: the estimated finite-difference error and the bound of its rounding inside
    the program (x8), how far the derivative moves when the inputs and every
    local derivative inside the program are off by a few units of the dtype's
    rounding (x4: the backend's own rounding, cancellation included), and a
    floor of 64 eps of the dtype times max(1, |element|) plus a tenth of the
    largest element (the oracle's max(1, |e|) rule: an absolute floor for
    gradients that cancel to nearly nothing)."""
    errors: list[np.ndarray] = []
    largest = 0.0

    def observe(value) -> None:
        nonlocal largest
        for part in value if isinstance(value, tuple) else (value,):  # slogdet, eigh: each part
            largest = max(largest, float(np.max(np.abs(part), initial=0.0)))

    f = program.bind(fd, observe=observe)
    expected = fd.call(transform, (f, *args), {"errors": errors})
    if expected.raised:
        return expected
    rounding = fd.rounding_error(transform, largest, program)
    rng = np.random.default_rng(0)
    eps = max(dtypes.eps(a.dtype.name) for a in args)
    nudged = tuple(a * (1 + 8 * eps * rng.choice([-1.0, 1.0], a.shape)) for a in args)
    moved = fd.call(transform, (program.bind(fd, operand=rounded_derivatives(8 * eps, rng)), *nudged))
    parts = expected.parts if expected.parts is not None else [expected]
    moved_parts = moved.parts if moved.parts is not None else [moved]
    for part, error, other in zip(parts, errors, moved_parts):
        g = part.values.astype(np.float64)
        sensitivity = np.abs(other.values.astype(np.float64) - g) if not other.raised else 0.0
        scale = np.maximum(1.0, np.abs(g)) + 0.1 * (np.abs(g).max() if g.size else 0.0)
        part.tolerance = 8 * (error + rounding) + 4 * sensitivity + 64 * dtypes.eps(part.dtype) * scale
    return expected


def rounded_derivatives(delta: float, rng: np.random.Generator):
    """An ``operand`` hook for Program.bind: each float operand of each operation
    becomes a0 + (a - a0)(1 ± delta), a0 its value at the first call. Values stay
    as they were at the point of differentiation, but every local derivative is
    off by a relative ``delta``, as the backend's rounding makes it: in ``x / x``
    the two partials, rounded apart, no longer cancel."""
    base: dict = {}
    signs: dict = {}

    def operand(key, value):
        if not (isinstance(value, np.ndarray) and value.dtype.kind in "fc"):
            return value
        if key not in base:
            base[key], signs[key] = value, rng.choice([-1.0, 1.0])
        if np.shape(base[key]) != np.shape(value):
            return value
        return base[key] + (value - base[key]) * (1 + signs[key] * delta)

    return operand


def dtype_explains_values(mismatches: list) -> list:
    """A gradient in another dtype is reported as that; its values, judged
    with the tolerance of the expected dtype, are no second divergence."""
    wrong_dtype = {m.part for m in mismatches if m.kind == "dtype"}
    return [m for m in mismatches if not (m.kind == "value" and m.part in wrong_dtype)]


def widen(outcome: Outcome, tolerances: Outcome, factor: float) -> None:
    """Give ``outcome`` (another framework's result) the tolerances of the finite-difference result."""
    for part, reference in zip(outcome.parts or [outcome], tolerances.parts or [tolerances]):
        if reference.tolerance is not None and part.shape == reference.shape:
            part.tolerance = factor * reference.tolerance
