"""The standard's statistical functions: reductions and cumulative sums."""

from __future__ import annotations

from compat.core.operation import MATRIX, Op, averaged, everywhere, multiplied, no_ties, running, summed


def _reduction(name, about, **facts):
    return Op(
        name,
        "(x, axis=None, keepdims=False)",
        "reduction",
        about,
        example=(MATRIX,),
        example_kwargs=(("axis", 1), ("keepdims", True)),
        **facts,
    )


TABLE: tuple[Op, ...] = (
    _reduction("sum", "sum of elements", terms=summed, smooth=everywhere),
    _reduction("prod", "product of elements", terms=multiplied),
    _reduction("mean", "arithmetic mean", terms=averaged, smooth=everywhere),
    _reduction("max", "largest element", correctly_rounded=True, smooth=no_ties),
    _reduction("min", "smallest element", correctly_rounded=True),
    Op(
        "cumsum",
        "(x, axis=None)",
        "reduction",
        "running sum",
        terms=running,
        example=(MATRIX,),
        example_kwargs=(("axis", 1),),
        standard="cumulative_sum",
    ),
)
