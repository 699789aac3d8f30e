"""The standard's data type functions."""

from __future__ import annotations

from compat.core.dtypes import DType
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
    # the questions about dtypes: no array in (compat asks them with dtypes), an exact answer out
    # (a dtype, a bool, or an object's fields, each compared exactly: compat.core.outcome)
    Op(
        "result_type",
        "(*arrays_and_dtypes)",
        "dtype",
        "the dtype the arguments promote to",
        correctly_rounded=True,
        example=(DType("int8"), DType("uint8")),
    ),
    Op(
        "can_cast",
        "(from_, to)",
        "dtype",
        "whether from_ casts to to by the promotion rules (NumPy: casting='safe')",
        correctly_rounded=True,
        example=(DType("int8"), DType("float32")),
    ),
    Op(
        "finfo",
        "(type)",
        "dtype",
        "bits, eps, max, min, smallest_normal and dtype of a floating-point dtype (a complex one's component)",
        correctly_rounded=True,
        takes="floating-point",
        example=(DType("float32"),),
    ),
    Op(
        "iinfo",
        "(type)",
        "dtype",
        "bits, max, min and dtype of an integer dtype",
        correctly_rounded=True,
        takes="integer",
        example=(DType("int16"),),
    ),
    Op(
        "isdtype",
        "(dtype, kind)",
        "dtype",
        "whether dtype is of kind: a dtype, a kind ('signed integer', 'real floating', ...) or a tuple of them",
        correctly_rounded=True,
        example=(DType("int8"), "signed integer"),
    ),
)
