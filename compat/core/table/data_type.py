"""The standard's data type functions."""

from __future__ import annotations

from compat.core.operation import Op, X

TABLE: tuple[Op, ...] = (
    # a conversion is exact or correctly rounded (within the target's range: beyond it C leaves float -> int open)
    Op(
        "astype",
        "(x, dtype)",
        "conversion",
        "x converted to dtype, as C casts it (ints wrap, floats round to nearest, to ints toward zero)",
        numpy="x.astype(dtype)",
        elementwise=True,
        correctly_rounded=True,
        example=(X,),
        example_kwargs=(("dtype", "int8"),),
    ),
)
