"""The standard's searching functions (argmax, argmin, count_nonzero, nonzero, searchsorted; where is elementwise)."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, f32

TIED = f32(3, -1, 3, 0, 3, -2, shape=(2, 3))  # ties in each row and column: the first must win

TABLE: tuple[Op, ...] = (
    Op(
        "argmax",
        "(x, axis=None, keepdims=False)",
        "reduction",
        "index of the first largest element (NaN counts as largest)",
        correctly_rounded=True,
        values=("ties",),
        takes="real-valued",
        example=(TIED,),
        example_kwargs=(("axis", 1), ("keepdims", True)),
    ),
    Op(
        "argmin",
        "(x, axis=None, keepdims=False)",
        "reduction",
        "index of the first smallest element (NaN counts as smallest)",
        correctly_rounded=True,
        values=("ties",),
        takes="real-valued",
        example=(TIED,),
        example_kwargs=(("axis", 0),),
    ),
    Op(
        "count_nonzero",
        "(x, axis=None, keepdims=False)",
        "reduction",
        "how many elements are not zero (NaN is not zero)",
        correctly_rounded=True,
        example=(f32(0, -0.0, 2, float("nan"), 0, 1, shape=(2, 3)),),
        example_kwargs=(("axis", 1),),
    ),
    Op(
        "nonzero",
        "(x)",
        "searching",
        "the indices of the elements that are not zero, one array per axis",
        correctly_rounded=True,
        data_dependent=True,
        example=(MATRIX,),
    ),
    Op(
        "searchsorted",
        "(x1, x2, side='left', sorter=None)",
        "searching",
        "where each x2 goes into sorted x1 (side='right': after equal elements)",
        correctly_rounded=True,
        values=("ties",),
        takes="real-valued",
        example=(f32(-1, 0.5, 0.5, 2), f32(0.5, 3, -2, 1)),
        example_kwargs=(("side", "right"),),
    ),
)
