"""The standard's sorting functions."""

from __future__ import annotations

import numpy as np

from compat.core.operation import Op, f32

NAN = float("nan")


def ties_in_order(args, kwargs, indices: np.ndarray) -> np.ndarray:
    """An unstable argsort's indices in the one order a stable argsort gives: within each run
    of equal values (NaN equal to NaN, -0.0 to 0.0) the indices ascending. Indices that sort x
    stay indices that sort x, and only they come out as NumPy's stable answer: an order that
    does not sort x keeps unsorted values next to each other, which no reordering of equal
    neighbours mends. A stable argsort's indices are unique, and returned as they are."""
    if kwargs.get("stable", True):
        return indices
    axis = kwargs.get("axis", -1)
    x, along = np.moveaxis(np.asarray(args[0]), axis, -1), np.moveaxis(indices, axis, -1)
    order = np.lexsort((along, equal_runs(np.take_along_axis(x, along, axis=-1))), axis=-1)
    return np.moveaxis(np.take_along_axis(along, order, axis=-1), -1, axis)


def equal_runs(x: np.ndarray) -> np.ndarray:
    """Along the last axis of sorted values: the number of the run of equal values (NaN equal to
    NaN, -0.0 to 0.0) each element belongs to."""
    same = (x[..., 1:] == x[..., :-1]) | (np.isnan(x[..., 1:]) & np.isnan(x[..., :-1]))
    return np.cumsum(np.concatenate([np.ones_like(same[..., :1]), ~same], axis=-1), axis=-1)


def equal_values_in_order(args, kwargs, values: np.ndarray) -> np.ndarray:
    """A sort's values where the standard leaves the order of equal elements open (``stable=False``):
    within each run of equal values (-0.0 and 0.0, NaNs of any sign and payload) the elements in the
    order of their bits, so that -0.0 before 0.0 and 0.0 before -0.0 are the same answer. A sorted
    result stays sorted; only equal neighbours move. With ``stable=True`` (the default) the order of
    equal elements is x's, and the values are returned as they are."""
    if kwargs.get("stable", True) or values.dtype.kind != "f" or values.size == 0:
        return values
    axis = kwargs.get("axis", -1)
    along = np.moveaxis(np.asarray(values), axis, -1)
    bits = np.ascontiguousarray(along).view(f"u{along.dtype.itemsize}")
    order = np.lexsort((bits, equal_runs(along)), axis=-1)
    return np.moveaxis(np.take_along_axis(along, order, axis=-1), -1, axis)


TIES = f32(2, NAN, -0.0, 2, 0.0, -1)  # ties, NaN and both zeros: the cases that order decides

TABLE: tuple[Op, ...] = (
    Op(
        "sort",
        "(x, axis=-1, descending=False, stable=True)",
        "sorting",
        "sorted copy along an axis (NaN after every number ascending, before descending)",
        correctly_rounded=True,
        takes="real-valued",
        unique=False,  # with stable=False, equal elements (-0.0 and 0.0, NaNs) may come in any order
        canonical=equal_values_in_order,
        values=("ties",),
        example=(TIES,),
        example_kwargs=(("descending", True),),
    ),
    Op(
        "argsort",
        "(x, axis=-1, descending=False, stable=True)",
        "sorting",
        "indices that sort along an axis (stable: equal elements keep their order)",
        correctly_rounded=True,
        takes="real-valued",
        unique=False,  # with stable=False, equal elements may come in any order
        canonical=ties_in_order,
        values=("ties",),
        example=(TIES,),
        example_kwargs=(("stable", True),),
    ),
)
