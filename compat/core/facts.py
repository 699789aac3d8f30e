"""Value facts of the table (``Op.values``): the operands that show what an operation does, which
every spec that draws operands for the operation draws (``compat.core.strategies.arrays(..., op=)``),
and whether a case's operands meet each fact (``met``: the records' ``Checks.facts``, from which
tests/test_value_facts.py measures the share of a default run's examples that meet it); ``showing``
draws such operands.

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
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes

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


def capacity(name: str) -> int:
    """How many distinct values the distinct arrays of a dtype draw from."""
    if name == "bool":
        return 2
    if name in dtypes.INTEGER:
        low, high = _limits(name)
        return min(high - low + 1, 1 << 16)
    return 1 << 16


def distinct_elements(name: str, size: int, small: int) -> st.SearchStrategy:
    """Elements from a range wide enough for ``size`` pairwise-distinct ones: integers (halves for
    floats, exact in every float dtype for the sizes the specs draw), complex numbers of them."""
    reach = max(small, size)
    if name == "bool":
        return st.booleans()
    if name in dtypes.UNSIGNED:
        return st.integers(0, min(2 * reach, _limits(name)[1]))
    if name in dtypes.SIGNED:
        low, high = _limits(name)
        return st.integers(max(-reach, low), min(reach, high))
    halves = st.integers(-reach, reach).map(lambda n: n / 2)
    if name in dtypes.COMPLEX:
        return st.builds(complex, halves, st.integers(-reach, reach).filter(bool).map(lambda n: n / 2))
    return halves


def nonzero_imaginary(small: int) -> st.SearchStrategy:
    part = st.floats(-small, small, width=32, allow_subnormal=False)
    return st.builds(complex, part, part.filter(lambda v: v != 0))


@st.composite
def showing(
    draw, name: str, shape, elements, facts: tuple[str, ...], moderate: st.SearchStrategy, small: int
) -> np.ndarray:
    """An array of ``name`` whose values show each fact: pairwise-distinct elements (where the dtype
    holds as many values: bool does not), two equal elements, nonzero imaginary parts, a negative
    element (where the dtype has negative values). ``elements``: the spec's (None: ``moderate``, the
    values of magnitude up to ``small`` that compat.core.strategies draws)."""
    shape = draw(shape, label="shape") if isinstance(shape, st.SearchStrategy) else shape
    size = int(np.prod(shape))
    drawn = dtypes.to_numpy(name) if name != "bfloat16" else np.float32
    unique = False
    if "distinct" in facts and elements is None and 1 < size <= capacity(name):
        elements, unique = distinct_elements(name, size, small), True
    elif "imaginary" in facts and name in dtypes.COMPLEX:
        if elements is None:
            elements = nonzero_imaginary(small)
        else:  # the spec's values for both parts, the imaginary part not zero
            part = elements.map(lambda v: complex(v).real)
            elements = st.builds(complex, part, part.filter(bool))
    elements = elements if elements is not None else moderate
    # each element drawn on its own (no fill value: a fill makes most of an array one value)
    x = draw(hnp.arrays(drawn, shape, elements=elements, unique=unique, fill=st.nothing()), label="x")
    x = x.astype(dtypes.to_numpy(name)) if name == "bfloat16" else x
    flat = x.reshape(-1)  # a view: planting writes x
    if "ties" in facts and size >= 2:
        i, j = draw(st.permutations(range(size)), label="tied places")[:2]
        flat[j] = flat[i]
    signed = name not in dtypes.UNSIGNED + dtypes.BOOL
    if (
        "negative" in facts
        and size
        and signed
        and not np.any((flat.real if name in dtypes.COMPLEX else flat) < 0)
    ):
        k = draw(st.integers(0, size - 1), label="negative place")
        value = flat[k].real if name in dtypes.COMPLEX else flat[k]
        # a negative finite value, or -inf among the values that are not numbers (NaN, +inf)
        flat[k] = -np.abs(flat[k]) if value != 0 and np.isfinite(value) else -1 if value == 0 else -np.inf
    return x


def _limits(name: str) -> tuple[int, int]:
    info = np.iinfo(dtypes.to_numpy(name))
    return int(info.min), int(info.max)
