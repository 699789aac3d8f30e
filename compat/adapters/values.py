"""Values, a part of every adapter (``adapter.values``): arguments into the backend's values, and
what a call gives back into an Outcome (values, dtype, shape, device, or an error's category).

Arrays and dtypes are made by evaluating the adapter's spelling of them (compat.adapters.spelling),
the text a reproducer prints; a backend's module subclasses Values for how it reads its results
(``to_numpy``), which of its objects are dtypes or shapes, and how it names its errors.
"""

from __future__ import annotations

import numpy as np

from compat.adapters.declared import UnsupportedOperation
from compat.adapters.interchange import producer
from compat.core import dtypes
from compat.core.outcome import Outcome
from compat.core.programs import BoundProgram
from compat.core.source import BackendArray, Exported

# the fields of the standard's finfo and iinfo objects (data_type_functions: finfo_object, iinfo_object)
FINFO_FIELDS = ("bits", "eps", "max", "min", "smallest_normal", "dtype")
IINFO_FIELDS = ("bits", "max", "min", "dtype")


class Values:
    """NumPy arrays in, backend results out; the defaults suit a backend whose results NumPy reads."""

    def __init__(self, adapter) -> None:  # the Adapter it is a part of
        self.adapter = adapter
        self._dtypes: dict[str, object] = {}

    # -- in --------------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray, device: str | None):
        """The backend's array of a copy of ``array`` on ``device``, made as its reproducer makes
        it (``spelling.array``, in ``spelling.scope``); a TypeError where it has no such dtype."""
        self.supported(array.dtype.name)
        spelling = self.adapter.spelling
        with self.adapter.placement.scope(device):
            return spelling.evaluate(spelling.array("x", array.dtype.name, device), x=np.array(array))

    def dtype(self, name: str):
        """The backend's dtype object for a canonical dtype name (``spelling.dtype``)."""
        if name not in self._dtypes:
            self.supported(name)
            spelling = self.adapter.spelling
            self._dtypes[name] = spelling.evaluate(spelling.dtype(name))
        return self._dtypes[name]

    def supported(self, name: str) -> None:
        lacking = self.adapter.unsupported_dtype(name)
        if lacking is not None:
            raise TypeError(lacking)

    def convert(self, value, device):
        """Arguments to backend values: top-level arrays, BackendArrays anywhere, and the
        constants of a bound program (made before a compiled call traces it)."""
        if isinstance(value, BoundProgram):
            return value.prepare()
        if isinstance(value, dtypes.DType):  # a dtype asked about (result_type's arguments)
            return self.dtype(value)
        if isinstance(value, Exported):  # another backend's array: it makes and exports it
            return producer(self.adapter, value.producer).interchange.exported(value)
        if isinstance(value, np.ndarray):
            return self.from_numpy(np.asarray(value), device)
        listed = isinstance(value, list) and any(isinstance(v, BackendArray) for v in value)
        if isinstance(value, tuple) or listed:  # concat's arrays (another list stays the caller's)
            keep = lambda v: isinstance(v, np.ndarray) and not isinstance(v, BackendArray)  # noqa: E731
            return type(value)(v if keep(v) else self.convert(v, device) for v in value)
        return value

    # -- out -------------------------------------------------------------------------
    def to_numpy(self, value) -> np.ndarray:
        return np.asarray(value)

    def is_shape(self, value) -> bool:
        return isinstance(value, tuple) and all(isinstance(v, int) for v in value)

    def dtype_name(self, value) -> str | None:
        """The canonical name of ``value`` where it is one of the backend's dtype objects, else None."""
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
            return dtypes.name_of(value)
        return None

    def outcome(self, result) -> Outcome:
        if result is None:  # TensorFlow's gradient of an input it cannot differentiate
            return Outcome()
        if isinstance(result, dict):  # the inspection namespace's answers: named parts
            return Outcome(parts=[self.outcome(v) for v in result.values()], names=tuple(result))
        if isinstance(result, (list, tuple)) and not self.is_shape(result):
            return Outcome(parts=[self.outcome(r) for r in result])
        if self.is_shape(result):
            return Outcome(shape=tuple(int(v) for v in result))
        if type(result) in (bool, int, float, complex):  # bool(x), x.ndim: a Python number, not the backend's
            values = np.asarray(result)
            return Outcome(values=values, dtype=dtypes.name_of(values.dtype), shape=())
        name = self.dtype_name(result)
        if name is not None:  # result_type's answer, x.dtype: the dtype alone
            return Outcome(dtype=name)
        if hasattr(result, "bits") and not hasattr(result, "shape"):  # finfo's or iinfo's answer
            return self.fields_outcome(result)
        values = self.to_numpy(result)
        return Outcome(
            values=values,
            dtype=dtypes.name_of(values.dtype),
            shape=tuple(values.shape),
            device=self.adapter.placement.device_of(result),
        )

    def fields_outcome(self, info) -> Outcome:
        """An object of the standard's finfo or iinfo (one with ``eps`` is finfo's) as its fields:
        ints and floats as the Python numbers the standard says they are, the dtype by its name;
        a field the object lacks is an AttributeError of its own."""
        parts = []
        names = FINFO_FIELDS if hasattr(info, "eps") else IINFO_FIELDS
        for name in names:
            try:
                value = getattr(info, name)
                if name == "dtype":  # a dtype object, or its name (torch's finfo)
                    named = str(value) if str(value) in dtypes.ALL else None
                    parts.append(Outcome(dtype=named or self.dtype_name(value) or dtypes.name_of(value)))
                    continue
                number = np.asarray(
                    int(value) if name == "bits" or not hasattr(info, "eps") else float(value)
                )
                parts.append(Outcome(values=number, dtype=number.dtype.name, shape=()))
            except Exception as error:
                parts.append(self.error(error))
        return Outcome(parts=parts, names=names)

    def error(self, error: BaseException) -> Outcome:
        return Outcome(error=error, error_category=self.classify(error))

    def classify(self, error: BaseException) -> str:
        """A coarse, framework-neutral category for an exception."""
        message = str(error).lower()
        if isinstance(error, UnsupportedOperation):
            return "unsupported"
        if (
            "converted to python scalars" in message
        ):  # int(x) of a larger array: NumPy's, torch's, JAX's words
            return "shape"
        if isinstance(error, IndexError) or (
            ("bounds" in message or "out of range" in message) and "ind" in message
        ):
            return "index"
        if (
            isinstance(error, (ZeroDivisionError, FloatingPointError))
            or "division by zero" in message
            or "zerodivision" in message
        ):
            return "arithmetic"
        if "axis" in message and ("out of bounds" in message or "out of range" in message):
            return "index"  # an axis beyond the rank: NumPy's AxisError is an IndexError
        if isinstance(error, OverflowError) or "out of bounds for" in message or "overflow" in message:
            return "overflow"
        if any(word in message for word in ("broadcast", "shape", "size of tensor", "dimension", "axis")):
            return "shape"
        if isinstance(error, (TypeError, NotImplementedError)) or any(
            phrase in message
            for phrase in ("not implemented for", "not in the list of allowed values", "dtype", "promot")
        ):
            return "dtype"
        if isinstance(error, ValueError):
            return "value"
        return "other"
