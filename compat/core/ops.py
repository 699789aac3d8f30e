"""The table of operations: one declaration per operation, and every fact about it
that compat uses.

The oracle asks whether an operation accumulates (its rounding depends on summation
order) or is correctly rounded, reproducers and records which argument is an index,
the checker which argument names the device a result belongs on, the gradient
programs where an operation is smooth, the specs which operations form a group
(every binary arithmetic operation, every unary math function), and adapters which
operations they must map. A new operation, or a new fact, is one edit in the module
of ``compat.core.table`` for its section of the standard (SciPy's ``xp_capabilities``
is the model: one declaration drives tests and documentation; ``python -m compat ops``
prints the table with each backend's support, and the standard's functions it covers).

Operations are named as in NumPy, with the standard's name where it differs
(``Op.standard``). An adapter calls ``<its namespace>.<name>`` unless it maps the
operation to something else or declares it unsupported.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from compat.core.operation import NARROW_ULPS, PUBLISHED_ULPS, Op
from compat.core.table import (
    creation,
    data_type,
    elementwise,
    fft,
    indexing,
    linalg,
    linear_algebra,
    manipulation,
    nan_ignoring,
    operators,
    own,
    searching,
    set,
    sorting,
    statistical,
    utility,
)

__all__ = [  # what the rest of compat asks of the table (Op and the accuracy tables re-exported from operation)
    "NARROW_ULPS",
    "OPS",
    "PUBLISHED_ULPS",
    "TABLE",
    "USER_FUNCTIONS",
    "Op",
    "UnknownOperation",
    "declare_function",
    "elementwise_functions",
    "extension",
    "float_result",
    "get",
    "names",
    "operator_forms",
    "published_ulps",
    "select",
    "smooth",
]

# the gradient programs draw their unary operations in table order: the first is the simplest
TABLE: tuple[Op, ...] = (
    *elementwise.TABLE,
    *statistical.TABLE,
    *nan_ignoring.TABLE,
    *searching.TABLE,
    *sorting.TABLE,
    *set.TABLE,
    *utility.TABLE,
    *linear_algebra.TABLE,
    *linalg.TABLE,
    *fft.TABLE,
    *data_type.TABLE,
    *creation.TABLE,
    *manipulation.TABLE,
    *indexing.TABLE,
    *operators.TABLE,
    *own.TABLE,
)

OPS: dict[str, Op] = {op.name: op for op in TABLE}
# users' own functions (declare_function): operations for get(), never part of the table that
# adapters resolve and specs iterate
USER_FUNCTIONS: dict[str, Op] = {}


class UnknownOperation(LookupError):
    pass


def get(name: str) -> Op:
    try:
        return OPS[name] if name in OPS else USER_FUNCTIONS[name]
    except KeyError:
        raise UnknownOperation(
            f"{name!r} is not an operation of compat's table (compat/core/ops.py)"
        ) from None


def declare_function(function: Callable, ulps: float, terms: Callable | None = None) -> str:
    """A user's own function, written against the standard, as an operation (``xp.check_function``):
    named by its module and name, called on every backend's arrays as it is (``Op.python``), within
    the ``ulps`` the user declares (plus ``eps * terms`` for an accumulation: ``Op.terms``'s form).
    The sign of a zero result is not judged: the user declares an accuracy, not bits."""
    name = f"{function.__module__}.{function.__qualname__}"
    about = (inspect.getdoc(function) or "").split("\n")[0]
    USER_FUNCTIONS[name] = Op(
        name,
        str(inspect.signature(function)),
        "user",
        about or "a user's function",
        numpy=name,  # on NumPy's arrays it is called as it is (a gradient program's record spells it so)
        python=function,
        accuracy=ulps,
        terms=terms,
        zero_sign_free=True,
    )
    return name


def published_ulps(name: str, dtype: str) -> float | None:
    """The published accuracy of operation ``name`` for a real ``dtype`` result (PUBLISHED_ULPS), or None."""
    bounds = get(name).ulps
    if bounds is None:
        return None
    return {"float16": NARROW_ULPS, "bfloat16": NARROW_ULPS, "float32": bounds[0], "float64": bounds[1]}.get(
        dtype
    )


def operator_forms(name: str) -> list[str]:
    """The operator forms of table function ``name`` (+, +=, the reflected form of add), in table order."""
    return [op.name for op in TABLE if op.computes == name]


def names(*wanted: str) -> list[str]:
    """The given operation names, each checked against the table (a spec's chosen sample)."""
    return [get(name).name for name in wanted]


def select(*, group: str | tuple[str, ...] | None = None, **facts) -> list[str]:
    """Names of the operations in ``group`` (one or several) with the given facts,
    in table order: ``select(group=("arithmetic", "comparison"))``, ``select(accumulates=True)``."""
    groups = (group,) if isinstance(group, str) else group
    return [
        op.name
        for op in TABLE
        if (groups is None or op.group in groups)
        and all(getattr(op, fact) == value for fact, value in facts.items())
    ]


def smooth(kind: str) -> dict[str, Callable]:
    """Operation -> where it is smooth, for the gradient programs' operations of one
    kind: ``smooth("unary")`` (a predicate of the operand), ``smooth("binary")`` (of
    both, broadcast), ``smooth("reduction")`` (of the operand and the axis), and
    ``smooth("linalg")``: the linalg extension's functions (norm, spelled
    linalg.vector_norm, too), a predicate of their operands (matrices)."""
    arity = {"unary": 1, "binary": 2}

    def of_kind(op: Op) -> bool:
        if op.standard_name.startswith("linalg."):
            return kind == "linalg"
        if kind == "reduction":
            return op.group == "reduction"
        return kind in arity and op.group != "reduction" and op.arity == arity[kind]

    return {op.name: op.smooth for op in TABLE if op.smooth is not None and of_kind(op)}


def extension(name: str) -> list[str]:
    """The operations of the standard's extension ``name`` (linalg, fft) that are in its group: those
    that are only there (the main namespace's matmul is linalg.matmul too, and keeps its own spelling)."""
    return [op.name for op in TABLE if op.group == name and op.standard.startswith(f"{name}.")]


def elementwise_functions(arity: int | None = None) -> list[str]:
    """The standard's elementwise functions (its section of that name) in table order, those of
    ``arity`` arrays where given: what the families that check every elementwise function take."""
    from compat.core.standard import MAIN

    section = MAIN["elementwise"]  # (``set`` is the table module of that section here)
    return [
        op.name
        for op in TABLE
        if op.elementwise and op.standard_name in section and (arity is None or op.arity == arity)
    ]


def float_result(name: str) -> bool:
    """NumPy's result of the operation's table example is a float (a comparison's or isnan's is a
    bool): what the rounding specs take."""
    import numpy as np

    op = get(name)
    return (
        np.asarray(getattr(np, op.numpy or name)(*op.example, **dict(op.example_kwargs))).dtype.kind in "fc"
    )
