"""The standard's set functions. The order of unique elements is left open by the standard (and
NumPy 2.3's unique_values returns them unsorted): results are compared in one canonical order."""

from __future__ import annotations

import numpy as np

from compat.core.operation import Op, f32, i32

# The canonical forms: the unique values ascending (NaN last; each NaN, distinct, by where it
# first occurs), the arrays that go with them in the same order, inverse indices renumbered.
# Every right answer, in whatever order, comes out as NumPy's does; a wrong one stays wrong.


def _order(unique, first):
    order = np.lexsort((first, unique))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return order, rank


def _values_sorted(args, kwargs, unique):
    return np.sort(unique)


def _counts_sorted(args, kwargs, parts):
    unique, counts = parts
    order = np.argsort(unique, stable=True)
    return unique[order], counts[order]


def _inverse_sorted(args, kwargs, parts):
    unique, inverse = parts
    first = np.full(unique.shape, inverse.size)
    np.minimum.at(first, inverse.reshape(-1), np.arange(inverse.size))
    order, rank = _order(unique, first)
    return unique[order], rank[inverse]


def _all_sorted(args, kwargs, parts):
    unique, indices, inverse, counts = parts
    order, rank = _order(unique, indices)
    return unique[order], indices[order], rank[inverse], counts[order]


NAN = float("nan")
REPEATS = f32(2, NAN, -0.0, 2, 0.0, NAN, shape=(2, 3))  # each NaN distinct, the two zeros one value


def _unique(name, about, canonical):
    return Op(
        name,
        "(x)",
        "set",
        about,
        correctly_rounded=True,
        data_dependent=True,
        unique=False,  # the order of the values is open
        zero_sign_free=True,  # which of -0 and +0 stands for both (the standard: either)
        canonical=canonical,
        example=(REPEATS,),
        values=("ties",),  # the first index of each value, its count, the inverse of repeated values
    )


TABLE: tuple[Op, ...] = (
    Op(
        "isin",
        "(x1, x2, invert=False)",
        "set",
        "whether each x1 is among the x2",
        correctly_rounded=True,
        takes="integer",
        example=(i32(1, 4, 2, 7), i32(2, 7, 9)),
        example_kwargs=(("invert", True),),
    ),
    _unique("unique_all", "(values, first indices, inverse indices, counts) of the flattened x", _all_sorted),
    _unique("unique_counts", "(values, counts) of the flattened x", _counts_sorted),
    _unique("unique_inverse", "(values, inverse indices with x's shape) of the flattened x", _inverse_sorted),
    _unique("unique_values", "the distinct values of the flattened x (each NaN distinct)", _values_sorted),
)
