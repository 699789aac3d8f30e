"""The standard's utility functions."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, f32


def _truth(name, about):
    return Op(
        name,
        "(x, axis=None, keepdims=False)",
        "reduction",
        about,
        correctly_rounded=True,
        example=(f32(0, 1, float("nan"), 0, 0, -0.0, shape=(2, 3)),),
        example_kwargs=(("axis", 1),),
    )


TABLE: tuple[Op, ...] = (
    _truth("all", "whether every element is true (not zero; NaN is true)"),
    _truth("any", "whether some element is true (not zero; NaN is true)"),
    Op(
        "diff",
        "(x, axis=-1, n=1, prepend=None, append=None)",
        "utility",
        "n-th differences along an axis, after prepend and before append",
        correctly_rounded=True,  # one subtraction for n=1; n > 1 rounds n times, as NumPy's does
        takes="numeric",
        example=(MATRIX,),
        example_kwargs=(("n", 1),),
    ),
)
