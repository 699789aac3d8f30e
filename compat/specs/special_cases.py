"""Special cases: the sign of every zero, and the values where IEEE 754 and the standard fix a result.

IEEE 754 and the standard fix the sign of every zero a correctly rounded operation or a special case
returns (``-(+0.0)`` is -0.0, ``x * -0.0``, ``floor(-0.5)`` is -1 but ``ceil(-0.5)`` and
``round(-0.4)`` are -0.0, ``remainder(+0, -1)`` is -0.0, ``sqrt(-0.0)`` is -0.0, ``copysign``,
``atan2(+0, -0)`` is +pi), and programs depend on it (``1 / x``, ``atan2``, ``copysign``). The oracle
judges a zero's sign wherever the operation fixes it (``Op.zero_sign_fixed``; signature ``-0 -> +0``,
"sign of zero"). These specs meet every such case on purpose, on fixed tables rather than by drawing
(a zero of the wrong sign is one value of many): each elementwise function and operator of real
floats at every pair of the values around zero.
"""

import numpy as np
import pytest

from compat.core import calls, dtypes, ops, special_cases

FLOATS = ("float32", "float64")
# the zeros, the values whose rounding, floor, ceil, truncation or remainder is a zero of either sign,
# and the infinities (1 / -inf is -0.0, atan2(+0, -inf) is +pi)
AROUND_ZERO = (0.0, -0.0, 0.4, -0.4, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf)
SCALARS = (0.0, -0.0)  # the Python operand of a reflected operator (-0.0 - x, 0.0 - x)


ELEMENTWISE = set(ops.elementwise_functions())  # the standard's section (not astype, a conversion)


def fixes_zero_signs(op) -> bool:
    """An elementwise operation of one or two real floats whose float result has a fixed zero sign."""
    if op.name not in ELEMENTWISE and op.group != "operator":
        return False
    if not (op.elementwise and op.arity in (1, 2) and op.zero_sign_fixed):
        return False
    if not set(FLOATS) <= set(dtypes.CATEGORIES[op.takes]):
        return False
    function = op.computes or (op.name if op.group != "operator" else "")
    return ops.float_result(function) if function else True  # -x, +x, abs(x)


OPERATIONS = [op.name for op in ops.TABLE if fixes_zero_signs(op)]


def reflected(name: str) -> bool:
    """A reflected operator form, ``{1} - {0}``: its second operand is a Python number."""
    spelling = ops.get(name).spelling
    return bool(spelling) and spelling.index("{1}") < spelling.index("{0}")


def operands_around_zero(name: str, dtype: str) -> list[tuple]:
    """The operands of one check of ``name``: every value around zero, every pair of them (each first
    operand with each second), or each value with each Python zero for a reflected operator."""
    values = np.array(AROUND_ZERO, dtype=dtypes.to_numpy(dtype))
    if ops.get(name).arity == 1:
        return [(values,)]
    if reflected(name):
        return [(values, scalar) for scalar in SCALARS]
    return [(np.repeat(values, len(values)), np.tile(values, len(values)))]


def test_signed_zeros_of_every_elementwise_function(xp):
    """Every elementwise function and operator of real floats, at every pair of the values around
    zero (+-0, +-0.4, +-0.5, +-1, +-2.5, +-inf): the result NumPy gives, each zero with its sign
    where the operation fixes it (negative(+0) is -0, not 0 - (+0); copysign(1, -0) is -1)."""
    for name, dtype in xp.sample([(name, dtype) for name in OPERATIONS for dtype in FLOATS], least=1):
        for args in operands_around_zero(name, dtype):
            xp.check(name, *args)


SPECIAL_CASES = sorted(
    {
        (case.op, dtype)
        for case in special_cases.CASES
        if case.op and case.unparsed is None
        for dtype in case.dtypes
    }
)


def test_every_special_case_of_the_standard(xp):
    """Every special-case clause of the 2025.12 standard's elementwise functions (compat/core/
    special-cases.toml), on operands that meet its condition: the result NumPy gives; where it
    gives another, the result the standard states is named (the record follows the standard), and
    NumPy's own row is held to the standard."""
    for op, dtype in xp.sample(SPECIAL_CASES, least=1):
        args, clauses = special_cases.operands(op, dtype)
        xp.check_standard(op, *args, clauses=clauses)


def scalar_sides(op: str) -> list[int]:
    """The operands of ``op`` the standard's signature lets a Python float stand for (``pow``'s x1 and
    x2: ``Union[array, int, float, complex]``), by position."""
    found = calls.signature_of(ops.get(op))
    if found is None:
        return []
    return [i for i, p in enumerate(found.parameters) if p.positional and "float" in p.scalars]


SCALAR_SPECIAL_CASES = [(op, dtype) for op, dtype in SPECIAL_CASES if dtype in FLOATS and scalar_sides(op)]


def test_every_special_case_of_the_standard_with_a_python_scalar(xp):
    """Every clause of a function of two operands the standard lets be Python scalars, with each such
    operand a Python float: the clause's elements grouped by that operand's value (``pow(x1, -0.0)``
    for every x1 of the clauses where x2 is -0), against NumPy's same call and the standard's result."""
    for op, dtype in xp.sample(SCALAR_SPECIAL_CASES, least=1):
        args, clauses = special_cases.operands(op, dtype)
        for side in scalar_sides(op):
            values: dict[bytes, list[int]] = {}
            for i, value in enumerate(args[side]):
                values.setdefault(value.tobytes(), []).append(i)
            for where in values.values():
                operands = [a[where] for a in args]
                operands[side] = float(args[side][where[0]])
                xp.check_standard(op, *operands, clauses=[clauses[i] for i in where])


@pytest.mark.compat_where(lambda row, backend: bool(backend.zero_order), "no order of -0 and +0 promised")
def test_promised_order_of_signed_zeros(xp):
    """Where a backend promises an order of -0 and +0 (``Adapter.zero_order``: IEEE 754-2019
    maximum and minimum, -0 < +0), maximum and minimum of the two zeros give the ordered one in
    both argument orders; the standard leaves the sign open, so NumPy (the second argument) is no
    reference here."""
    for op, promised in xp.backend.zero_order.items():
        for dtype in FLOATS:
            first = np.array([-0.0, 0.0], dtype=dtypes.to_numpy(dtype))
            xp.check_promise(
                "zero_order", np.full(2, promised, dtype=first.dtype), op, first, first[::-1].copy()
            )
