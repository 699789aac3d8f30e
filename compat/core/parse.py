"""A case back from the source a record writes for it (``Case.call`` and
``Case.inputs_source``): the registry's examples are replayed through it.

The source is Python that NumPy can run, so it is evaluated, not parsed by hand:
the inputs as they are, the call with the operation's name bound to a function
that captures its arguments, and a gradient program's ``lambda`` with ``np``
bound to a namespace that builds the program's tree instead of computing.
"""

from __future__ import annotations

import ast

import ml_dtypes
import numpy as np

from compat.core import ops
from compat.core.case import Case
from compat.core.dtypes import DType
from compat.core.programs import Node, Program
from compat.core.source import backend_array, exported

# what value_source and array_source write, and nothing else
NAMES = {
    "np": np,
    "ml_dtypes": ml_dtypes,
    "backend_array": backend_array,
    "exported": exported,  # another backend's array, handed over through DLPack
    "dtype": DType,  # a dtype as an argument (result_type's)
    "__builtins__": {"float": float, "complex": complex, "slice": slice, "Ellipsis": Ellipsis},
}
SUBSCRIPT = next(op.name for op in ops.TABLE if op.subscript)


class ParseError(ValueError):
    """The source is not a call of compat's operations on values (one-line message)."""


def evaluate(text: str, names: dict | None = None):
    try:
        return eval(compile(text, "<example>", "eval"), {**NAMES, **(names or {})})
    except ParseError:
        raise
    except Exception as error:
        raise ParseError(f"{text[:80]!r}: {type(error).__name__}: {error}") from None


def case_from_source(call: str, inputs: dict[str, str], exact: bool = False) -> Case:
    """The case ``call`` ran on ``inputs`` (variable -> source), as the checker built it."""
    values = {name: evaluate(text) for name, text in inputs.items() if name != "f"}
    try:
        tree = ast.parse(call, mode="eval").body
    except SyntaxError as error:
        raise ParseError(f"{call[:80]!r} is not a Python expression ({error.msg})") from None
    if isinstance(tree, ast.Subscript):
        if "x0" not in values:
            raise ParseError(f"{call[:80]!r}: no input x0")
        return Case(SUBSCRIPT, (values["x0"], evaluate(call, {**values, "x0": Indexer()})), exact=exact)
    op = called_name(tree.func) if isinstance(tree, ast.Call) else None
    root = op.split(".")[0] if op else ""
    if op is None or (root != op and root in NAMES):  # np.add: NumPy's, not compat's operation
        raise ParseError(f"{call[:80]!r} is not a call of an operation")
    # a dotted name is a user's function (no operation of the table has a dot), resolved once declared
    if root != op:
        args, kwargs = evaluate(call, {**values, root: Dotted(root, lambda _, /, *a, **k: (a, k))})
        return Case(op, args, kwargs, exact=exact)
    try:
        facts = ops.get(op)
    except ops.UnknownOperation as error:
        raise ParseError(str(error)) from None
    args, kwargs = evaluate(call, {**values, "f": None, op: lambda *a, **k: (a, k)})
    if not facts.transform:
        return Case(op, args, kwargs, exact=exact)
    if "f" not in inputs:
        raise ParseError(f"{call[:80]!r}: a transform's example needs its function 'f'")
    constants = sorted((n for n in values if n.startswith("c")), key=lambda n: int(n[1:]))
    return Case(
        op,
        args[1:],
        kwargs,
        program=program_from_source(inputs["f"], args[1:], tuple(values[n] for n in constants)),
    )


def program_from_source(text: str, args: tuple, constants: tuple) -> Program:
    """The program of ``Program.numpy_lambda``'s text: ``lambda x0: np.sum(np.tanh(x0) * c0)``.
    Its inputs are the first of the transform's ``args`` (hvp's last is a tangent)."""
    constant_nodes = {f"c{i}": Symbol(Node("const", slot=i)) for i in range(len(constants))}
    users = {  # a user's function inside the program (xp.check_function's grad=True): mylib.softmax(x0)
        root: Dotted(root, lambda op, /, *a, **k: node_of(op, a, k))
        for root in module_roots(text)
        if root not in NAMES
    }
    function = evaluate(text, {"np": Builder(), **constant_nodes, **users})
    arity = function.__code__.co_argcount
    root = function(*(Symbol(Node("input", slot=i)) for i in range(arity)))
    if not isinstance(root, Symbol):
        raise ParseError(f"{text[:80]!r} does not compute on its inputs")
    return Program(root.node, tuple(args[:arity]), constants)


class Indexer:
    """``x0[...]`` evaluates to the index itself."""

    def __getitem__(self, index):
        return index


class Symbol:
    """A node of a program being rebuilt; ``x[index]`` is a getitem node."""

    def __init__(self, node: Node):
        self.node = node

    def __getitem__(self, index):
        return Symbol(Node(SUBSCRIPT, (self.node,), params=(index,)))


class Builder:
    """``np`` inside a program's lambda: ``np.tanh(x)`` builds a tanh node. Leading
    arguments that are nodes are its operands; the rest are its parameters."""

    def __getattr__(self, op: str):
        if op == "linalg":  # np.linalg.det: NumPy's spelling of the linalg extension's functions
            return self
        if op == "array" or (
            isinstance(getattr(np, op, None), type) and issubclass(getattr(np, op), np.generic)
        ):
            return getattr(
                np, op
            )  # a value inside the program (an index array and its dtype), as sources write it
        try:
            ops.get(op)
        except ops.UnknownOperation as error:
            raise ParseError(str(error)) from None
        return lambda *args, **kwargs: node_of(op, args, kwargs)


def node_of(op: str, args: tuple, kwargs: dict) -> Symbol:
    """``op``'s node: its leading arguments that are nodes are its operands, the rest its parameters."""
    operands = 0
    while operands < len(args) and isinstance(args[operands], Symbol):
        operands += 1
    return Symbol(
        Node(op, tuple(a.node for a in args[:operands]), params=args[operands:], kwargs=tuple(kwargs.items()))
    )


def called_name(func: ast.expr) -> str | None:
    """The name a call calls: ``add``, or a user's function's dotted name ``mylib.softmax``; else None."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and (inner := called_name(func.value)) is not None:
        return f"{inner}.{func.attr}"
    return None


def module_roots(text: str) -> set[str]:
    """The names whose attributes a source calls (``np`` of np.sum, ``mylib`` of mylib.softmax)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return set()  # evaluate says so
    return {
        name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        for name in [called_name(node.func)]
        if name is not None
    }


class Dotted:
    """A module's name in a source, never imported: ``mylib.softmax(*a, **k)`` is
    ``call("mylib.softmax", *a, **k)``."""

    def __init__(self, name: str, call):
        self.name, self.call = name, call

    def __getattr__(self, attr: str) -> Dotted:
        return Dotted(f"{self.name}.{attr}", self.call)

    def __call__(self, *args, **kwargs):
        return self.call(self.name, *args, **kwargs)
