"""Cases, their Python source, and runnable reproducer snippets.

A reproducer is plain Python that imports the framework and prints what
NumPy and the backend return for the minimal example. For compat's own
adapters it uses the framework's API directly (the adapter's OPS text); for a
third-party adapter, whose internals compat cannot know, it calls the adapter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compat.core import dtypes
from compat.adapters import Adapter, BackendArray

INDEXED = ("getitem", "set_at", "add_at", "setitem")  # operations whose second argument is an index


@dataclass(frozen=True)
class Case:
    """One operation on concrete inputs: NumPy arrays and Python values."""

    op: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    program: Any = None  # a compat.core.programs.Program: the function ``f`` an autodiff transform (grad, ...) takes

    def input_tags(self) -> str:
        """Shrink-stable description of the inputs: 'int8,py:int', 'int32,idx(None,int,slice)'."""
        return ",".join(index_tag(a) if i == 1 and self.op in INDEXED else tag(a) for i, a in enumerate(self.args))

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"x{i}": a for i, a in enumerate(self.args) if isinstance(a, np.ndarray)}

    def inputs_source(self) -> dict[str, str]:
        sources = {name: array_source(a) for name, a in self.arrays().items()}
        if self.program is not None:
            sources.update(self.program.constants_source())
            sources["f"] = self.program.numpy_lambda()
        return sources

    def arg_names(self) -> list[str]:
        names = [f"x{i}" if isinstance(a, np.ndarray) else value_source(a) for i, a in enumerate(self.args)]
        return names if self.program is None else ["f"] + names

    def call(self) -> str:
        if self.op == "getitem":
            return f"x0[{index_source(self.args[1], lambda array: array_source(array))}]"
        return f"{self.op}({self.arguments(self.arg_names(), dtypes_as=repr)})"

    def arguments(self, args: list[str], dtypes_as) -> str:
        kwargs = [f"{k}={dtypes_as(v) if k == 'dtype' else value_source(v)}" for k, v in self.kwargs.items()]
        return ", ".join(args + kwargs)

    def size(self) -> int:
        """Smaller is simpler: input elements, program nodes, then source length."""
        arrays = sum(a.size for a in self.arrays().values())
        nodes = self.program.nodes() if self.program is not None else 0
        return arrays + nodes

    def uses_bfloat16(self) -> bool:
        return any(a.dtype.name == "bfloat16" for a in self.arrays().values()) or self.kwargs.get("dtype") == "bfloat16"


def index_tag(index) -> str:
    """The kinds of items an index has, each once: 'idx(...,None,int,slice)'. The
    order and count of items stay out, so that one behaviour (say, negative
    slice steps) is one divergence, not one per index layout."""
    def kind(item):
        if item is None or item is Ellipsis:
            return "None" if item is None else "..."
        if isinstance(item, slice):
            return "slice"
        if isinstance(item, np.ndarray):
            return f"{'backend-' if isinstance(item, BackendArray) else ''}{item.dtype.kind}-array"
        if isinstance(item, (list, tuple)):
            flat = np.asarray(item).reshape(-1)
            return f"{'empty' if not flat.size else 'b' if flat.dtype == np.bool_ else 'i'}-{type(item).__name__}"
        return type(item).__name__
    items = index if isinstance(index, tuple) else (index,)
    return "idx(" + ",".join(sorted({kind(i) for i in items})) + ")"


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


def tag(value) -> str:
    if isinstance(value, np.ndarray):
        return value.dtype.name
    if isinstance(value, (list, tuple)):
        return f"py:{type(value).__name__}"
    return dtypes.python_scalar_tag(value)


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


SHOW = '''
def show(name, compute):
    try:
        result = compute()
    except Exception as error:
        print(f"{name}: raised {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}")
        return
    value = result.numpy() if hasattr(result, "numpy") and not hasattr(result, "tolist") else result
    value = value.tolist() if hasattr(value, "tolist") else value
    print(f"{name}: {getattr(result, 'dtype', type(result).__name__)} {value}")
'''


def is_native(adapter: Adapter) -> bool:
    """compat's own adapters can be written out as framework calls."""
    return type(adapter).__module__.startswith("compat.adapters.")


class OnDevice:
    """A backend on its reference device, as what a device under test is compared with."""

    def __init__(self, adapter: Adapter, device: str) -> None:
        self.adapter, self.device = adapter, device

    @property
    def id(self) -> str:
        return f"device:{self.device}"


def reproducer(case: Case, reference: Adapter | OnDevice, backend: Adapter, device: str | None = None) -> str:
    native = is_native(backend)
    sides = [(reference.adapter, reference.device) if isinstance(reference, OnDevice) else (reference, None)]
    if native:
        sides.append((backend, device))
    lines = ["import numpy as np"]
    if case.uses_bfloat16():
        lines.append("import ml_dtypes")
    for adapter, on in sides:
        lines += [line for line in adapter.imports if line not in lines]
        lines += [line for line in (adapter.device_lines(on) if on else []) + adapter.setup_lines() if line not in lines]
    if not native:
        lines.append("from compat.adapters import backend_array, load_adapter")
    lines.append("")
    lines += [f"{name} = {source}" for name, source in case.inputs_source().items()]
    lines.append(SHOW)
    for adapter, on in sides:
        definition, expression = native_call(case, adapter, on)
        lines += definition
        show = f"show({label(adapter) + (f' on {on}' if on else '')!r}, lambda: {expression})"
        scope = adapter.scope_source(on) if on else None
        lines += [scope, "    " + show] if scope else [show]
    if not native:
        lines.append(f"backend = load_adapter({backend.spec!r})")
        if case.program is not None:
            lines.append(f"device = {device!r}")
            lines.append(case.program.source(None, "f"))
        args = ", ".join(case.arg_names())
        kwargs = "{" + ", ".join(f"{k!r}: {value_source(v)}" for k, v in case.kwargs.items()) + "}"
        lines.append(f"print({label(backend) + ':'!r}, backend.run({case.op!r}, ({args}{',' if len(case.args) == 1 else ''}), {kwargs}, device={device!r}).describe())")
    return "\n".join(lines) + "\n"


def label(adapter: Adapter) -> str:
    return f"{adapter.id} {adapter.version()}"


def native_call(case: Case, adapter: Adapter, device: str | None = None) -> tuple[list[str], str]:
    """(definition lines, expression) computing the case with the adapter's framework on ``device``."""
    def convert(value, i=None):
        if isinstance(value, BackendArray):
            return adapter.array_source(array_source(np.asarray(value)), value.dtype.name, device)
        if isinstance(value, np.ndarray):
            return adapter.array_source(f"x{i}", value.dtype.name, device) if i is not None else array_source(value)
        if isinstance(value, tuple) and any(isinstance(v, np.ndarray) for v in value):
            return "(" + ", ".join(convert(v) for v in value) + ("," if len(value) == 1 else "") + ")"
        return value_source(value)

    if case.op == "getitem":
        array = adapter.array_source("x0", case.args[0].dtype.name, device)
        return [], f"{array}[{index_source(case.args[1], convert)}]"
    args = [convert(a, i) for i, a in enumerate(case.args)]
    op = adapter.op_source(case.op)
    definition = []
    if case.program is not None:
        function = f"f_{adapter.name.replace('-', '_')}"
        definition.append(case.program.source(adapter, function, device))
        args.insert(0, function)
    if op.startswith("def "):
        name = f"{adapter.name.replace('-', '_')}_{case.op}"
        definition.append(op.replace(f"def {case.op}(", f"def {name}(", 1))
        op = name
    elif op.startswith("lambda"):
        op = f"({op})"
    return definition, f"{op}({case.arguments(args, dtypes_as=adapter.dtype_source)})"
