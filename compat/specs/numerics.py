"""Numerics: special values, integer limits and rounding, judged in ULPs.

The other families draw moderate values on purpose (promotion specs are about
dtypes, not overflow). These specs feed each operation the values where
frameworks really differ: NaN, infinities, signed zeros, subnormals, the largest
finite values, halves (rounding), and integers at their limits. The oracle
judges them by the operation's bound (compat.core.oracle): correctly rounded
operations to the bit, the others within a few ULPs of a reference computed in
wider precision. A backend whose CPU flushes subnormals to zero shows that under
its own signature (``subnormal`` -> ``flushed``). Where NumPy itself leaves the
result open (integer division by zero gives 0 with a warning), the backends are
surveyed instead of judged.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compat.core import dtypes, ops
from compat.core.strategies import arrays, dtype_names, dtype_range, input_classes, moderate_elements

FLOATS = dtypes.REAL_FLOAT
# beyond the six operations the placement family feeds special values to (float32/float64 only there)
UNARY = ops.names("exp", "log", "sqrt", "sin", "tanh", "sign", "floor", "round")
BINARY = ops.names("add", "multiply", "true_divide", "floor_divide", "remainder", "power", "maximum", "minimum",
                   "less", "equal")
REDUCTIONS = ops.names("sum", "prod", "max", "min")
SIZES = (1, 3)  # one element shows a special value, three meet each other; few shapes for JAX to compile


def value_classes(name: str) -> dict[str, list[float]]:
    """The special values of ``name`` (each exactly representable), by class."""
    info = dtypes.finfo(name)
    tiny, huge, smallest = float(info.smallest_normal), float(info.max), float(info.smallest_subnormal)
    return {
        "nan or infinity": [np.nan, np.inf, -np.inf],
        "zero or subnormal": [0.0, -0.0, smallest, -smallest, tiny / 2, -tiny / 2, tiny, -tiny],
        "huge or half": [huge, -huge, huge / 2, 0.5, -0.5, 1.5, 2.5, -2.5],
        "moderate": [1.0, -1.0, 3.0],  # and moderate_elements: products and quotients that round
    }


CLASSES = list(value_classes("float32"))


def special_values(name: str) -> list[float]:
    return [v for values in value_classes(name).values() for v in values]


def class_elements(name: str, value_class: str) -> st.SearchStrategy[float]:
    values = st.sampled_from(value_classes(name)[value_class])
    return st.one_of(values, moderate_elements(name)) if value_class == "moderate" else values


def any_elements(name: str) -> st.SearchStrategy[float]:
    special = st.sampled_from(special_values(name))
    return st.one_of(special, special, special, moderate_elements(name))


def integer_limits(name: str) -> list[int]:
    """The dtype's extremes and their neighbours, and the small numbers that meet them."""
    low, high = dtype_range(name)
    return sorted(v for v in {low, low + 1, high - 1, high, -1, 0, 1, 2} if low <= v <= high)


@input_classes("values", CLASSES)
@pytest.mark.parametrize("op", UNARY + BINARY)
@given(data=st.data())
def test_elementwise_operations_on_special_values(xp, op, values, data):
    """NaN, +-inf, +-0.0, subnormals, huge values and halves: the result NumPy gives (IEEE 754
    and C99's special cases), rounded as the oracle demands. Each class of values is covered
    on purpose: the first operand draws from it; a second draws from it or from every class."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    size = data.draw(st.sampled_from(SIZES), label="size")
    operands = [data.draw(arrays(dtype, (size,), elements=class_elements(dtype, values)), label="x0")]
    if ops.get(op).arity == 2:
        either = st.one_of(class_elements(dtype, values), any_elements(dtype))
        operands.append(data.draw(arrays(dtype, (size,), elements=either), label="x1"))
    xp.check(op, *operands)


def order_free_values(name: str, op: str) -> list[float]:
    """The special values whose sum (or product) no order of the terms can change: no
    huge values (huge + huge - huge overflows or not, by order), and for products none
    below the normal range either (tiny * tiny * huge underflows or not)."""
    info = dtypes.finfo(name)
    leave_out = {float(info.max), -float(info.max), float(info.max) / 2}
    if op == "prod":
        leave_out |= {v for v in special_values(name) if 0 < abs(v) <= float(info.smallest_normal)}
    return [v for v in special_values(name) if v not in leave_out]


@pytest.mark.parametrize("op", REDUCTIONS)
@given(data=st.data())
def test_reductions_on_special_values(xp, op, data):
    """NaN propagates through sum, prod, max and min; inf - inf and 0 * inf are NaN;
    subnormals add up. (Overflow and underflow part-way depend on the order of the
    terms, which no framework promises: those values are left out.)"""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    shape = data.draw(st.sampled_from([(4,), (2, 2)]), label="shape")
    special = st.sampled_from(order_free_values(dtype, op))
    x = data.draw(arrays(dtype, shape, elements=st.one_of(special, special, special, moderate_elements(dtype))), label="x")
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    xp.check(op, x, axis=axis)


ROUNDED = ops.names("add", "subtract", "multiply", "true_divide", "sqrt")
GRID = 1024  # operands per dtype of the rounding table and of the accuracy survey (half each way)


def ordinary_operands(name: str, arity: int, seed: int = 1) -> list[np.ndarray]:
    """The same operands every run (seeded): magnitudes spread over 1e-3..1e3, either sign,
    rounded to ``name``; nearly every sum, product and quotient of them is inexact."""
    rng = np.random.default_rng(seed)
    return [(rng.choice([-1.0, 1.0], GRID) * np.exp(rng.uniform(np.log(1e-3), np.log(1e3), GRID)))
            .astype(dtypes.to_numpy(name)) for _ in range(arity)]


@pytest.mark.parametrize("op", ROUNDED)
def test_arithmetic_rounds_to_nearest(xp, op):
    """IEEE 754 rounds add, subtract, multiply, divide and sqrt to nearest (ties to even):
    on a fixed table of ordinary operands in every float dtype, each result must be the
    reference's bits (a kernel that truncates, or a fast path one ULP off, shows at once)."""
    for dtype in FLOATS:
        operands = ordinary_operands(dtype, ops.get(op).arity)
        xp.check(op, *([np.abs(operands[0])] if op == "sqrt" else operands))


@pytest.mark.parametrize("op", ops.names("add", "multiply", "negative", "abs", "floor_divide", "remainder"))
@given(data=st.data())
def test_integer_arithmetic_wraps_at_the_limits(xp, op, data):
    """Integers at their limits wrap around (two's complement), as NumPy's arrays do:
    int8 127 + 1 is -128, abs(-128) is -128, -128 // -1 is -128. Divisors are never 0
    (that is surveyed below)."""
    dtype = data.draw(dtype_names(dtypes.INTEGER), label="dtype")
    size = data.draw(st.sampled_from(SIZES), label="size")
    values = st.sampled_from(integer_limits(dtype))
    operands = [data.draw(arrays(dtype, (size,), elements=values), label="x0")]
    if ops.get(op).arity == 2:
        nonzero = values.filter(bool) if op in ("floor_divide", "remainder") else values
        operands.append(data.draw(arrays(dtype, (size,), elements=nonzero), label="x1"))
    xp.check(op, *operands)


DIVIDENDS = {"int8": [7, -7, 0], "int32": [7, -7, 0], "int64": [7, -7, 0], "uint8": [7, 0]}
DIVISION_BY_ZERO = {
    f"{op}({dtype} {values} by 0)": (op, np.array(values, dtype=dtype), np.zeros(len(values), dtype=dtype))
    for op in ("floor_divide", "remainder") for dtype, values in DIVIDENDS.items()
}


def test_integer_division_by_zero_survey(xp):
    """Survey, not judgement: NumPy gives 0 (with a RuntimeWarning); C leaves it undefined,
    and each framework picks its own answer or raises."""
    for row, (op, x, y) in DIVISION_BY_ZERO.items():
        xp.observe("integer division by zero", row, xp.outcome_of(op, x, y))


# -- accuracy (a survey) ---------------------------------------------------------

ACCURACY = ops.names("exp", "log", "sin", "cos", "tanh", "power")


def accuracy_inputs(op: str, name: str) -> tuple[np.ndarray, ...]:
    """The same inputs every run (seeded): half moderate values, half spread over the
    binades the function takes (where its result stays finite), rounded to ``name``."""
    rng = np.random.default_rng(0)
    info = dtypes.finfo(name)
    half = GRID // 2

    def spread(low, high):  # log-uniform magnitudes
        return np.exp(rng.uniform(np.log(low), np.log(high), half))

    sign = rng.choice([-1.0, 1.0], half)
    if op == "log":
        x = np.concatenate([rng.uniform(0.1, 10, half), spread(float(info.smallest_normal), float(info.max) / 2)])
    elif op == "exp":
        limit = 0.99 * np.log(float(info.max))
        x = np.concatenate([rng.uniform(-limit, limit, half), sign * spread(1e-6, limit)])
    elif op == "power":
        x = spread(1e-2, 1e2).repeat(2)
        return x.astype(dtypes.to_numpy(name)), rng.uniform(-4, 4, GRID).astype(dtypes.to_numpy(name))
    else:  # sin, cos, tanh: argument reduction over a wide range
        x = np.concatenate([rng.uniform(-10, 10, half), sign * spread(1e-6, min(1e4, float(info.max)))])
    return (x.astype(dtypes.to_numpy(name)),)


@pytest.mark.parametrize("op", ACCURACY)
def test_accuracy_survey(xp, op):
    """Survey, not judgement (the specs above judge against the bounds): each backend's worst
    error on a fixed grid of inputs, in ULPs of a reference computed in wider precision and
    rounded once, and the input that reached it; NumPy has a column like every backend."""
    for dtype in FLOATS:
        xp.observe("accuracy: worst error in ULPs", f"{op} {dtype}", xp.accuracy_of(op, *accuracy_inputs(op, dtype)))


ACCUMULATED = 4096  # float16 holds every integer up to 2048, bfloat16 up to 256: a running sum in them stalls there


def accumulation_cases() -> dict[str, tuple]:
    cases = {}
    for name in ("float16", "bfloat16"):
        ones = np.ones(ACCUMULATED, dtype=dtypes.to_numpy(name))
        cases[f"sum of {ACCUMULATED} {name} ones"] = ("sum", ones)
        cases[f"mean of {ACCUMULATED} {name} ones"] = ("mean", ones)
        cases[f"matmul of {name} ones (1, {ACCUMULATED}) @ ({ACCUMULATED}, 1)"] = (
            "matmul", ones.reshape(1, -1), ones.reshape(-1, 1))
    return cases


def test_accumulation_precision_survey(xp):
    """Survey: in which precision sum, mean and matmul accumulate float16 and bfloat16. A sum of
    4096 ones is 4096 when the running sum is kept in float32 (and rounded once), 2048 (float16)
    or 256 (bfloat16) when it is kept in the narrow type."""
    for row, (op, *args) in accumulation_cases().items():
        xp.observe("accumulation precision of float16 and bfloat16", row, xp.outcome_of(op, *args))
