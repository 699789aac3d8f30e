"""What one call produced: a value (as NumPy), a dtype (result_type's answer), an object's
fields (finfo's), or an exception; and how values are shown in records and messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from compat.core import dtypes


@dataclass
class Outcome:
    """What one call produced: a value (as NumPy), a dtype alone (``dtype`` without values or
    shape: result_type's answer), several results (``parts``; an object's fields, by ``names``:
    finfo's bits, eps, ...), or an exception."""

    values: np.ndarray | None = None
    dtype: str | None = None
    shape: tuple[int, ...] | None = None
    device: str | None = None
    error: BaseException | None = None
    error_category: str | None = None
    parts: list[Outcome] | None = None  # a call that returns several arrays (gradients of x0, x1, ...)
    tolerance: np.ndarray | None = None  # allowed absolute error per element, where the reference knows it
    names: tuple[str, ...] | None = None  # the parts' names, where they are an object's fields (finfo's)

    @property
    def raised(self) -> bool:
        return self.error is not None

    @property
    def category(self) -> str:
        """What the call did, as outcomes are compared: its error's category, or "ok"."""
        if self.error is None:
            return "ok"
        assert self.error_category is not None, "a raised outcome carries its category"
        return self.error_category

    def describe(self) -> str:
        if self.error is not None:
            kind = error_type(self.error).rpartition(".")[2]
            return f"raised {kind} ({self.error_category}): {first_line(self.error)}"
        if self.parts is not None:
            labels = [f"{name}: " for name in self.names] if self.names else [""] * len(self.parts)
            return "(" + "; ".join(label + p.describe() for label, p in zip(labels, self.parts)) + ")"
        if self.values is None and self.shape is None and self.dtype is not None:
            return f"dtype {self.dtype}"
        if self.values is None or self.shape is None:
            return "None" if self.shape is None else f"shape {self.shape}"
        return f"{self.dtype}{list(self.shape)} {format_values(self.values)}"

    def to_json(self) -> dict[str, Any]:
        if self.error is not None:
            return {
                "error": {
                    "type": error_type(self.error),
                    "category": self.error_category,
                    "message": first_line(self.error),
                }
            }
        if self.parts is not None:
            return {
                "parts": [p.to_json() for p in self.parts],
                **({"names": list(self.names)} if self.names else {}),
            }
        out: dict[str, Any] = {"shape": list(self.shape) if self.shape is not None else None}
        if self.dtype is not None:
            out["dtype"] = self.dtype
        if self.values is not None:
            out["values"] = json_values(self.values)
        if self.device is not None:
            out["device"] = self.device
        return out


def error_type(error: BaseException) -> str:
    """'module.Class' of an exception; an exception from a child process keeps its original type."""
    return getattr(error, "type_name", None) or f"{type(error).__module__}.{type(error).__qualname__}"


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


def format_values(values: np.ndarray, limit: int = 8) -> str:
    flat = values.reshape(-1)
    shown = ", ".join(repr_scalar(v) for v in flat[:limit])
    more = f", ... ({flat.size} values)" if flat.size > limit else ""
    return f"[{shown}{more}]"


def repr_scalar(value) -> str:
    if isinstance(value, (np.bool_, bool)):
        return str(bool(value))
    if np.iscomplexobj(value):
        return repr(complex(value))
    if isinstance(value, (np.floating, float)) or (hasattr(value, "dtype") and value.dtype.kind == "V"):
        return repr(float(value))
    try:
        return str(int(value))
    except (TypeError, ValueError):
        return repr(float(value))


def json_values(values: np.ndarray, limit: int = 64) -> list:
    """Values for a record: JSON-safe, NaN/inf as strings, complex as [re, im]."""
    flat = values.reshape(-1)[:limit]
    return [json_scalar(v) for v in flat]


def json_scalar(value):
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if np.iscomplexobj(value):
        return [json_scalar(np.real(value)), json_scalar(np.imag(value))]
    if isinstance(value, (np.integer, int)):
        return int(value)
    f = float(value)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0 and np.signbit(f):
        return "-0.0"
    return f


def from_json(data: dict) -> Outcome | None:
    """The Outcome a record's JSON describes (``Outcome.to_json``), where it is whole: an error
    (by its type's name, message and category), a dtype alone, or every value of an array (a record
    keeps the first 64); else None."""
    if "error" in data:
        error = data["error"]
        raised = RecordedError(error["message"])
        raised.type_name = error["type"]
        return Outcome(error=raised, error_category=error["category"])
    if "parts" in data or data.get("shape") is None:
        return Outcome(dtype=data["dtype"]) if data.get("dtype") and "parts" not in data else None
    shape, dtype = tuple(data["shape"]), data.get("dtype")
    values = data.get("values")
    if dtype is None or values is None or len(values) != int(np.prod(shape)):
        return None
    wanted = dtypes.to_numpy(dtype)
    flat = [complex(number(v[0]), number(v[1])) if isinstance(v, list) else number(v) for v in values]
    return Outcome(values=np.array(flat).astype(wanted).reshape(shape), dtype=dtype, shape=shape)


class RecordedError(Exception):
    """An exception as a record describes it: its type's name (``type_name``) and its message."""

    type_name = ""


def number(value):
    """A JSON scalar of a record (json_scalar's) as a Python number."""
    return float(value) if isinstance(value, str) else value
