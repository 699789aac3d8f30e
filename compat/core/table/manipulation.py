"""The standard's manipulation functions: each rearranges, joins or repeats elements, so its
values are copies (correctly rounded: the reference's bits), and concatenate and stack promote
their arrays' dtypes first."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, X, Y, f32
from compat.core.source import backend_array


def _copy(name, params, about, example, **facts):
    """An operation that moves elements (its values facts: distinct ones show where each went)."""
    return Op(
        name, params, "shape", about, correctly_rounded=True, example=example, values=("distinct",), **facts
    )


def _arrays(*arrays):
    """A sequence of arrays as one argument: each converted to the backend's array."""
    return tuple(backend_array(a) for a in arrays)


TABLE: tuple[Op, ...] = (
    Op(
        "broadcast_to",
        "(x, shape)",
        "shape",
        "x stretched to shape",
        example=(X, (2, 4)),
        values=("distinct",),
    ),
    Op("broadcast_shapes", "(*shapes)", "shape", "the shape shapes broadcast to", example=((2, 1), (1, 3))),
    Op(
        "reshape",
        "(x, shape, copy=None)",
        "shape",
        "the same elements in another shape",
        correctly_rounded=True,
        values=("distinct",),
        example=(MATRIX, (3, 2)),
    ),
    Op(
        "transpose",
        "(x, axes=None)",
        "shape",
        "dimensions permuted",
        example=(MATRIX, (1, 0)),
        standard="permute_dims",
        values=("distinct",),
    ),
    # -- issue 31: the rest of the section --------------------------------------------------
    _copy(
        "broadcast_arrays",
        "(*arrays)",
        "each array stretched to the shape they broadcast to",
        (f32(1, 2, shape=(2, 1)), X),
    ),
    _copy(
        "concatenate",
        "(arrays, axis=0)",
        "arrays joined along an existing axis (their dtypes promoted)",
        (_arrays(MATRIX, MATRIX),),
        example_kwargs=(("axis", 1),),
        standard="concat",
    ),
    _copy("expand_dims", "(x, axis)", "x with a size-1 axis inserted", (MATRIX, 1), static=(1,)),
    _copy("flip", "(x, axis=None)", "elements reversed along axis", (MATRIX,), example_kwargs=(("axis", 1),)),
    _copy("moveaxis", "(x, source, destination)", "axes moved", (MATRIX, 0, -1), static=(1, 2)),
    _copy(
        "repeat",
        "(x, repeats, axis=None)",
        "each element repeated",
        (MATRIX, 2),
        example_kwargs=(("axis", 1),),
        static=(1,),
    ),
    _copy("roll", "(x, shift, axis=None)", "elements shifted cyclically", (X, 1), static=(1,)),
    _copy("squeeze", "(x, axis)", "size-1 axes removed", (f32(1, 2, 3, shape=(1, 3)), 0), static=(1,)),
    _copy(
        "stack",
        "(arrays, axis=0)",
        "arrays joined along a new axis (their dtypes promoted)",
        (_arrays(X, Y),),
        example_kwargs=(("axis", 1),),
    ),
    _copy("tile", "(x, repetitions)", "x repeated as a whole along each axis", (X, (2,)), static=(1,)),
    _copy("unstack", "(x, axis=0)", "the arrays along an axis", (MATRIX,), example_kwargs=(("axis", 1),)),
)
