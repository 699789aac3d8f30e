"""Value facts of the table (``Op.values``): the operands that show what an operation does, which
every spec that draws operands for the operation draws (``compat.core.strategies.arrays(..., op=)``),
and whether a case's operands meet each fact (``met``: the records' ``Checks.facts``, from which
tests/test_value_facts.py measures the share of a default run's examples that meet it).

- ``distinct``: the operation moves or selects elements (flip, roll, take, x[i], tril, fftshift,
  where). On an array whose elements are all equal, any rearrangement gives the right answer:
  pairwise-distinct elements show where each one went. Met by a case whose first array of two or
  more elements (not a bool one where another is there: where's condition) has pairwise-distinct
  elements; ``all-equal`` counts those whose elements are one value.
- ``ties``: the operation promises an order among equal elements (a stable sort, the first of tied
  maxima, the first index of a unique value, searchsorted's side). Met where that array has two
  equal elements (two NaNs are: they sort as equals).
- ``imaginary``: the operation conjugates or takes a part (conj, real, imag, vecdot's first operand,
  abs and sign of complex numbers, the norms). A zero imaginary part hides a conjugation left out.
  Met where a complex operand has a nonzero imaginary part; applicable to complex operands only.
- ``negative``: the operation rounds (floor_divide and remainder, floor, ceil, trunc, round, astype
  to an integer). Rounding toward zero and toward -infinity agree on positive operands. Met where an
  operand has a negative element; applicable to signed and floating operands.
"""

from __future__ import annotations

import numpy as np

FACTS = ("distinct", "ties", "imaginary", "negative")


def arrays_of(args: tuple) -> list[np.ndarray]:
    """The case's arrays, those inside a sequence argument too (concat's)."""
    found: list[np.ndarray] = []
    for a in args:
        if isinstance(a, np.ndarray):
            found.append(a)
        elif isinstance(a, (tuple, list)):
            found += [v for v in a if isinstance(v, np.ndarray)]
    return found


def met(facts: tuple[str, ...], args: tuple) -> dict[str, bool]:
    """Fact -> whether the case's operands meet it, for each of ``facts`` that applies to them
    (``all-equal`` beside ``distinct``: the first array's elements are all one value)."""
    arrays = arrays_of(args)
    found: dict[str, bool] = {}
    sized = [a for a in arrays if a.size >= 2]
    first = next((a for a in sized if a.dtype != np.bool_), sized[0] if sized else None)
    if first is not None:
        flat = np.asarray(first).reshape(-1)
        distinct = len({v.tobytes() for v in flat}) if flat.dtype.kind not in "fc" else _distinct_floats(flat)
        if "distinct" in facts:
            found["distinct"] = distinct == flat.size
            found["all-equal"] = distinct == 1
        if "ties" in facts:
            found["ties"] = distinct < flat.size
    if "imaginary" in facts:
        complex_ = [a for a in arrays if a.dtype.kind == "c" and a.size]
        if complex_:
            found["imaginary"] = any(bool(np.any(a.imag != 0)) for a in complex_)
    if "negative" in facts:
        signed = [a for a in arrays if a.dtype.kind in "if" and a.size]
        if signed:
            found["negative"] = any(bool(np.any(a < 0)) for a in signed)
    return found


def _distinct_floats(flat: np.ndarray) -> int:
    """How many values a float array holds, -0.0 and 0.0 one value, every NaN one value (a
    rearrangement of NaNs shows nothing; a sort orders them as equals)."""
    values = flat.astype(np.complex128 if flat.dtype.kind == "c" else np.float64)
    nan = np.isnan(values)
    return len(set(values[~nan].tolist())) + int(nan.any())
