"""The reference's bfloat16 is NumPy's float16 rule (NEP 50) with ml_dtypes' arithmetic
(compat.adapters.numpy_ops), checked against values computed here independently: float32
arithmetic in NumPy, rounded to bfloat16 by bit manipulation (round to nearest, ties to even),
never through compat's code or ml_dtypes' bfloat16 operations."""

from __future__ import annotations

import numpy as np
import pytest

from compat.adapters.numpy import NumpyAdapter
from compat.core import dtypes, ops
from compat.core.case import Case
from compat.core.source import Exported
from compat.harness.reproducer import reproducer
from tests.helpers import output, run

BFLOAT16 = dtypes.bfloat16()
pytestmark = pytest.mark.skipif(BFLOAT16 is None, reason="bfloat16 needs ml_dtypes")
NUMPY = NumpyAdapter()


def bits(value) -> int:
    """The 16 bits of the bfloat16 nearest to a float32 (ties to even); NaN stays NaN."""
    word = int(np.float32(value).view(np.uint32))
    if np.isnan(np.float32(value)):
        return (word >> 16) | 0x40
    return (word + 0x7FFF + ((word >> 16) & 1)) >> 16


def from_bits(word: int) -> float:
    return float(np.uint32(word << 16).view(np.float32))


def rounded(value) -> float:
    """A float32 rounded once to bfloat16, as a Python float."""
    return from_bits(bits(value))


def scalar(value) -> np.float32:
    """A Python scalar converted to bfloat16 as ml_dtypes converts it (through float32),
    returned as the float32 that holds it exactly."""
    return np.float32(rounded(np.float32(float(value))))


def bf16(*values) -> np.ndarray:
    words = [bits(np.float32(v)) for v in values]
    assert all(from_bits(w) == v for w, v in zip(words, values)), "test operands must be bfloat16 values"
    return np.array(words, dtype=np.uint16).view(BFLOAT16)


def words_of(outcome) -> list[int]:
    return np.asarray(outcome.values).reshape(-1).view(np.uint16).tolist()


FLOAT32 = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "true_divide": np.true_divide,
    "maximum": np.maximum,
    "remainder": np.remainder,
}
SCALARS = [1.5, 0.1, 2**-9, -3.0e-3, 1e10, 3, -7, 2**40 + 1, True, 255.875]


@pytest.mark.parametrize("op", FLOAT32)
@pytest.mark.parametrize("value", SCALARS, ids=repr)
@pytest.mark.parametrize("array_first", [True, False], ids=["array-first", "scalar-first"])
@pytest.mark.parametrize("shape", [(3,), ()], ids=["1-d", "0-d"])
def test_bfloat16_with_python_scalar_is_bfloat16_of_the_scalar_converted_first(op, value, array_first, shape):
    """bfloat16 array (any rank) op Python bool/int/float: bfloat16, with the value of the
    float32 result of (array, scalar converted to bfloat16), rounded once to bfloat16."""
    x = bf16(1.0, -2.5, 2**-5)[: 3 if shape else 1].reshape(shape)
    args = (x, value) if array_first else (value, x)
    outcome = NUMPY.call(op, args)
    assert not outcome.raised, outcome.describe()
    assert outcome.dtype == "bfloat16", outcome.describe()
    with np.errstate(all="ignore"):
        wide = FLOAT32[op](
            *(x.astype(np.float32), scalar(value)) if array_first else (scalar(value), x.astype(np.float32))
        )
    expected = [bits(v) for v in np.asarray(wide, np.float32).reshape(-1)]
    assert words_of(outcome) == expected, f"{outcome.describe()}: expected {[from_bits(w) for w in expected]}"


def test_a_float_that_float32_keeps_is_rounded_to_bfloat16_before_the_operation():
    """1 + 2**-9: float32 holds it, bfloat16 does not (its step at 1 is 2**-7): 1.0."""
    outcome = NUMPY.call("add", (bf16(1.0, 1.0), 2**-9))
    assert outcome.dtype == "bfloat16" and outcome.values.astype(np.float64).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("op", ["add", "less", "where"])
def test_python_int_beyond_bfloat16_float_and_int64_ranges_behaves_as_with_float16(op):
    """As NumPy does for float16: an int beyond int64 but inside bfloat16's range is just a
    number (float16: beyond its range, inf); beyond bfloat16's, inf; beyond a float's,
    OverflowError (float16 too). ml_dtypes by itself raises TypeError for all of them."""

    def call(x, value):
        return NUMPY.call(op, (np.ones(2, dtype=bool), x, value) if op == "where" else (x, value))

    x = bf16(1.0, -1.0)
    for value in (2**70, -(2**100), 2**128, 10**400):
        with np.errstate(over="ignore"):
            half = call(np.ones(2, np.float16), value)
        outcome = call(x, value)
        if value == 10**400:
            assert half.raised and outcome.raised and type(outcome.error) is type(half.error) is OverflowError
            continue
        assert not outcome.raised, outcome.describe()
        assert outcome.dtype == (
            "bool" if op == "less" else "bfloat16"
        ) and half.dtype == outcome.dtype.replace("bfloat16", "float16")
        if op == "add":
            with np.errstate(over="ignore"):  # 2**128 is beyond float32: inf
                converted = np.float32(rounded(np.float32(float(value))))
            assert (converted == np.inf) == (value == 2**128)
            expected = [rounded(converted + np.float32(1)), rounded(converted + np.float32(-1))]
            assert outcome.values.astype(np.float64).tolist() == expected


@pytest.mark.parametrize("value", [1j, 0.1 + 2.5j, -1e10 + 0j])
def test_bfloat16_with_python_complex_is_complex64(value):
    """float16 + 1j is complex64 in NumPy; so is bfloat16 + 1j, with complex64 arithmetic."""
    x = bf16(1.0, -2.5)
    outcome = NUMPY.call("add", (x, value))
    assert outcome.dtype == "complex64"
    expected = x.astype(np.float32).astype(np.complex64) + np.complex64(value)
    assert outcome.values.tolist() == expected.tolist()


@pytest.mark.parametrize("op", ["matmul", "__matmul__", "__imatmul__"])
def test_matmul_of_bfloat16_is_bfloat16_rounded_once_from_float32(op):
    """matmul(a, b), a @ b and a @= b alike."""
    a = bf16(1.0, 2**-8 + 2**-9, 3.0, 0.5).reshape(2, 2)
    b = bf16(1.0, 1.0, 1.0, 0.25).reshape(2, 2)
    outcome = NUMPY.call(op, (a, b))
    assert outcome.dtype == "bfloat16"
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    wide = [fa[i, 0] * fb[0, j] + fa[i, 1] * fb[1, j] for i in range(2) for j in range(2)]  # exact in float32
    assert words_of(outcome) == [bits(v) for v in wide]
    assert outcome.values.astype(np.float64)[0, 0] == 1.0078125  # 1.005859375, rounded up once


IN_PLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ipow__"]


@pytest.mark.parametrize("op", IN_PLACE)
@pytest.mark.parametrize("y", [2**-9, np.asarray(3 * 2**-9, np.float32)], ids=["python-float", "0-d-float32"])
def test_in_place_on_bfloat16_writes_bfloat16_rounded_once(op, y):
    """x op= y keeps x's bfloat16: the result (bfloat16 beside a Python float, float32 beside a
    float32 array) rounded once."""
    x = bf16(1.0, 0.5)
    outcome = NUMPY.call(op, (x, y))
    assert outcome.dtype == "bfloat16", outcome.describe()
    operand = scalar(y) if isinstance(y, float) else y
    with np.errstate(all="ignore"):
        wide = np.asarray(ops.get(op.replace("__i", "__")).python(x.astype(np.float32), operand), np.float32)
    assert words_of(outcome) == [bits(v) for v in wide.reshape(-1)], outcome.describe()


@pytest.mark.parametrize(
    "op, y",
    [(op, y) for op in IN_PLACE for y in (2j, np.asarray(2j, np.complex64))]
    + [("__imatmul__", np.full((2, 2), 2j, np.complex64))],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
def test_in_place_with_a_complex_result_raises_on_bfloat16_as_on_float16(op, y):
    """x += 2j: NumPy refuses to write a complex result into float16 (same_kind casting);
    ml_dtypes counts complex to bfloat16 as same_kind and would write the real part."""
    half = NUMPY.call(op, (np.ones((2, 2), np.float16), y))
    outcome = NUMPY.call(op, (bf16(1.0, -2.5, 0.5, 3.0).reshape(2, 2), y))
    assert half.raised and outcome.raised, f"float16: {half.describe()}; bfloat16: {outcome.describe()}"
    assert type(outcome.error) is type(half.error)
    assert str(outcome.error) == str(half.error).replace("dtype('float16')", "dtype(bfloat16)")


@pytest.mark.parametrize(
    "op, values, expected",
    [
        ("sum", [1.0] * 4096, 4096.0),  # bfloat16 at every step stops at 256
        ("mean", [1.0] * 4096 + [3.0] * 4096, 2.0),
        ("prod", [1.5] * 10, rounded(np.float32(1.5) ** 10)),  # 57.665..., exact in float32
    ],
)
def test_reductions_of_bfloat16_accumulate_in_float32_and_round_once(op, values, expected):
    outcome = NUMPY.call(op, (bf16(*values),))
    assert outcome.dtype == "bfloat16" and float(outcome.values) == expected, outcome.describe()


def test_reductions_into_bfloat16_accumulate_in_float32():
    """sum(int8 array, dtype=bfloat16), as the checker asks for the backend's dtype."""
    outcome = NUMPY.call("sum", (np.ones(1000, np.int8),), {"dtype": "bfloat16"})
    assert outcome.dtype == "bfloat16" and float(outcome.values) == rounded(np.float32(1000))


def test_norm_of_bfloat16_is_bfloat16():
    outcome = NUMPY.call("norm", (bf16(3.0, 4.0, 0.0),))
    assert outcome.dtype == "bfloat16" and float(outcome.values) == 5.0


def test_clip_of_bfloat16_is_bfloat16():
    outcome = NUMPY.call("clip", (bf16(-3.0, 0.5, 7.0), -1.5, bf16(2.0)[0:1].reshape(())))
    assert outcome.dtype == "bfloat16" and outcome.values.astype(np.float64).tolist() == [-1.5, 0.5, 2.0]


def test_update_of_bfloat16_with_a_huge_python_int_as_float16():
    outcome = NUMPY.call("set_at", (bf16(1.0, 2.0), np.array([0]), 2**70))
    assert outcome.dtype == "bfloat16" and outcome.values.astype(np.float64).tolist() == [2.0**70, 2.0]


# -- bfloat16 and float16 agree in the kind of result, operation by operation ----------


def swapped(value, dtype):
    """The table's float32 example operands in another float dtype."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(dtype)
    return value


def kind(outcome) -> str:
    if outcome.raised:
        return f"raises {type(outcome.error).__name__}"
    if outcome.parts is not None:
        return "parts " + ",".join(kind(p) for p in outcome.parts)
    return str(outcome.dtype).replace("bfloat16", "<half>").replace("float16", "<half>")


def variants(op: ops.Op):
    """The table's example, and for elementwise operations of two or three operands each
    float operand beside another array replaced by Python scalars of every kind (an int beyond int64, one beyond
    a float's range), and by 0-d arrays of the dtypes bfloat16 promotes with; not the target of an in-place
    form (x op= y writes into the array x: a Python scalar x is rebound, a 0-d one cannot hold the result)."""
    yield "example", op.example
    if not op.elementwise or op.arity < 2:
        return
    floats = [i for i, a in enumerate(op.example) if isinstance(a, np.ndarray) and a.dtype == np.float32]
    # np.clip turns a Python scalar x into an int64 array first; x op= y keeps x's array and dtype
    first = 1 if op.name == "clip" or op.in_place else 0
    for i in [i for i in floats if i >= first]:
        if not any(isinstance(a, np.ndarray) for j, a in enumerate(op.example) if j != i):
            continue  # a Python scalar in place of the only array: Python computes it (2 ** 10**400)
        for value in (True, 3, -2.5, 1e10, 2j, 2**70, 10**400):
            yield f"operand {i} = {value!r:.12}", op.example[:i] + (value,) + op.example[i + 1 :]
        for dtype in ("bool", "int8", "uint8", "float32", "float64", "complex64"):
            zero_dim = np.asarray(op.example[i]).reshape(-1)[:1].reshape(()).astype(dtype)
            yield f"operand {i} 0-d {dtype}", op.example[:i] + (zero_dim,) + op.example[i + 1 :]


KINDS = [
    (op, label, args)
    for op in ops.TABLE
    # an array another backend exports (interchange) is judged against its own values, not
    # against NumPy's import of it (compat.harness.references.NumPy): NumPy's adapter is no reference there
    if op.example and not op.transform and not any(isinstance(a, Exported) for a in op.example)
    for label, args in variants(op)
]


@pytest.mark.parametrize("op, label, args", KINDS, ids=[f"{op.name}-{label}" for op, label, _ in KINDS])
def test_bfloat16_and_float16_give_the_same_kind_of_result(op, label, args):
    kwargs = dict(op.example_kwargs)
    if op.moves_to is not None:
        args = args[: op.moves_to] + (NUMPY.reference_device,) + args[op.moves_to + 1 :]
    half = NUMPY.call(op.name, tuple(swapped(a, np.float16) for a in args), kwargs)
    brain = NUMPY.call(op.name, tuple(swapped(a, BFLOAT16) for a in args), kwargs)
    assert kind(brain) == kind(half), f"float16: {half.describe()}; bfloat16: {brain.describe()}"


# -- reproducers --------------------------------------------------------------------------


def test_a_reproducer_of_bfloat16_with_a_python_float_prints_bfloat16(tmp_path):
    """The reproducer runs the rule (it shows weak_scalars) and prints what the harness computed."""
    case = Case("add", (bf16(1.0, -2.5), 0.1))
    text = reproducer(case, NUMPY, NUMPY)
    assert "weak_scalars(x0, 0.1)" in text
    process = run(["-c", text], tmp_path)
    assert process.returncode == 0, output(process)
    first = process.stdout.splitlines()[0]
    expected = NUMPY.call("add", case.args)
    assert first == f"numpy {NUMPY.version()}: bfloat16 {expected.values.astype(np.float64).tolist()}", (
        output(process)
    )
    assert expected.values.astype(np.float64).tolist() == [
        rounded(1.0 + scalar(0.1)),
        rounded(-2.5 + scalar(0.1)),
    ]


def test_a_reproducer_without_bfloat16_calls_numpy_plainly():
    text = reproducer(Case("add", (np.array([1.0], np.float32), 0.1)), NUMPY, NUMPY)
    assert "show('numpy" in text and "np.add(x0, 0.1)" in text and "weak_scalars" not in text


def test_a_reproducer_of_an_in_place_operator_on_bfloat16_leaves_x0_to_the_next_side(tmp_path):
    """NumPy's x += y for bfloat16 is compat's function; it writes into a copy of x0, so the
    side printed next computes on the same x0."""
    text = reproducer(Case("__iadd__", (bf16(1.0, -2.5), 0.5)), NUMPY, NUMPY)
    process = run(["-c", text], tmp_path)
    assert process.returncode == 0, output(process)
    lines = process.stdout.splitlines()
    assert lines == [f"numpy {NUMPY.version()}: bfloat16 [1.5, -2.0]"] * 2, output(process)
