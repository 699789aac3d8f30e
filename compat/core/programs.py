"""Small differentiable programs: expression trees over NumPy's op names.

A program is built once (by the gradient spec's strategy) and runs unchanged
in every backend: ``bind`` turns it into a Python function of backend arrays
through the adapter's own op table, and ``source`` writes the same function
as Python text for reproducers, so a reproducer runs what the harness ran.

Leaves are the inputs ``x0, x1, ...`` (the arrays differentiated) and
constants ``c0, c1, ...`` (weights, masks, index arrays: never differentiated).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from compat.core import ops
from compat.core.source import array_source, index_source, value_source


@dataclass(frozen=True)
class Node:
    op: str  # "input", "const", or an operation of compat.core.ops such as "tanh", "sum", "getitem"
    args: tuple = ()  # child nodes
    params: tuple = ()  # positional arguments after the children: a shape, axes, getitem's index
    kwargs: tuple = ()  # (name, value) pairs: axis=, keepdims=
    slot: int = 0  # input or constant number

    def ops(self) -> set[str]:
        own = set() if self.op in ("input", "const") else {self.op}
        return own.union(*(a.ops() for a in self.args)) if self.args else own


@dataclass(frozen=True)
class Program:
    """``f(x0, x1, ...)`` = the tree at ``root``; constants are NumPy arrays."""

    root: Node
    inputs: tuple[np.ndarray, ...]
    constants: tuple[np.ndarray, ...] = field(default=())

    def bind(self, adapter, device: str | None = None, observe=None, operand=None) -> BoundProgram:
        """The program as a function of backend arrays, built from the adapter's ops;
        ``observe`` (if given) sees the value of every operation, and
        ``operand(key, value)`` (if given) replaces each operand of each operation
        (key: which operation, which operand)."""
        return BoundProgram(self, adapter, device, observe, operand)

    def source(self, adapter, name: str = "f", device: str | None = None) -> str:
        """``def f(x0, x1): return <expression>`` in the adapter's framework, after the
        definitions of the functions it calls; with no adapter, through
        ``backend.function(op)`` (reproducers of third-party adapters)."""
        if adapter is None:
            body = self.expression(
                lambda op: f"backend.function({op!r})",
                lambda i, dtype: f"backend.values.from_numpy(c{i}, device)",
            )
            return f"def {name}({self.parameters()}):\n    return {body}\n"
        sources = {op: adapter.spelling.operation(op) for op in sorted(self.root.ops())}
        body = self.expression(
            lambda op: sources[op].expression, lambda i, dtype: adapter.spelling.array(f"c{i}", dtype, device)
        )
        definitions = "".join(s.definitions + "\n" for s in sources.values() if s.definitions)
        return definitions + f"def {name}({self.parameters()}):\n    return {body}\n"

    def parameters(self) -> str:
        return ", ".join(f"x{i}" for i in range(len(self.inputs)))

    def expression(self, op_text, constant_text, node: Node | None = None) -> str:
        node = node or self.root
        if node.op == "input":
            return f"x{node.slot}"
        if node.op == "const":
            return constant_text(node.slot, self.constants[node.slot].dtype.name)
        args = [self.expression(op_text, constant_text, a) for a in node.args]
        if ops.get(node.op).subscript:
            return f"{args[0]}[{index_source(node.params[0], array_source)}]"
        args += [value_source(p) for p in node.params] + [f"{k}={value_source(v)}" for k, v in node.kwargs]
        return f"{op_text(node.op)}({', '.join(args)})"

    def numpy_lambda(self) -> str:
        """The program in NumPy's spelling, for records: ``lambda x0: np.sum(np.tanh(x0) * c0)``."""
        return f"lambda {self.parameters()}: " + self.expression(
            lambda op: ops.get(op).numpy or f"np.{op}", lambda i, dtype: f"c{i}"
        )

    def nodes(self, node: Node | None = None) -> int:
        node = node or self.root
        return 1 + sum(self.nodes(a) for a in node.args)

    def constants_source(self) -> dict[str, str]:
        return {f"c{i}": array_source(c) for i, c in enumerate(self.constants)}


def weighted_sum(op: str, args: tuple, kwargs: dict, cotangent: np.ndarray) -> Program:
    """``sum(op(*args, **kwargs) * cotangent)`` as a program of ``op``'s real floating array
    arguments (its inputs, differentiated); its other arrays are constants, its other values
    parameters after the arrays (a user's function: ``xp.check_function(..., grad=True)``).
    The cotangent makes the gradient a generic vector-Jacobian product, as the gradient programs'
    weights do (the sum of a softmax is 1 whatever its inputs: its gradient would be zero)."""
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    if arrays != list(range(len(arrays))) or any(isinstance(v, np.ndarray) for v in kwargs.values()):
        raise TypeError(f"{op}: a gradient takes the arrays as the leading positional arguments")
    inputs = tuple(args[i] for i in arrays if args[i].dtype.kind == "f")
    if not inputs:
        raise TypeError(f"{op}: a gradient needs a real floating array argument")
    constants: list[np.ndarray] = []
    leaves: list[Node] = []
    for i in arrays:
        if args[i].dtype.kind == "f":
            leaves.append(Node("input", slot=sum(a.dtype.kind == "f" for a in args[:i])))
        else:
            leaves.append(Node("const", slot=len(constants)))
            constants.append(args[i])
    call = Node(op, tuple(leaves), tuple(args[len(arrays) :]), tuple(kwargs.items()))
    weights = Node("const", slot=len(constants))
    return Program(Node("sum", (Node("multiply", (call, weights)),)), inputs, (*constants, cotangent))


class BoundProgram:
    """A program bound to an adapter: callable on backend arrays. Its constants become backend
    arrays when ``prepare`` is called (the adapter converts a call's arguments inside its config
    and device scope: JAX x64, torch's lazy device), or at the first call: a compiled call closes
    over arrays made before it is traced, as a user's function closes over its weights."""

    def __init__(self, program: Program, adapter, device, observe, operand):
        self.program, self.adapter, self.device = program, adapter, device
        self.observe, self.operand = observe, operand
        self.functions = {op: adapter.function(op) for op in program.root.ops()}
        self.constants: list | None = None

    def prepare(self) -> BoundProgram:
        if self.constants is None:
            self.constants = [self.adapter.values.from_numpy(c, self.device) for c in self.program.constants]
        return self

    def evaluate(self, node: Node, xs):
        if node.op == "input":
            return xs[node.slot]
        if node.op == "const":
            assert self.constants is not None, "evaluate a bound program"
            return self.constants[node.slot]
        args = [self.evaluate(a, xs) for a in node.args]
        if self.operand is not None:
            args = [self.operand((id(node), i), a) for i, a in enumerate(args)]
        value = self.functions[node.op](*args, *node.params, **dict(node.kwargs))
        if self.observe is not None:
            self.observe(value)
        return value

    def __call__(self, *xs):
        return self.prepare().evaluate(self.program.root, xs)
