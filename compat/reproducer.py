"""Cases, their Python source, and runnable reproducer snippets.

A reproducer is plain Python that imports the framework and prints what
NumPy and the backend return for the minimal example. For compat's own
adapters it uses the framework's API directly (the adapter's OPS text); for a
third-party adapter, whose internals compat cannot know, it calls the adapter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from compat import dtypes
from compat.adapters import Adapter


@dataclass(frozen=True)
class Case:
    """One operation on concrete inputs: NumPy arrays and Python values."""

    op: str
    args: tuple
    kwargs: dict = field(default_factory=dict)

    def input_tags(self) -> str:
        """Shrink-stable description of the inputs: 'int8,py:int'."""
        return ",".join(tag(a) for a in self.args)

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"x{i}": a for i, a in enumerate(self.args) if isinstance(a, np.ndarray)}

    def inputs_source(self) -> dict[str, str]:
        return {name: array_source(a) for name, a in self.arrays().items()}

    def arg_names(self) -> list[str]:
        return [f"x{i}" if isinstance(a, np.ndarray) else value_source(a) for i, a in enumerate(self.args)]

    def call(self) -> str:
        return f"{self.op}({self.arguments(self.arg_names(), dtypes_as=repr)})"

    def arguments(self, args: list[str], dtypes_as) -> str:
        kwargs = [f"{k}={dtypes_as(v) if k == 'dtype' else value_source(v)}" for k, v in self.kwargs.items()]
        return ", ".join(args + kwargs)

    def uses_bfloat16(self) -> bool:
        return any(a.dtype.name == "bfloat16" for a in self.arrays().values()) or self.kwargs.get("dtype") == "bfloat16"


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
    if isinstance(value, np.ndarray):
        return array_source(value)
    return repr(value)


def array_source(array: np.ndarray) -> str:
    name = array.dtype.name
    dtype = "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"
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


def reproducer(case: Case, reference: Adapter, backend: Adapter, device: str | None = None) -> str:
    lines = ["import numpy as np"]
    if case.uses_bfloat16():
        lines.append("import ml_dtypes")
    native = is_native(backend)
    if native:
        lines += [line for line in backend.imports if line not in lines]
        lines += backend.setup_lines()
    else:
        lines.append("from compat.adapters import load_adapter")
    lines.append("")
    lines += [f"{name} = {source}" for name, source in case.inputs_source().items()]
    lines.append(SHOW)
    lines.append(f"show({label(reference)!r}, lambda: {native_call(case, reference)})")
    if native:
        lines.append(f"show({label(backend)!r}, lambda: {native_call(case, backend)})")
    else:
        lines.append(f"backend = load_adapter({backend.spec!r})")
        args = ", ".join(case.arg_names())
        kwargs = "{" + ", ".join(f"{k!r}: {value_source(v)}" for k, v in case.kwargs.items()) + "}"
        lines.append(f"print({label(backend) + ':'!r}, backend.run({case.op!r}, ({args}{',' if len(case.args) == 1 else ''}), {kwargs}, device={device!r}).describe())")
    return "\n".join(lines) + "\n"


def label(adapter: Adapter) -> str:
    return f"{adapter.id} {adapter.version()}"


def native_call(case: Case, adapter: Adapter) -> str:
    args = [
        adapter.array_source(f"x{i}", a.dtype.name) if isinstance(a, np.ndarray) else value_source(a)
        for i, a in enumerate(case.args)
    ]
    op = adapter.op_source(case.op)
    if op.startswith("lambda"):
        op = f"({op})"
    return f"{op}({case.arguments(args, dtypes_as=adapter.dtype_source)})"
