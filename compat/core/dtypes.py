"""Canonical dtype names and the NumPy dtypes behind them.

Every adapter reports dtypes by these names, so records, the registry and the
report never depend on how a framework spells a dtype.
"""

from __future__ import annotations

import numpy as np

BOOL = ("bool",)
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGER = SIGNED + UNSIGNED
REAL_FLOAT = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOATING = REAL_FLOAT + COMPLEX
ALL = BOOL + INTEGER + FLOATING

# the standard's data type categories ("x: should have a real-valued floating-point data type"):
# what an operation's array arguments take (Op.takes)
CATEGORIES = {
    "any": ALL,
    "boolean": BOOL,
    "integer": INTEGER,
    "integer or boolean": INTEGER + BOOL,
    "numeric": INTEGER + FLOATING,
    "real-valued": INTEGER + REAL_FLOAT,
    "real-valued or boolean": INTEGER + REAL_FLOAT + BOOL,  # int(x), float(x) of an array
    "real-valued floating-point": REAL_FLOAT,
    "complex floating-point": COMPLEX,
    "floating-point": FLOATING,
}

# the standard's data types and the kinds its inspection namespace names (isdtype's kinds,
# __array_namespace_info__().dtypes(kind=...)): float16 and bfloat16 are no data type of the standard
STANDARD = BOOL + INTEGER + ("float32", "float64") + COMPLEX
KINDS = {
    "bool": BOOL,
    "signed integer": SIGNED,
    "unsigned integer": UNSIGNED,
    "integral": INTEGER,
    "real floating": ("float32", "float64"),
    "complex floating": COMPLEX,
    "numeric": INTEGER + ("float32", "float64") + COMPLEX,
}


def of_kind(kind: str | tuple[str, ...]) -> tuple[str, ...]:
    """The standard's data types of ``kind`` (a kind's name, or a tuple of them: their union), in STANDARD's order."""
    names = set().union(*(KINDS[k] for k in ((kind,) if isinstance(kind, str) else kind)))
    return tuple(name for name in STANDARD if name in names)


class DType(str):
    """A canonical dtype name passed as an argument (``result_type(dtype('float32'), dtype('int8'))``):
    each adapter passes its own dtype object (``Adapter.dtype``); records write it as ``dtype('float32')``
    (compat.core.parse reads it back) and tag it by its name, as an array of that dtype is tagged."""

    def __new__(cls, name: str) -> DType:
        if name not in ALL:
            raise LookupError(f"{name} is not one of compat's dtypes")
        return super().__new__(cls, name)

    def __repr__(self) -> str:
        return f"dtype({str(self)!r})"


def bfloat16():
    """NumPy has no bfloat16; ml_dtypes provides the one JAX and TensorFlow use."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def available() -> tuple[str, ...]:
    """The canonical dtypes NumPy can hold here (bfloat16 needs ml_dtypes)."""
    return ALL if bfloat16() is not None else tuple(d for d in ALL if d != "bfloat16")


def to_numpy(name: str) -> np.dtype:
    if name == "bfloat16":
        dtype = bfloat16()
        if dtype is None:
            raise LookupError("bfloat16 needs the ml_dtypes package")
        return dtype
    return np.dtype(name)


def name_of(dtype) -> str:
    """The canonical name of a NumPy dtype (or anything np.dtype accepts)."""
    name = np.dtype(dtype).name
    if name not in ALL:
        raise LookupError(f"{name} is not one of compat's dtypes")
    return name


def is_float(name: str) -> bool:
    return name in FLOATING


EPS = {  # machine epsilon; a complex dtype has its component's
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float32": 2.0**-23,
    "float64": 2.0**-52,
    "complex64": 2.0**-23,
    "complex128": 2.0**-52,
}


def eps(name: str) -> float:
    return EPS[name]


SMALLEST_SUBNORMAL = {  # the spacing of floats at zero; a complex dtype has its component's
    "float16": 2.0**-24,
    "bfloat16": 2.0**-133,
    "float32": 2.0**-149,
    "float64": 2.0**-1074,
    "complex64": 2.0**-149,
    "complex128": 2.0**-1074,
}


def finfo(name: str):
    """np.finfo of a real float dtype, bfloat16 (ml_dtypes' finfo) included."""
    if name == "bfloat16":
        import ml_dtypes

        return ml_dtypes.finfo(ml_dtypes.bfloat16)
    return np.finfo(np.dtype(name))


COMPONENT = {"complex64": "float32", "complex128": "float64"}  # the real dtype of each part
SMALLEST_NORMAL = {"float16": 2.0**-14, "bfloat16": 2.0**-126, "float32": 2.0**-126, "float64": 2.0**-1022}


def flushed(values: np.ndarray, like: str | None = None) -> np.ndarray:
    """``values`` with every subnormal replaced by a zero of its sign, as a CPU in
    flush-to-zero / denormals-are-zero mode treats them: subnormal in their own dtype,
    or in ``like`` where that is narrower (a backend that computes in it; a complex
    ``like`` by its component); complex numbers by component; other dtypes unchanged."""
    name = np.dtype(values.dtype).name
    if name in COMPONENT:
        out = np.empty_like(values)
        out.real, out.imag = (
            flushed(part.astype(COMPONENT[name]), like) for part in (np.real(values), np.imag(values))
        )
        return out
    if name not in SMALLEST_NORMAL:
        return values
    threshold = max(
        SMALLEST_NORMAL[name], SMALLEST_NORMAL.get(COMPONENT.get(like, like), 0.0) if like else 0.0
    )
    wide = values.astype(np.float64)
    subnormal = (wide != 0) & (np.abs(wide) < threshold)
    return np.where(subnormal, np.copysign(0.0, wide), wide).astype(values.dtype)


def ulp(values: np.ndarray, name: str) -> np.ndarray:
    """The gap between neighbouring ``name`` floats at ``|values|`` (as float64): eps
    times the power of two below the value, and the smallest subnormal's at and near zero."""
    magnitude = np.abs(values)
    _, exponent = np.frexp(magnitude)
    return np.where(
        magnitude == 0,
        SMALLEST_SUBNORMAL[name],
        np.maximum(EPS[name] * np.ldexp(1.0, exponent - 1), SMALLEST_SUBNORMAL[name]),
    )


def python_scalar_tag(value) -> str:
    """How a Python scalar operand is named in records: py:bool, py:int, ..."""
    return "py:" + type(value).__name__
