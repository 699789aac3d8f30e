"""How the checker judges float values: against a reference computed in wider
precision (NumPy's own float32 functions are not correctly rounded), and with
flush-to-zero recognised as such. Expectations come from NumPy in float64 and
from IEEE 754's definition of subnormals, not from the checker."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.adapters.numpy import NumpyAdapter
from compat.core.case import Case
from compat.harness.checker import Checker, Session
from compat.judge.accurate import accurate
from compat.results.registry import load

NUMPY = load_adapter("numpy")
SMALLEST_NORMAL = np.finfo(np.float32).tiny


def signatures(adapter, op, *args) -> list[tuple[str, str, str]]:
    """The (kind, expected, actual) of every divergence ``op(*args)`` shows on ``adapter``."""
    checker = Checker(adapter, "numerics", "spec", Session(NUMPY, load(None)))
    checker.check(op, *args)
    return sorted(
        {(m.kind, m.expected, m.actual) for found in checker.ledger.kept.values() for m in found.mismatches}
    )


def test_reference_of_a_math_function_is_computed_in_wider_precision():
    x = np.linspace(0.1, 100, 2000, dtype=np.float32)
    expected = NUMPY.call("sin", (x,))
    wider = accurate(NUMPY, Case("sin", (x,)), expected)
    assert wider.dtype == expected.dtype == "float32" and wider.shape == expected.shape
    assert np.array_equal(wider.values, np.sin(x.astype(np.float64)).astype(np.float32))


def test_correctly_rounded_operations_keep_numpys_result():
    x, y = np.float32([1 / 3, 2.5]), np.float32([3.0, 1e-3])
    expected = NUMPY.call("multiply", (x, y))
    assert accurate(NUMPY, Case("multiply", (x, y)), expected) is expected


class FlushesSubnormals(NumpyAdapter):
    """NumPy on a CPU in FTZ/DAZ mode: subnormal operands read as zero, subnormal results flushed."""

    name = "flushing_numpy"

    def call(self, op, args, kwargs=None, device=None):
        # a Python float beside a float32 array computes in float32 (NEP 50): DAZ reads it there too
        in_float32 = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
        args = tuple(
            float(flush(np.asarray(a, dtype=np.float32))) if in_float32 and type(a) is float else flush(a)
            for a in args
        )
        outcome = super().call(op, args, kwargs, device)
        return (
            outcome
            if outcome.values is None
            else type(outcome)(**{**vars(outcome), "values": flush(outcome.values)})
        )


class ZeroesTinyResults(NumpyAdapter):
    """A bug that looks like a flush but is not one: results below 1e-30 become zero."""

    name = "zeroing_numpy"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        tiny = np.abs(outcome.values) < 1e-30
        return type(outcome)(
            **{**vars(outcome), "values": np.where(tiny, 0, outcome.values).astype(outcome.values.dtype)}
        )


def flush(a):
    if not isinstance(a, np.ndarray) or a.dtype != np.float32:
        return a
    return np.where(np.abs(a) < SMALLEST_NORMAL, np.float32(0) * np.sign(a), a).astype(np.float32)


@pytest.mark.parametrize(
    "op, args",
    [
        ("multiply", (np.float32([1e-20, 2.0]), np.float32([1e-20, 3.0]))),  # a subnormal result
        ("add", (np.float32([1e-40, 1.0]), np.float32([0.0, 1.0]))),  # a subnormal operand
        ("log", (np.float32([1e-40]),)),  # DAZ: log(0) = -inf
        ("min", (np.float32([1e-40, 2.0]),)),  # a reduction
        ("equal", (np.float32([0.0]), 1e-40)),  # a Python float, subnormal in float32: DAZ reads it as zero
    ],
)
def test_flush_to_zero_has_its_own_signature(op, args):
    assert signatures(FlushesSubnormals(), op, *args) == [("value", "subnormal", "flushed")]


def test_a_tiny_normal_result_set_to_zero_is_not_a_flush():
    x = np.float32([1e-16, 1.0])  # 1e-32: a normal float32
    assert signatures(ZeroesTinyResults(), "multiply", x, x) == [("value", "finite", "+0")]


class FlushesAndDividesByInfinityIntoNan(FlushesSubnormals):
    """Flushes, and has a second, unrelated bug: a finite x / inf is NaN instead of a zero."""

    name = "flushing_numpy_with_a_bug"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "true_divide" or outcome.values is None:
            return outcome
        wrong = np.where(np.isinf(args[1]), np.nan, outcome.values).astype(outcome.values.dtype)
        return type(outcome)(**{**vars(outcome), "values": wrong})


def test_a_difference_beyond_the_flushed_elements_keeps_its_own_signature():
    """Element 0 differs only because it is flushed, element 1 for another reason: the divergence
    is the other reason's (judged alone), not flush-to-zero's, and not the flushed element's."""
    x, y = np.float32([1e-40, 1.0, 3.0]), np.float32([1.0, -np.inf, 1.0])
    assert signatures(FlushesAndDividesByInfinityIntoNan(), "true_divide", x, y) == [("value", "-0", "nan")]
    assert signatures(FlushesAndDividesByInfinityIntoNan(), "true_divide", x[::2], y[::2]) == [
        ("value", "subnormal", "flushed")
    ]


def test_flushing_reads_subnormal_components_as_zero_and_keeps_the_rest():
    from compat.core import dtypes

    tiny = np.finfo(np.float32).smallest_subnormal
    values = np.array([complex(np.inf, tiny), complex(-tiny, np.nan), complex(1.0, -2.0)], np.complex64)
    flushed = dtypes.flushed(values)
    assert np.isposinf(flushed[0].real) and flushed[0].imag == 0
    assert flushed[1].real == 0 and np.signbit(flushed[1].real) and np.isnan(flushed[1].imag)
    assert flushed[2] == values[2]
    assert dtypes.flushed(np.float64([1e-310, 1e-300]), like="float32").tolist() == [
        0.0,
        0.0,
    ]  # subnormal in float32


class HalfPrecisionMatmulPolicy(NumpyAdapter):
    """NumPy with a mixed-precision policy of its own: under it, matmul computes in float16."""

    name = "numpy_with_a_policy"
    POLICIES = {"matmul in float16": "matmul's operands and result in float16"}
    active = False

    def policy(self, name):
        if name not in self.POLICIES:
            return super().policy(name)

        @contextlib.contextmanager
        def switched():
            self.active = True
            try:
                yield
            finally:
                self.active = False

        return switched()

    def call(self, op, args, kwargs=None, device=None):
        if self.active and op == "matmul":
            args = tuple(np.asarray(a, dtype=np.float16) for a in args)
        return super().call(op, args, kwargs, device)


def test_a_policy_cell_names_the_dtype_and_the_distance_from_full_precision():
    checker = Checker(HalfPrecisionMatmulPolicy(), "numerics", "spec", Session(NUMPY, load(None)))
    a = np.float32([[1 / 3, 2.0], [0.1, 7.0]])
    low = checker.survey.under_policy("matmul in float16", "matmul", a, a)
    dtype, distance = low.split(", ")
    expected = np.max(
        np.abs((a.astype(np.float16) @ a.astype(np.float16)).astype(np.float64) - a @ a)
    ) / np.max(np.abs(a @ a))
    assert dtype == "float16" and float(distance.split()[0]) == pytest.approx(expected, rel=0.05), low
    assert (
        checker.survey.under_policy("matmul in float16", "add", a, a) == "float32, the full-precision result"
    )
    assert checker.survey.under_policy("no such policy", "add", a, a).startswith(
        "policy unavailable: UnsupportedOperation"
    )


def test_a_bits_cell_shows_a_nan_payload_as_ieee_754_negation_leaves_it():
    """negative flips the sign bit only: 0x7fc01234 -> 0xffc01234 (IEEE 754-2019 5.5.1)."""
    checker = Checker(NUMPY, "numerics", "spec", Session(NUMPY, load(None)))
    nan = np.array([0x7FC01234], np.uint32).view(np.float32)
    assert checker.survey.bits_of("negative", nan) == "float32 0xffc01234"
    assert (
        checker.survey.bits_of("astype", nan, dtype="float64") == "float64 0x7ff8024680000000"
    )  # payload shifted by 29 bits
