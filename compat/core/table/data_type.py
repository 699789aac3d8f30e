"""The standard's data type functions."""

from __future__ import annotations

from compat.core.dtypes import DType
from compat.core.operation import Op, X


def _question(name, params, about, example, takes="any"):
    """A question about dtypes: no array in (compat asks it with dtypes), an exact answer out (a
    dtype, a bool, or an object's fields, each compared exactly: compat.core.outcome)."""
    return Op(name, params, "dtype", about, correctly_rounded=True, takes=takes, example=example)


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
    _question(
        "result_type",
        "(*arrays_and_dtypes)",
        "the dtype the arguments promote to",
        (DType("int8"), DType("uint8")),
    ),
    _question(
        "can_cast",
        "(from_, to)",
        "whether from_ casts to to by the promotion rules (NumPy: casting='safe')",
        (DType("int8"), DType("float32")),
    ),
    _question(
        "finfo",
        "(type)",
        "bits, eps, max, min, smallest_normal and dtype of a floating-point dtype (a complex one's component)",
        (DType("float32"),),
        takes="floating-point",
    ),
    _question(
        "iinfo", "(type)", "bits, max, min and dtype of an integer dtype", (DType("int16"),), takes="integer"
    ),
    _question(
        "isdtype",
        "(dtype, kind)",
        "whether dtype is of kind: a dtype, a kind ('signed integer', 'real floating', ...) or a tuple of them",
        (DType("int8"), "signed integer"),
    ),
    # -- interchange (issue 33): what the inspection namespace says the backend makes --
    _question(
        "default_dtype",
        "(kind)",
        "__array_namespace_info__().default_dtypes()[kind]: the dtype the namespace says it makes for a kind",
        ("real floating",),
    ),
    _question(
        "info_dtypes",
        "(kind)",
        "__array_namespace_info__().dtypes(kind=kind): whether it lists each of the standard's dtypes, by name",
        ("signed integer",),
    ),
    _question(
        "made_dtypes",
        "(names)",
        "whether the backend makes each of the standard's dtypes, by name: zeros and asarray with "
        "dtype=d give d, for d in names (a kind's dtypes, as the standard defines the kind); False for the others",
        (("int8", "int16", "int32", "int64"),),
    ),
    _question(
        "info_lists_device",
        "(x)",
        "whether __array_namespace_info__().devices() lists x.device, and dtypes(device=x.device) x.dtype",
        (X,),
    ),
    _question(
        "info_capabilities",
        "()",
        "__array_namespace_info__().capabilities(): boolean indexing, data-dependent shapes, max dimensions",
        (),
    ),
    _question(
        "shown_capabilities",
        "()",
        "what the backend does: x[mask] works (boolean indexing), nonzero and unique_values work "
        "(data-dependent shapes), the most dimensions of an array of ones (max dimensions; None beyond 128)",
        (),
    ),
)
