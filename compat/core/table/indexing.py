"""Indexing: x[index], the standard's take and take_along_axis, and the updates a
backend spells its own way (x[index] = v in place, or on a copy, duplicates added up or not)."""

from __future__ import annotations

import operator

from compat.core.operation import MATRIX, Op, f32, i32


def setitem(x, index, values):
    x[index] = values
    return x


def _update(name, params, about, **facts):
    index = (i32(0, 2, 0),)
    return Op(
        name,
        params,
        "update",
        about,
        example=(f32(1, 2, 3, 4), index, f32(10, 20, 30)),
        index_arg=1,
        values=("distinct",),
        **facts,
    )


TABLE: tuple[Op, ...] = (
    Op(
        "getitem",
        "(x, index)",
        "indexing",
        "x[index]",
        index_arg=1,
        subscript=True,
        python=operator.getitem,
        example=(MATRIX, (1, slice(None, None, -1))),
        values=("distinct",),
    ),
    Op(
        "take",
        "(x, indices, axis)",
        "indexing",
        "elements at indices along axis",
        example=(MATRIX, i32(2, 0)),
        values=("distinct",),
        example_kwargs=(("axis", 1),),
    ),
    Op(
        "take_along_axis",
        "(x, indices, axis)",
        "indexing",
        "elements at matching indices along axis",
        example=(MATRIX, i32(2, 0).reshape(2, 1)),
        values=("distinct",),
        example_kwargs=(("axis", 1),),
    ),
    _update(
        "set_at",
        "(x, index, values)",
        "a copy of x with x[index] = values (the last duplicate wins)",
        numpy="x[index] = values on a copy",
    ),
    _update(
        "add_at",
        "(x, index, values)",
        "a copy of x with values added at index (duplicates add up)",
        numpy="np.add.at on a copy",
    ),
    _update("setitem", "(x, index, values)", "x[index] = values in place", python=setitem),
    Op(
        "put_along_axis",
        "(x, indices, values, axis)",
        "update",
        "a copy of x with values put along axis",
        numpy="np.put_along_axis on a copy",
        values=("distinct",),
        example=(MATRIX, i32(2, 0).reshape(2, 1), f32(7, 8).reshape(2, 1)),
        example_kwargs=(("axis", 1),),
    ),
)
