"""Hypothesis strategies shared by the specs, built on hypothesis.extra.numpy.

Values are drawn from a *moderate* domain by default (small integers, finite
normal floats of modest size) so that a promotion or broadcasting spec sees
type and shape behaviour, not overflow noise; specs that are about edges
(scalars out of range, NaN) ask for them explicitly. Subnormals are left out
of the moderate domain: whether they are flushed to zero is a property of the
device and compiler (XLA on CPU flushes them), not of promotion rules.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat import dtypes

SMALL = 8  # moderate values lie in [-SMALL, SMALL]


def dtype_names(names=None) -> st.SearchStrategy[str]:
    """Canonical dtype names NumPy can hold here (bfloat16 only with ml_dtypes)."""
    available = dtypes.available()
    return st.sampled_from([n for n in (names or dtypes.ALL) if n in available])


def moderate_elements(name: str) -> st.SearchStrategy:
    if name == "bool":
        return st.booleans()
    if name in dtypes.UNSIGNED:
        return st.integers(0, SMALL)
    if name in dtypes.SIGNED:
        return st.integers(-SMALL, SMALL)
    if name in dtypes.COMPLEX:
        part = st.floats(-SMALL, SMALL, width=32, allow_subnormal=False)
        return st.builds(complex, part, part)
    # bfloat16 values are drawn as float16 (both hold small floats), then rounded on cast
    return st.floats(-SMALL, SMALL, width=16 if name in ("float16", "bfloat16") else 32, allow_subnormal=False)


def arrays(name: str, shape, elements: st.SearchStrategy | None = None) -> st.SearchStrategy[np.ndarray]:
    """NumPy arrays of a canonical dtype (bfloat16 included) and a shape (or shape strategy)."""
    elements = elements if elements is not None else moderate_elements(name)
    if name == "bfloat16":
        return hnp.arrays(np.float32, shape, elements=elements).map(lambda a: a.astype(dtypes.to_numpy("bfloat16")))
    return hnp.arrays(dtypes.to_numpy(name), shape, elements=elements)


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=3) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def dtype_range(name: str) -> tuple[int, int]:
    info = np.iinfo(dtypes.to_numpy(name))
    return int(info.min), int(info.max)


def python_scalars(kind: type, array_dtype: str) -> st.SearchStrategy:
    """Python scalars of one kind to combine with an array of ``array_dtype``:
    moderate values, plus (for int) values just outside the array dtype's range,
    negative values for unsigned arrays, and values beyond int32/int64."""
    if kind is bool:
        return st.booleans()
    if kind is int:
        edges = [-1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63]
        if array_dtype in dtypes.INTEGER:
            low, high = dtype_range(array_dtype)
            edges += [low - 1, high + 1, low, high]
        return st.integers(-SMALL, SMALL) | st.sampled_from(sorted(set(edges)))
    if kind is float:
        return st.floats(-SMALL, SMALL, allow_subnormal=False) | st.sampled_from([1e10, -1e10, 1e300])
    part = st.floats(-SMALL, SMALL, allow_subnormal=False)
    return st.builds(complex, part, part)


def dtype_pairs(names=None) -> list[tuple[str, str]]:
    names = [n for n in (names or dtypes.ALL) if n in dtypes.available()]
    return list(itertools.product(names, repeat=2))
