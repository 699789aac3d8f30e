"""Python source of values, indices and functions, for reproducers and records.

Every value a case holds (arrays of every dtype, NaN payloads and -0.0 included,
Python scalars, indices) is written so that evaluating the text gives the value
back bit for bit; a function is written with the helpers and constants of its
module that it uses, so that the text runs on its own.
"""

from __future__ import annotations

import inspect
import math
import re
import types

import numpy as np

from compat.core import dtypes


class BackendArray(np.ndarray):
    """A NumPy array the adapter converts to a backend array even where it is
    nested (an index array inside an index tuple); NumPy treats it as an ndarray."""


def backend_array(values) -> BackendArray:
    return np.asarray(values).view(BackendArray)


# how a producer lays its array out before it exports it (interchange): as made, its transpose
# (strides reversed), every second row of a larger array (a stride of two rows)
LAYOUTS = ("contiguous", "transposed", "sliced")
# what a producer writes into its array after a consumer imported it (interchange): nothing; the
# values exported into an array that held other bits (a sharing import shows them); other bits
# over the values exported (a copy keeps the values)
WRITES = ("", "written", "overwritten")


class Exported(np.ndarray):
    """The values of an array that another backend (``producer``) makes and exports through
    DLPack, laid out as ``layout`` says: the adapter that meets one hands over the producer's
    array, not its own. The NumPy values are what the array holds, element for element."""

    producer: str = ""
    layout: str = "contiguous"
    write: str = ""  # one of WRITES

    def __array_finalize__(self, obj) -> None:
        self.producer = getattr(obj, "producer", "")
        self.layout = getattr(obj, "layout", "contiguous")
        self.write = getattr(obj, "write", "")

    def other_bits(self) -> np.ndarray:
        """The values with every bit inverted (bool: negated): other bits in every element."""
        values = np.asarray(self)
        if values.dtype == np.bool_:
            return ~values
        return (~np.frombuffer(values.tobytes(), np.uint8)).view(values.dtype).reshape(values.shape)

    def before_and_after(self) -> tuple[np.ndarray, np.ndarray | None]:
        """What the producer's array holds when it is exported, and what the producer writes into it
        after the import (None: nothing), as ``write`` says."""
        values = np.asarray(self)
        if self.write == "written":
            return self.other_bits(), values
        if self.write == "overwritten":
            return values, self.other_bits()
        return values, None

    def base_values(self) -> np.ndarray:
        """What the producer makes before it lays the array out (its transpose, or a larger
        array whose every second row these values are), in memory that starts 16 bytes past a
        64-byte boundary: all NumPy's allocator promises, and the same on every run (NumPy's
        producer hands these over; the others copy them into their own allocators' memory)."""
        values = self.before_and_after()[0]
        if self.layout == "transposed":
            values = values.T
        elif self.layout == "sliced":
            larger = np.zeros((2 * values.shape[0], *values.shape[1:]), dtype=values.dtype)
            larger[::2] = values
            larger[1::2] = values[::-1]  # rows between that differ from their neighbours
            values = larger
        memory = np.zeros(values.nbytes + 128, dtype=np.uint8)
        start = -memory.ctypes.data % 64 + 16
        placed = memory[start : start + values.nbytes].view(values.dtype).reshape(values.shape)
        placed[...] = values
        return placed


class Written:
    """An exported array that its producer writes after a consumer imported it (``write()``, which
    the consumer's call makes after its from_dlpack): DLPack's methods are the array's."""

    def __init__(self, array, write) -> None:
        self.array, self.write = array, write

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def exported(producer: str, values, layout: str = "contiguous", write: str = "") -> Exported:
    """``values`` as ``producer``'s array, laid out as ``layout`` (one of LAYOUTS), to export; its
    producer writes into it after the import as ``write`` (one of WRITES) says."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout {layout!r} is not one of {LAYOUTS}")
    if write not in WRITES:
        raise ValueError(f"write {write!r} is not one of {WRITES}")
    array = np.array(values).view(Exported)
    array.producer, array.layout, array.write = producer, layout, write
    return array


def slice_source(item: slice) -> str:
    text = ":".join("" if v is None else repr(v) for v in (item.start, item.stop))
    return text + (f":{item.step!r}" if item.step is not None else "")


def index_source(index, array_text) -> str:
    """An index in Python's subscript syntax: '1, None, ::-2, ...'. ``array_text``
    renders the arrays inside it."""

    def item_source(item):
        if item is Ellipsis:
            return "..."
        if isinstance(item, slice):
            return slice_source(item)
        if isinstance(item, np.ndarray):
            return array_text(item)
        return value_source(item)

    if not isinstance(index, tuple):
        return item_source(index)
    if not index:
        return "()"
    return ", ".join(item_source(i) for i in index) + ("," if len(index) == 1 else "")


def value_source(value) -> str:
    """Python source for a Python value (scalars, None, tuples and lists of them)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "-float('inf')"
        return repr(value)
    if isinstance(value, complex):
        return f"complex({value_source(value.real)}, {value_source(value.imag)})"
    if isinstance(value, (list, tuple)):
        items = ", ".join(value_source(v) for v in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if len(value) == 1 else ''})"
    if isinstance(value, BackendArray):  # only reproducers that call an adapter meet one here
        return f"backend_array({array_source(np.asarray(value))})"
    if isinstance(value, np.ndarray):
        return array_source(value)
    if isinstance(value, slice):
        return f"slice({value.start!r}, {value.stop!r}, {value.step!r})"
    if value is Ellipsis:
        return "Ellipsis"
    return repr(value)


def array_source(array: np.ndarray) -> str:
    if isinstance(array, Exported):
        write = f", {array.write!r}" if array.write else ""
        return f"exported({array.producer!r}, {array_source(np.asarray(array))}, {array.layout!r}{write})"
    name = array.dtype.name
    dtype = "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"
    if name in dtypes.REAL_FLOAT and has_nan_payload(array):
        # float('nan') would lose the payload and the sign: write the bits
        unsigned = unsigned_of(array)
        flat = f"np.array({array.reshape(-1).view(unsigned).tolist()}, dtype=np.{unsigned}).view({dtype})"
    else:
        if name == "bfloat16":
            items = [value_source(float(v)) for v in array.reshape(-1)]
        elif name == "bool":
            items = [repr(bool(v)) for v in array.reshape(-1)]
        else:
            items = [value_source(v.item()) for v in array.reshape(-1)]
        if array.ndim == 0:
            return f"np.array({items[0]}, dtype={dtype})"
        flat = f"np.array([{', '.join(items)}], dtype={dtype})"
    return flat if array.ndim == 1 else f"{flat}.reshape({array.shape})"


def unsigned_of(array: np.ndarray) -> str:
    """The unsigned integer dtype of the array's width: its elements' bits."""
    return f"uint{8 * array.dtype.itemsize}"


def has_nan_payload(array: np.ndarray) -> bool:
    """A NaN whose bits are not those of the dtype's own NaN (sign, payload, signalling).
    By bits: a float operation on a signalling NaN would raise NumPy's invalid flag."""
    unsigned = unsigned_of(array)
    plain, infinity, sign = (np.array(v, dtype=array.dtype).view(unsigned) for v in (np.nan, np.inf, -0.0))
    bits = array.reshape(-1).view(unsigned)
    return bool((((bits & ~sign) > infinity) & (bits != plain)).any())


def globals_used(fn) -> dict:
    """The module globals ``fn`` uses, its nested code (a generator expression, an inner
    function) included: inspect.getclosurevars sees only fn's own code."""
    codes, names = [fn.__code__], set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return {name: fn.__globals__[name] for name in names if name in fn.__globals__}


def function_source(*functions, rename: dict[str, str] | None = None) -> str:
    """The definitions of ``functions`` and of what they use from their own modules
    (helper functions, constants), each once and each name in ``rename`` replaced, so
    that the text runs where the modules' imports are made."""
    needed, constants = [], {}

    def visit(fn, module):
        if fn in needed:
            return
        needed.append(fn)
        for name, value in globals_used(fn).items():
            if isinstance(inspect.unwrap(value), types.FunctionType) and inspect.getmodule(value) is module:
                visit(inspect.unwrap(value), module)
            elif isinstance(value, (int, float, str, bool)):
                constants[name] = value

    for function in functions:
        visit(inspect.unwrap(function), inspect.getmodule(inspect.unwrap(function)))
    text = "".join(f"{name} = {value!r}\n" for name, value in constants.items())
    text += "\n".join(inspect.getsource(fn) for fn in reversed(needed))
    for old, new in (rename or {}).items():
        text = re.sub(rf"(?<![\w.]){re.escape(old)}\b", new, text)  # not attributes (torch.func.grad)
    return text
