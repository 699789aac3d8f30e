"""Numerics: special values, integer limits and rounding, judged in ULPs.

The other families draw moderate values on purpose (promotion specs are about dtypes, not overflow). These
specs feed each operation the values where frameworks really differ: NaN, infinities, signed zeros,
subnormals, the largest finite values, halves (rounding), and integers at their limits. The oracle judges
them by the operation's bound (compat.judge.oracle): correctly rounded operations to the bit, the others
within a few ULPs of a reference computed in wider precision. A backend whose CPU flushes subnormals to
zero shows that under its own signature (``subnormal`` -> ``flushed``). Where NumPy itself leaves the
result open (integer division by zero gives 0 with a warning, a float converted to an int it does not
fit), the backends are surveyed instead of judged. Conversions (``astype``) run on fixed tables
(compat.specs._conversions makes the float ones' cases), one array per case, so that each pair of
dtypes costs one call (and JAX one compilation) per case.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compat.core import dtypes, ops
from compat.core.strategies import (
    arrays,
    dtype_names,
    dtype_range,
    input_classes,
    moderate_elements,
    operation_params,
)
from compat.specs._conversions import exactly, narrowing_cases, widening_case

FLOATS = dtypes.REAL_FLOAT
# every elementwise function of the standard taking real floats (clip, of three arrays, aside)
FUNCTIONS = [op for op in ops.elementwise_functions() if ops.get(op).arity in (1, 2)]
FUNCTIONS = [op for op in FUNCTIONS if set(FLOATS) & set(dtypes.CATEGORIES[ops.get(op).takes])]
# through every class of special values at full size: one of each kind beyond the six operations
# the placement family feeds them to (float32/float64 only there)
SAMPLE = ["exp", "log", "sqrt", "sin", "tanh", "sign", "floor", "round", "add", "multiply", "true_divide"]
SAMPLE = ops.names(*SAMPLE, "floor_divide", "remainder", "power", "maximum", "minimum", "less", "equal")
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


def check_special_values(xp, op: str, values: str, data) -> None:
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    size = data.draw(st.sampled_from(SIZES), label="size")
    operands = [data.draw(arrays(dtype, (size,), elements=class_elements(dtype, values), op=op), label="x0")]
    if ops.get(op).arity == 2:
        either = st.one_of(class_elements(dtype, values), any_elements(dtype))
        operands.append(data.draw(arrays(dtype, (size,), elements=either, op=op), label="x1"))
    xp.check(op, *operands)


@input_classes("values", CLASSES)
@pytest.mark.parametrize("op", SAMPLE)
@given(data=st.data())
def test_elementwise_operations_on_special_values(xp, op, values, data):
    """NaN, +-inf, +-0.0, subnormals, huge values and halves: the result NumPy gives (IEEE 754
    and C99's special cases), rounded as the oracle demands. Each class of values is covered
    on purpose: the first operand draws from it; a second draws from it or from every class."""
    check_special_values(xp, op, values, data)


@pytest.mark.parametrize("op", operation_params([f for f in FUNCTIONS if f not in SAMPLE], ()))
@given(data=st.data())
def test_every_function_on_special_values(xp, op, data):
    """The same for every other elementwise function of real floats (atan2, expm1, isnan, signbit,
    nextafter, ...), with a share of the examples, each drawing its class of values."""
    check_special_values(xp, op, data.draw(st.sampled_from(CLASSES), label="values"), data)


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
    x = data.draw(
        arrays(dtype, shape, elements=st.one_of(special, special, special, moderate_elements(dtype))),
        label="x",
    )
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    xp.check(op, x, axis=axis)


# every correctly rounded function of real floats with a float result: IEEE 754 (or exactness) fixes each bit
ROUNDED = [op for op in FUNCTIONS if ops.get(op).correctly_rounded and ops.float_result(op)]
GRID = 1024  # operands per dtype of the rounding table and of the accuracy survey (half each way)


def ordinary_operands(name: str, arity: int, seed: int = 1) -> list[np.ndarray]:
    """The same operands every run (seeded): magnitudes spread over 1e-3..1e3, either sign,
    rounded to ``name``; nearly every sum, product and quotient of them is inexact."""
    rng = np.random.default_rng(seed)
    return [
        (rng.choice([-1.0, 1.0], GRID) * np.exp(rng.uniform(np.log(1e-3), np.log(1e3), GRID))).astype(
            dtypes.to_numpy(name)
        )
        for _ in range(arity)
    ]


def in_domain(op: str, operands: list[np.ndarray]) -> list[np.ndarray]:
    """Each operand of a function of one float where NumPy's result is NaN by its magnitude (sqrt)."""
    if len(operands) != 1:
        return operands
    with np.errstate(all="ignore"):
        outside = np.isnan(np.asarray(getattr(np, op)(operands[0].astype(np.float64)), dtype=np.float64))
    return [np.where(outside, np.abs(operands[0]), operands[0])]


@pytest.mark.parametrize("op", ROUNDED)
def test_arithmetic_rounds_to_nearest(xp, op):
    """IEEE 754 rounds add, subtract, multiply, divide, sqrt, reciprocal ... to nearest (ties to even),
    exact functions (copysign, nextafter, ceil ...) have one answer: on a fixed table of ordinary operands
    in every float dtype each result must be the reference's bits (a kernel that truncates shows)."""
    for dtype in xp.sample(FLOATS, least=1):  # a mode or device row: one dtype, the seed's
        xp.check(op, *in_domain(op, ordinary_operands(dtype, ops.get(op).arity)))


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
    for op in ("floor_divide", "remainder")
    for dtype, values in DIVIDENDS.items()
}


def test_integer_division_by_zero_survey(xp):
    """Survey, not judgement: NumPy gives 0 (with a RuntimeWarning); C leaves it undefined,
    and each framework picks its own answer or raises."""
    for row, (op, x, y) in DIVISION_BY_ZERO.items():
        xp.observe("integer division by zero", row, xp.survey.outcome_of(op, x, y))


# -- accuracy (a survey) ---------------------------------------------------------

# every function whose accuracy math libraries publish (compat.core.ops.PUBLISHED_ULPS); not the
# operator forms, which share power's fact (x ** y is the operators family's, NumPy has no np.__pow__)
ACCURACY = [op.name for op in ops.TABLE if op.ulps is not None and op.group != "operator"]


def finite_inputs(op: str, name: str) -> tuple[np.ndarray, ...]:
    """The same inputs every run (seeded) for a function of one or two floats: a quarter in
    (-1, 1), a quarter in (-10, 10), half spread over every binade either way, each element (or
    pair) kept where NumPy's result in ``name`` is finite (the function's domain), rounded to it."""
    rng = np.random.default_rng(0)
    info = dtypes.finfo(name)
    wanted, arity = GRID, ops.get(op).arity
    numpy_dtype = dtypes.to_numpy(name)

    def pool(size):
        magnitudes = np.exp(rng.uniform(np.log(float(info.smallest_normal)), np.log(float(info.max)), size))
        values = np.concatenate(
            [
                rng.uniform(-1, 1, size),
                rng.uniform(-10, 10, size),
                rng.choice([-1.0, 1.0], 2 * size) * np.resize(magnitudes, 2 * size),
            ]
        )
        return rng.permutation(values).astype(numpy_dtype)

    operands = [pool(2 * GRID) for _ in range(arity)]
    with np.errstate(all="ignore"):
        result = np.asarray(getattr(np, op)(*(o.astype(np.float64) for o in operands))).astype(numpy_dtype)
    kept = np.isfinite(result.astype(np.float64))
    return tuple(o[kept][:wanted] for o in operands)


def accuracy_inputs(op: str, name: str) -> tuple[np.ndarray, ...]:
    """The same inputs every run (seeded): half moderate values, half spread over the
    binades the function takes (where its result stays finite), rounded to ``name``."""
    if op not in ("exp", "log", "sin", "cos", "tanh", "power"):  # grids of their own (below)
        return finite_inputs(op, name)
    rng = np.random.default_rng(0)
    info = dtypes.finfo(name)
    half = GRID // 2

    def spread(low, high):  # log-uniform magnitudes
        return np.exp(rng.uniform(np.log(low), np.log(high), half))

    sign = rng.choice([-1.0, 1.0], half)
    if op == "log":
        x = np.concatenate(
            [rng.uniform(0.1, 10, half), spread(float(info.smallest_normal), float(info.max) / 2)]
        )
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
    """Each backend's worst error on a fixed grid of inputs, in ULPs of a reference computed in
    wider precision and rounded once, and the input that reached it (a survey table; NumPy has
    a column like every backend). Judged where it exceeds the function's published accuracy
    (compat.core.ops.PUBLISHED_ULPS): the worst input is then a divergence of its own."""
    for dtype in xp.sample(FLOATS, least=1):  # a mode or device row: one dtype, the seed's
        xp.observe(
            "accuracy: worst error in ULPs",
            f"{op} {dtype}",
            xp.survey.accuracy_of(op, *accuracy_inputs(op, dtype)),
        )


ACCUMULATED = 4096  # float16 holds every integer up to 2048, bfloat16 up to 256: a running sum stalls there


def accumulation_cases() -> dict[str, tuple]:
    cases = {}
    for name in ("float16", "bfloat16"):
        ones = np.ones(ACCUMULATED, dtype=dtypes.to_numpy(name))
        cases[f"sum of {ACCUMULATED} {name} ones"] = ("sum", ones)
        cases[f"mean of {ACCUMULATED} {name} ones"] = ("mean", ones)
        cases[f"matmul of {name} ones (1, {ACCUMULATED}) @ ({ACCUMULATED}, 1)"] = (
            "matmul",
            ones.reshape(1, -1),
            ones.reshape(-1, 1),
        )
    return cases


def test_accumulation_precision_survey(xp):
    """Survey: in which precision sum, mean and matmul accumulate float16 and bfloat16. A sum of
    4096 ones is 4096 when the running sum is kept in float32 (and rounded once), 2048 (float16)
    or 256 (bfloat16) when it is kept in the narrow type."""
    for row, (op, *args) in accumulation_cases().items():
        xp.observe("accumulation precision of float16 and bfloat16", row, xp.survey.outcome_of(op, *args))


# -- NaN payloads (a survey) ------------------------------------------------------------

PAYLOAD = 0x7FC01234  # a quiet float32 NaN whose payload is 0x1234


def payload_cases() -> dict[str, tuple]:
    nan, one = np.array([PAYLOAD], np.uint32).view(np.float32), np.ones(1, np.float32)
    return {
        "negative(nan)": ("negative", nan),
        "abs(nan)": ("abs", nan),
        "sqrt(nan)": ("sqrt", nan),
        "add(nan, 1)": ("add", nan, one),
        "add(1, nan)": ("add", one, nan),
        "multiply(nan, 2)": ("multiply", nan, one + 1),
        "maximum(1, nan)": ("maximum", one, nan),
        "where(True, nan, 1)": ("where", np.array([True]), nan, one),
        "sum([nan])": ("sum", nan),
        "astype(nan, float64)": ("astype", nan, {"dtype": "float64"}),
    }


def test_nan_payload_survey(xp):
    """Survey: which operations carry a NaN's payload into their result (IEEE 754-2019 6.2.3: an
    operation with one NaN operand should give a NaN with its payload; negation and abs change
    the sign bit only), as the result's bits. The oracle ignores payloads of computed NaNs and
    checks them in copies, which must be bit for bit."""
    for row, (op, *args) in payload_cases().items():
        kwargs = args.pop() if isinstance(args[-1], dict) else {}
        xp.observe(
            f"NaN payloads: the result's bits for the float32 NaN {PAYLOAD:#x}",
            row,
            xp.survey.bits_of(op, *args, **kwargs),
        )


# -- mixed precision (a survey) ---------------------------------------------------------

POLICY_SIDE = 64  # float32 operands: a matmul of 64 x 64 accumulates 64 products per element


def policy_cases() -> dict[str, tuple]:
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((POLICY_SIDE, POLICY_SIDE)).astype(np.float32) for _ in range(2))
    return {
        f"matmul float32 {POLICY_SIDE}x{POLICY_SIDE}": ("matmul", a, b),
        "add float32": ("add", a, b),
        "exp float32": ("exp", a),
        "tanh float32": ("tanh", a),
        f"sum float32 ({a.size} terms)": ("sum", a),
        "mean float32": ("mean", a),
    }


@pytest.mark.compat_where(lambda row, backend: bool(backend.POLICIES), "no mixed-precision policy")
def test_mixed_precision_policy_survey(xp):
    """Survey: under each mixed-precision policy the backend offers (torch.autocast on the CPU,
    JAX's default_matmul_precision, Keras's global dtype policy), which operations run in which
    dtype, and how far their results move from the same backend's full-precision ones."""
    for row, (op, *args) in policy_cases().items():
        cells = [f"{policy}: {xp.survey.under_policy(policy, op, *args)}" for policy in xp.backend.POLICIES]
        xp.observe("mixed precision: result dtype, and distance from full precision", row, "; ".join(cells))


# -- conversions -------------------------------------------------------------------


FLOAT_CONVERSIONS = {
    **{
        label: case
        for source, target in [
            ("float64", "float32"),
            ("float64", "float16"),
            ("float64", "bfloat16"),
            ("float32", "float16"),
            ("float32", "bfloat16"),
        ]
        for label, case in narrowing_cases(source, target).items()
    },
    **{
        label: case
        for source, target in [("float16", "float32"), ("bfloat16", "float32"), ("float32", "float64")]
        for label, case in widening_case(source, target).items()
    },
}


def test_float_conversions_round_to_nearest_even(xp):
    """float64 -> float32/float16/bfloat16 and float32 -> float16/bfloat16 round to nearest,
    halves to even; beyond the largest float (from its tie with the next power of two on)
    they overflow to inf, below the normal range they give subnormals and zeros; NaN, +-inf
    and -0.0 stay what they are, bit for bit; widening is exact (subnormals too)."""
    for x, dtype, exact in xp.sample(FLOAT_CONVERSIONS.values()):
        (xp.check_exact if exact else xp.check)("astype", x, dtype=dtype)


INTEGER_CONVERSIONS = [
    ("int64", "int32"),
    ("int64", "int8"),
    ("int32", "int16"),
    ("int16", "int8"),
    ("int8", "uint8"),
    ("int32", "uint32"),
    ("int64", "uint64"),
    ("int8", "uint64"),
    ("uint8", "int8"),
    ("uint32", "int32"),
    ("uint64", "int64"),
    ("uint64", "uint8"),
    ("uint16", "int8"),
]


def wrapping_values(source: str, target: str) -> np.ndarray:
    """The source's limits, the target's limits and their neighbours outside, -1 and 0 (those the source holds)."""
    low, high = dtype_range(source)
    lowest, highest = dtype_range(target)
    values = sorted(
        v for v in {low, high, lowest - 1, lowest, highest, highest + 1, -1, 0} if low <= v <= high
    )
    return exactly(source, np.resize(np.array(values, dtype=object), 8))


def test_integer_conversions_wrap_around(xp):
    """int -> narrower int, int <-> unsigned: the value modulo 2**bits of the target, read in
    two's complement (NumPy's C casts): int16 128 -> int8 is -128, int8 -1 -> uint64 is 2**64 - 1."""
    for source, target in xp.sample(INTEGER_CONVERSIONS):
        xp.check("astype", wrapping_values(source, target), dtype=target)


TRUNCATIONS = [
    ("float64", "int64"),
    ("float64", "int32"),
    ("float64", "uint64"),
    ("float64", "uint8"),
    ("float32", "int32"),
    ("float32", "int8"),
    ("float32", "uint32"),
    ("float16", "int16"),
    ("float16", "uint8"),
    ("bfloat16", "int32"),
    ("bfloat16", "int8"),
]


def truncated_values(source: str, target: str) -> np.ndarray:
    """Floats whose integral part the target holds: its extremes (the largest float below
    2**bits, a power of two), fractions either side of zero, -0.0."""
    lowest, highest = dtype_range(target)
    largest = float(dtypes.finfo(source).max)
    top = min((highest + 1) * (1 - dtypes.eps(source) / 2), largest)  # the float just below highest + 1
    if lowest < 0:
        values = [top, max(lowest, -largest), 2.5, -2.5, 0.75, -0.75, -0.0, 1.0]
    else:
        values = [top, 0.0, 2.5, 0.75, -0.75, -0.0, 1.5, 0.25]
    return exactly(source, values)


def test_float_to_integer_truncates_toward_zero(xp):
    """float -> int within the int's range drops the fraction (toward zero): 2.5 is 2, -2.5 is
    -2, -0.75 is 0 (for unsigned too), the largest float below 2**31 is 2147483520 in int32."""
    for source, target in xp.sample(TRUNCATIONS):
        xp.check("astype", truncated_values(source, target), dtype=target)


def bool_cases() -> dict[str, tuple[np.ndarray, str]]:
    truth = exactly("bool", [True, False, True, True, False, True, False, False])
    cases = {
        f"bool -> {target}": (truth, target)
        for target in ("int8", "uint16", "float16", "bfloat16", "float64")
    }
    for source in ("float16", "bfloat16", "float32", "float64"):
        info = dtypes.finfo(source)
        values = [0.0, -0.0, np.nan, np.inf, -np.inf, float(info.smallest_subnormal), 0.5, -float(info.max)]
        cases[f"{source} -> bool"] = (exactly(source, values), "bool")
    for source in ("int8", "uint8", "int64", "uint64"):
        low, high = dtype_range(source)
        values = [v for v in (low, high, 0, 1, -1, 2**8, 2**32, 0) if low <= v <= high]
        cases[f"{source} -> bool"] = (exactly(source, np.resize(np.array(values, dtype=object), 8)), "bool")
    return cases


def test_bool_conversions(xp):
    """bool -> number is 1 or 0; number -> bool is whether it is not zero: NaN and the
    smallest subnormal are True, -0.0 is False, 2**32 in int64 is True (not its low 32 bits)."""
    for x, dtype in xp.sample(bool_cases().values()):
        xp.check("astype", x, dtype=dtype)


def out_of_range(target: str) -> dict[str, float]:
    """NaN, +-inf, the power of two just above ``target``'s range, and one below it (-1 for unsigned)."""
    low, high = dtype_range(target)
    bits = high.bit_length()
    below = {f"-2**{bits + 1}": -(2.0 ** (bits + 1))} if low < 0 else {"-1": -1.0}
    return {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, f"2**{bits}": 2.0**bits, **below}


OUT_OF_RANGE = {
    f"float32 {label} -> {target}": (np.array([value], np.float32), target)
    for target in ("int8", "int32", "int64", "uint8", "uint32", "uint64")
    for label, value in out_of_range(target).items()
}


def test_float_to_integer_out_of_range_survey(xp):
    """Survey, not judgement: C leaves float -> int undefined where the integral part does not
    fit (NaN, +-inf, beyond the range); NumPy gives what the CPU's conversion gives, with a
    RuntimeWarning, and each framework its own (saturation, 0 for NaN, wraparound)."""
    for row, (x, dtype) in xp.sample(OUT_OF_RANGE.items()):
        xp.observe(
            "float to integer conversion out of range", row, xp.survey.outcome_of("astype", x, dtype=dtype)
        )


# -- rounding by sign and size ------------------------------------------------------------
#
# The operations that round (Op.values "negative": floor_divide and remainder, floor, ceil, trunc,
# round) agree with their mistakes on positive moderate operands: toward zero is floor there, and a
# remainder computed as fmod has the dividend's sign, which is the divisor's. Each class their rules
# distinguish is drawn in turn: the signs of the two operands, and a dividend far larger than its
# divisor (x - floor(x / y) * y loses the remainder there, fmod does not); halves and non-integers
# below zero for the functions of one operand (round's ties go to even, floor and ceil away from or
# toward zero by sign).

ROUNDING = [
    op
    for op in ops.select(elementwise=True)
    if "negative" in ops.get(op).values and ops.get(op).group != "operator"
]
BINARY_ROUNDING = [op for op in ROUNDING if ops.get(op).arity == 2]
UNARY_ROUNDING = [op for op in ROUNDING if ops.get(op).arity == 1]
SIGN_CLASSES = {
    "x1 < 0 < x2": (-1, 1),
    "x2 < 0 < x1": (1, -1),
    "both negative": (-1, -1),
    "a large dividend": (0, 0),  # |x1| up to 2**60 (floats: 1e30) over a small x2 of either sign
}


@input_classes("signs", SIGN_CLASSES)
@given(data=st.data())
def test_rounding_rules_by_sign_and_size(xp, signs, data):
    """floor_divide and remainder round the quotient toward -infinity, so the remainder has the
    divisor's sign: for each class of signs and a dividend far larger than the divisor; floor, ceil,
    trunc and round of negative halves and non-integers (on every example)."""
    dtype = data.draw(st.sampled_from(("float32", "float64", "int32", "int64")), label="dtype")
    size = data.draw(st.integers(1, 4), label="size")
    sign1, sign2 = SIGN_CLASSES[signs]
    if signs == "a large dividend":
        big = 1e30 if dtype.startswith("float") else 2**60 if dtype == "int64" else 2**30
        x1 = np.array(
            data.draw(st.lists(st.integers(1, 1000), min_size=size, max_size=size), label="x1"),
            dtype=np.float64,
        )
        x1 = (x1 * big / 1000 * np.array(data.draw(st.sampled_from([1, -1]), label="x1 sign"))).astype(dtype)
        x2 = np.array(
            data.draw(st.lists(st.sampled_from([3, 7, -3, -7]), min_size=size, max_size=size), label="x2")
        )
    else:
        magnitudes = (
            st.integers(1, 40) if dtype.startswith("int") else st.integers(1, 80).map(lambda n: n / 4)
        )
        x1 = sign1 * np.array(data.draw(st.lists(magnitudes, min_size=size, max_size=size), label="x1"))
        x2 = sign2 * np.array(data.draw(st.lists(magnitudes, min_size=size, max_size=size), label="x2"))
    x1, x2 = x1.astype(dtype), x2.astype(dtype)
    for op in xp.sample(BINARY_ROUNDING, least=2):
        xp.check(op, x1, x2)
    if dtype.startswith("float"):
        halves = np.array([-2.5, -1.5, -0.5, -0.25, -3.75, 0.5, 1.5, 2.5], dtype=dtype)
        for op in xp.sample(UNARY_ROUNDING, least=2):
            xp.check(op, np.concatenate([halves, x1]))
