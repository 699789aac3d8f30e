"""A case: one operation on concrete inputs, with its shrink-stable description (the
inputs part of a divergence's signature) and its Python source (records' examples)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compat.core import dtypes, ops
from compat.core.source import BackendArray, Exported, array_source, index_source, value_source


@dataclass(frozen=True)
class Case:
    """One operation on concrete inputs: NumPy arrays and Python values."""

    op: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    program: Any = (
        None  # a compat.core.programs.Program: the function ``f`` an autodiff transform (grad, ...) takes
    )
    exact: bool = False  # judged bit for bit (copies), not within the oracle's tolerance

    def input_tags(self) -> str:
        """Shrink-stable description of the inputs: 'int8,py:int', 'int32,idx(None,int,slice)';
        a dtype asked for is one too ('float64,dtype=float16': a conversion is its pair of dtypes)."""
        index_arg = ops.get(self.op).index_arg
        tags = [index_tag(a) if i == index_arg else tag(a) for i, a in enumerate(self.args)]
        tags += [f"dtype={self.kwargs['dtype']}"] if "dtype" in self.kwargs else []
        if any(isinstance(a, Exported) for a in self.args) and "copy" in self.kwargs:
            tags.append(f"copy={self.kwargs['copy']}")  # what the import asked the producer for
        return ",".join(tags)

    def arrays(self) -> dict[str, np.ndarray]:
        return {f"x{i}": a for i, a in enumerate(self.args) if isinstance(a, np.ndarray)}

    def example(self) -> dict:
        """What a record keeps of the case: its call and inputs as NumPy source
        (``compat.core.parse`` turns them back into the case)."""
        return {
            "call": self.call(),
            "inputs": self.inputs_source(),
            **({"exact": True} if self.exact else {}),
        }

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
        """The call in NumPy's spelling: ``add(x0, 1000)``, ``x0[..., None]``."""
        if ops.get(self.op).subscript:
            return (
                f"x0[{index_source(self.args[1], value_source)}]"  # backend arrays inside stay backend arrays
            )
        return f"{self.op}({self.arguments(self.arg_names(), dtypes_as=repr)})"

    def arguments(self, args: list[str], dtypes_as, values_as=value_source) -> str:
        """The call's arguments: ``args`` as given, keyword values as ``values_as`` writes
        them (a reproducer: an array as the backend's array), dtypes as ``dtypes_as`` (``dtype=None``,
        the standard's default, as None in every framework)."""
        kwargs = [
            f"{k}={dtypes_as(v) if k == 'dtype' and v is not None else values_as(v)}"
            for k, v in self.kwargs.items()
        ]
        return ", ".join(args + kwargs)

    def size(self) -> int:
        """Smaller is simpler: input elements and program nodes."""
        arrays = sum(a.size for a in self.arrays().values())
        nodes = self.program.nodes() if self.program is not None else 0
        return arrays + nodes

    def dtype_names(self) -> frozenset[str]:
        """Every dtype the case holds or names: its arrays' (in sequences and indices too), the
        dtypes it asks about, its ``dtype=``: what a backend must have to be asked it at all."""
        named = {str(self.kwargs["dtype"])} if self.kwargs.get("dtype") in dtypes.ALL else set()
        return frozenset(named | set(held_dtypes(self.args)))


def held_dtypes(value) -> list[str]:
    """The dtypes of the arrays and dtype arguments in ``value``, however deeply in sequences."""
    if isinstance(value, np.ndarray):
        return [value.dtype.name]
    if isinstance(value, dtypes.DType):
        return [str(value)]
    if isinstance(value, (tuple, list)):
        return [name for item in value for name in held_dtypes(item)]
    return []


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
            rank = "0d-" if item.ndim == 0 else ""  # a 0-d boolean array adds an axis; a mask selects
            return f"{'backend-' if isinstance(item, BackendArray) else ''}{rank}{item.dtype.kind}-array"
        if isinstance(item, (list, tuple)):
            flat = np.asarray(item).reshape(-1)
            return f"{'empty' if not flat.size else 'b' if flat.dtype == np.bool_ else 'i'}-{type(item).__name__}"
        return type(item).__name__

    items = index if isinstance(index, tuple) else (index,)
    return "idx(" + ",".join(sorted({kind(i) for i in items})) + ")"


def tag(value) -> str:
    if isinstance(value, Exported):  # the producer and its layout are part of what an import keeps or loses
        return f"{value.producer}:{value.dtype.name}:{value.layout}"
    if isinstance(value, np.ndarray):
        return value.dtype.name
    if isinstance(value, dtypes.DType):  # a dtype asked about: tagged as an array of it is
        return str(value)
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        # concat's arrays: the dtypes among them, each once (not their order or count: one
        # promotion rule is one divergence, not one per sequence of arrays)
        return "(" + ",".join(sorted({tag(v) for v in value})) + ")"
    if isinstance(value, (list, tuple)):
        return f"py:{type(value).__name__}"
    return dtypes.python_scalar_tag(value)
