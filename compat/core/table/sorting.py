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
    values = np.take_along_axis(x, along, axis=-1)
    same = (values[..., 1:] == values[..., :-1]) | (np.isnan(values[..., 1:]) & np.isnan(values[..., :-1]))
    runs = np.cumsum(np.concatenate([np.ones_like(same[..., :1]), ~same], axis=-1), axis=-1)
    order = np.lexsort((along, runs), axis=-1)
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
        example=(TIES,),
        example_kwargs=(("stable", True),),
    ),
)
