"""The standard's manipulation functions."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, X

TABLE: tuple[Op, ...] = (
    Op("broadcast_to", "(x, shape)", "shape", "x stretched to shape", example=(X, (2, 4))),
    Op("broadcast_shapes", "(*shapes)", "shape", "the shape shapes broadcast to", example=((2, 1), (1, 3))),
    Op("reshape", "(x, shape)", "shape", "the same elements in another shape", example=(MATRIX, (3, 2))),
    Op(
        "transpose",
        "(x, axes=None)",
        "shape",
        "dimensions permuted",
        example=(MATRIX,),
        standard="permute_dims",
    ),
)
