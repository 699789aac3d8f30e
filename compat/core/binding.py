"""A call as the standard's parameters see it (``Binding``), and the kind of value each parameter
has in it (``kinds_of``: the records' ``Checks.forms``), in compat.core.signatures' vocabulary.
A table operation is one of the standard's functions (``signature_of``: its own, or for an operator
form the array method it is); its arguments bind to the standard's parameters by position and by
name, whatever NumPy's spelling of the table's call."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from compat.core import dtypes, ops, signatures
from compat.core.operation import Op
from compat.core.signatures import Parameter, Signature


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()  # a parameter not passed


def signature_of(op: Op) -> Signature | None:
    """The standard's signature of a table operation: its function (``linalg.solve``, ``pow``)
    or, for an operator form, the array method it is (``x += y`` and ``2 + x``: ``__add__``)."""
    if op.group == "operator":
        name = op.name.strip("_")
        for prefix in ("", "r", "i"):
            if name.startswith(prefix) and (found := signatures.of(f"array.__{name[len(prefix) :]}__")):
                return found
        return None
    return signatures.of(op.signature or op.standard_name)


def table_operation(standard_name: str) -> Op | None:
    """The table's operation that is the standard's function (its own name first: vector_norm,
    not norm)."""
    found = [op for op in ops.TABLE if op.standard_name == standard_name and op.python is None]
    short = standard_name.rpartition(".")[2]
    found.sort(key=lambda op: op.name != short)
    return found[0] if found else None


# -- binding: a call's arguments to the standard's parameters and back --------------------------


@dataclass
class Binding:
    """A call as the standard's parameters see it: name -> value (ABSENT: not passed)."""

    op: Op
    signature: Signature
    values: dict = field(default_factory=dict)

    def get(self, name: str):
        return self.values.get(name, ABSENT)

    def with_(self, **changed) -> Binding:
        return Binding(self.op, self.signature, {**self.values, **changed})

    def call(self) -> tuple[tuple, dict]:
        """(args, kwargs): positional parameters by position while each is passed (one after an
        absent one by its name), var-positional ones spread, keyword-only ones by name."""
        args: list = []
        kwargs: dict = {}
        by_name = False
        for p in self.signature.parameters:
            value = self.get(p.name)
            if p.kind == "var-positional":
                args += list(value if value is not ABSENT else ())
                continue
            if value is ABSENT:
                by_name = by_name or p.positional
                continue
            if p.positional and not by_name and p.kind != "keyword-only":
                args.append(value)
            else:
                kwargs[p.name] = value
        return tuple(args), kwargs


def bind(op: Op, signature: Signature, args: tuple, kwargs: dict) -> Binding:
    """The standard's parameters of a call of ``op``: args by the table's names for them where the
    standard has those names (from_dlpack_onto's (x, device)), else by position in the standard's
    order; an operator's first operand is the array itself, not a parameter."""
    parameters = list(signature.parameters)
    if op.group == "operator":
        args = args[1:]
    values: dict = {}
    table = [p.strip().split("=")[0].strip() for p in op.params.strip("()").split(",") if p.strip()]
    names = {p.name for p in parameters}
    if op.group != "operator" and len(args) <= len(table) and all(t in names for t in table[: len(args)]):
        return Binding(op, signature, {**dict(zip(table, args)), **kwargs})
    rest = list(args)
    for p in parameters:
        if not rest:
            break
        if p.kind == "var-positional":
            values[p.name] = tuple(rest)
            rest = []
        else:
            values[p.name] = rest.pop(0)
    names = {p.name for p in parameters}
    for name, value in kwargs.items():
        values[name if name in names else ALIASES.get(name, name)] = value
    return Binding(op, signature, values)


ALIASES = {"lo": "min", "hi": "max"}  # the table's NumPy-style names of the standard's parameters


# -- what kind a value is -----------------------------------------------------------------------


def kind_of(parameter: Parameter, value) -> str:
    """The kind (compat.core.signatures' vocabulary) of ``value`` given for ``parameter``."""
    admits = parameter.kinds
    if value is ABSENT:
        return "absent"
    if value is None:
        return "None"
    if isinstance(value, (bool, np.bool_)) and not isinstance(value, np.ndarray):
        return ("True" if value else "False") if "True" in admits else "bool"
    if isinstance(value, str) and "device" in admits:  # compat names a device where the standard takes one
        return "device"
    if isinstance(value, str) and not isinstance(value, dtypes.DType):
        literal = repr(str(value))
        if literal in admits:
            return literal
        return "dtype" if parameter.name in ("dtype", "to", "type", "from_") else "str"
    if isinstance(value, (dtypes.DType, np.dtype)):
        return "dtype"
    if isinstance(value, (int, np.integer)):
        return "negative" if value < 0 and "negative" in admits else "int"
    if isinstance(value, (float, np.floating)):
        if np.isinf(value) and ("inf" if value > 0 else "-inf") in admits:
            return "inf" if value > 0 else "-inf"
        return "negative" if value < 0 and "negative" in admits else "float"
    if isinstance(value, (complex, np.complexfloating)):
        return "complex"
    if isinstance(value, np.ndarray):
        return "array"
    if isinstance(value, list):
        return "list"
    if isinstance(value, tuple):
        if "pair" in admits and len(value) == 2 and all(isinstance(v, (tuple, list)) for v in value):
            return "negative" if any(a < 0 for v in value for a in v) else "pair"
        if "negative" in admits and any(isinstance(v, int) and v < 0 for v in value):
            return "negative"
        return "tuple"
    return type(value).__name__


def kinds_of(op_name: str, args: tuple, kwargs: dict) -> list[tuple[str, str]]:
    """(parameter, kind) for each of the standard's parameters in a call of the table operation
    ``op_name``, each item of a var-positional one (none for an operation that is no function of
    the standard)."""
    op = ops.get(op_name)
    signature = signature_of(op)
    if signature is None:
        return []
    binding = bind(op, signature, args, kwargs)
    found = []
    for p in signature.parameters:
        value = binding.get(p.name)
        if p.kind == "var-positional":
            found += [(p.name, kind_of(p, v)) for v in (value if value is not ABSENT else ())]
            continue
        found.append((p.name, kind_of(p, value)))
    return found
