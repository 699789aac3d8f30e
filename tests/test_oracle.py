"""compat.judge.oracle: compare() and compare_values() on hand-built Outcomes.

Expectations come from NumPy (np.nextafter, np.finfo) and first principles,
never from the oracle itself.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from compat.core import dtypes
from compat.core.outcome import Outcome
from compat.judge.oracle import Exactness, bound, compare, compare_values


def ok(values, dtype=None) -> Outcome:
    array = np.asarray(values, dtype=dtype)
    return Outcome(values=array, dtype=array.dtype.name, shape=tuple(array.shape), device="cpu:0")


def raised(error: BaseException, category: str) -> Outcome:
    return Outcome(error=error, error_category=category)


def ulps_away(value, dtype, n: int):
    """``value`` moved ``n`` representable ``dtype`` numbers towards +inf (NumPy's nextafter)."""
    x = np.asarray(value, dtype=dtype)
    for _ in range(n):
        x = np.nextafter(x, np.asarray(np.inf, dtype=dtype))
    return x


def only(mismatches, kind):
    assert [m.kind for m in mismatches] == [kind], mismatches
    return mismatches[0]


def number_after(label: str, text: str) -> float:
    match = re.search(label, text)
    assert match, f"{label!r} not in {text!r}"
    return float(match.group(1))


NUMBER = r"([-+0-9.eE]+|inf|nan)"


# -- dtype and shape -----------------------------------------------------------


def test_equal_outcomes_do_not_mismatch():
    assert compare(ok([1.5, -2.0], np.float32), ok([1.5, -2.0], np.float32)) == []
    assert compare(ok([1, 2], np.int8), ok([1, 2], np.int8)) == []


def test_dtype_mismatch_names_both_dtypes():
    expected = ok(np.array([2, 3], np.int8) + np.array([1, 2], np.uint8))  # NumPy: int16
    assert expected.dtype == "int16"
    actual = ok(expected.values.astype(np.int8))
    m = only(compare(expected, actual), "dtype")
    assert (m.expected, m.actual) == ("int16", "int8")
    assert "int16" in m.detail and "int8" in m.detail


def test_dtype_mismatch_also_compares_values():
    m = compare(ok([1.0, 2.5], np.float64), ok([1, 2], np.int64))
    assert [x.kind for x in m] == ["dtype", "value"]
    assert (m[0].expected, m[0].actual) == ("float64", "int64")


def test_shape_mismatch_is_reported_and_values_are_not_compared():
    mismatches = compare(ok([1.0, 2.0, 3.0]), ok([[9.0, 9.0, 9.0]]))
    m = only(mismatches, "shape")
    assert "(1, 3)" in m.detail and "(3,)" in m.detail


def test_shape_outcomes_without_values():
    assert compare(Outcome(shape=(2, 3)), Outcome(shape=(2, 3))) == []
    only(compare(Outcome(shape=(2, 3)), Outcome(shape=(3, 2))), "shape")


# -- integers and bools: exact -----------------------------------------------------


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_integers_one_off_is_a_value_mismatch(dtype):
    expected = np.array([1, 2, 3, 4], dtype=dtype)
    actual = expected.copy()
    actual[2] += 1
    m = only(compare(ok(expected), ok(actual)), "value")
    assert "(2,)" in m.detail
    assert "1 of 4" in m.detail
    assert compare_values(expected, expected.copy()) is None


@pytest.mark.parametrize("dtype, big", [("int64", 2**62), ("uint64", 2**64 - 2), ("int64", -(2**63) + 1)])
def test_large_integers_are_compared_exactly_not_through_float64(dtype, big):
    expected = np.array([big], dtype=dtype)
    actual = np.array([big + 1], dtype=dtype)
    assert float(expected[0]) == float(actual[0])  # indistinguishable as float64
    m = compare_values(expected, actual)
    assert m is not None and m.kind == "value"
    assert str(big) in m.detail and str(big + 1) in m.detail


def test_bools_are_exact():
    assert compare_values(np.array([True, False]), np.array([True, False])) is None
    m = compare_values(np.array([True, False]), np.array([True, True]))
    assert m is not None and "(1,)" in m.detail


# -- floats: 4 ULP -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("base", [1.0, 1.25, 1.75, 3.0, 1000.0, -7.5, 0.3])
def test_float_within_4_ulp_passes(dtype, base):
    expected = np.array([base, -base, 0.5], dtype=dtype)
    actual = expected.copy()
    actual[0] = ulps_away(expected[0], dtype, 4)
    actual[1] = ulps_away(expected[1], dtype, 3)
    assert actual[0] != expected[0]
    assert compare(ok(expected), ok(actual)) == []


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "base, n", [(1.0, 5), (2.0, 5), (1024.0, 5), (1.0, 12), (1.75, 9), (3.0, 9), (1000.0, 9)]
)
def test_float_beyond_4_ulp_fails_with_error_ulps_and_index(dtype, base, n):
    """5 ULP fails at powers of two (where one ULP is eps * |x|); 9 ULP fails anywhere
    (the documented tolerance 4 * eps * |x| never exceeds 8 ULP above 1)."""
    expected = np.array([[1.5, 1.25], [base, 1.0]], dtype=dtype)
    actual = expected.copy()
    actual[1, 0] = ulps_away(expected[1, 0], dtype, n)  # the first bad index in C order...
    actual[1, 1] = ulps_away(expected[1, 1], dtype, 2)  # ...and a tolerated one after it
    m = only(compare(ok(expected), ok(actual)), "value")
    abs_error = float(actual[1, 0]) - float(expected[1, 0])
    assert abs_error == pytest.approx(n * float(np.spacing(expected[1, 0])))
    assert number_after(r"max abs error " + NUMBER, m.detail) == pytest.approx(abs_error, rel=1e-2)
    assert number_after(NUMBER + r" ULP", m.detail) == pytest.approx(n, rel=1e-2)
    assert "(1, 0)" in m.detail
    assert "1 of 4" in m.detail
    assert (m.expected, m.actual) == ("finite", "finite")


def test_float16_beyond_4_ulp_fails():
    expected = np.array([1.0, 2.0], dtype=np.float16)
    actual = np.array([ulps_away(1.0, np.float16, 5), 2.0], dtype=np.float16)
    m = only(compare(ok(expected), ok(actual)), "value")
    assert number_after(NUMBER + r" ULP", m.detail) == pytest.approx(5, rel=1e-2)
    assert "(0,)" in m.detail


def test_first_offending_index_is_the_first_in_c_order():
    expected = np.ones((2, 3), dtype=np.float64)
    actual = expected.copy()
    actual[1, 0] = 2.0
    actual[0, 2] = 3.0
    m = compare_values(expected, actual)
    assert m is not None
    assert "(0, 2)" in m.detail and "2 of 6" in m.detail
    assert "3.0" in m.detail


def test_zero_dim_value_mismatch():
    m = compare_values(np.array(1.0), np.array(2.0))
    assert m is not None and m.kind == "value"
    assert "1.0" in m.detail and "2.0" in m.detail


def test_tolerance_is_that_of_the_less_precise_dtype():
    exact = np.array([1 / 3, 2 / 3, 10 / 3], dtype=np.float64)
    rounded = exact.astype(np.float32)  # float32's error, about 1e-8: far more than 4 float64 ULP
    assert np.abs(rounded.astype(np.float64) - exact).max() > 4 * np.finfo(np.float64).eps
    assert compare_values(exact, rounded) is None
    assert compare_values(exact, exact + 1e-6) is not None


def test_float_tolerance_is_relative_below_one_too():
    """ULPs of the expected value at any magnitude: 1e-10 for 3e-10 is wrong, not small;
    4 ULP of a tiny value pass; at zero the unit is the smallest subnormal."""
    expected = np.array([3e-10, 1e-30], dtype=np.float32)
    assert compare_values(expected, np.array([1e-10, 1e-30], dtype=np.float32)) is not None
    near = np.array([ulps_away(3e-10, np.float32, 4), ulps_away(1e-30, np.float32, 3)], dtype=np.float32)
    assert compare_values(expected, near) is None
    assert (
        compare_values(expected, np.array([ulps_away(3e-10, np.float32, 5), 1e-30], dtype=np.float32))
        is not None
    )
    zero = np.zeros(1, np.float32)
    smallest = np.array([np.finfo(np.float32).smallest_subnormal], np.float32)
    assert compare_values(zero, 4 * smallest) is None
    assert compare_values(zero, 5 * smallest) is not None
    assert compare_values(zero, np.array([1e-7], np.float32)) is not None


def test_correctly_rounded_operation_must_give_the_reference_bits():
    """add is correctly rounded (IEEE 754): one ULP off is a divergence, at any magnitude."""
    allowed = bound("add")
    expected = np.array([1.0, 3e-30, 0.0], dtype=np.float32)
    assert compare_values(expected, expected.copy(), allowed) is None
    for i in range(2):
        off = expected.copy()
        off[i] = ulps_away(expected[i], np.float32, 1)
        assert compare_values(expected, off, allowed) is not None


def test_correctly_rounded_in_two_dtypes_allows_half_an_ulp_of_each():
    """float64 reference, float32 result (a dtype divergence): the float32 value nearest
    to the float64 one passes, the next one does not."""
    allowed = bound("true_divide")
    expected = np.array([1 / 3, 2 / 3, 1e-20 / 3])
    nearest = expected.astype(np.float32)
    assert compare_values(expected, nearest, allowed) is None
    assert compare_values(expected, np.nextafter(nearest, np.float32(1)), allowed) is not None


@pytest.mark.parametrize("op", ["abs", "__abs__"])
def test_abs_is_exact_for_real_numbers_and_within_an_ulp_for_a_complex_modulus(op):
    """|x| of a real is exact; the modulus of a complex (hypot) is not correctly rounded by
    NumPy's own loop (|1.5+1j| = 1.8027756377319948, where libm's hypot and torch give the
    correctly rounded 1.8027756377319946): one ULP either way passes, two do not."""
    numpy_value, rounded = np.array(1.8027756377319948), np.array(1.8027756377319946)
    modulus = bound(op, (np.array(1.5 + 1j),))
    assert compare_values(numpy_value, rounded, modulus) is None
    assert compare_values(numpy_value, np.array(ulps_away(numpy_value, np.float64, 2)), modulus) is not None
    real = bound(op, (np.array(-1.5),))
    assert compare_values(np.array(1.5), np.array(ulps_away(np.array(1.5), np.float64, 1)), real) is not None


# published accuracy, from the sources compat.core.ops cites (NumPy's umath validation
# tolerances, glibc's libm-test-ulps, CUDA's tables), restated here
PUBLISHED = {
    ("tanh", "float32"): 2,
    ("tanh", "float64"): 2,
    ("exp", "float32"): 3,
    ("exp", "float64"): 1,
    ("log", "float32"): 4,
    ("sin", "float64"): 2,
    ("power", "float32"): 4,
}


@pytest.mark.parametrize(("op", "dtype"), sorted(PUBLISHED))
def test_a_function_is_held_to_its_published_accuracy_in_each_dtype(op, dtype):
    """Up to the published number of ULPs passes, one more is a divergence whose detail names
    the bound: tanh float32 3 ULP off fails although a flat 4-ULP bound accepted it."""
    allowed, n = bound(op), PUBLISHED[(op, dtype)]
    expected = np.array([0.75, 1.5, 0.007], dtype=dtype)
    within, beyond = expected.copy(), expected.copy()
    within[1], beyond[1] = ulps_away(expected[1], dtype, n), ulps_away(expected[1], dtype, n + 1)
    assert compare_values(expected, within, allowed) is None
    found = compare_values(expected, beyond, allowed)
    assert found is not None and f"{n} ULP" in found.detail, found


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_narrow_floats_are_held_to_one_ulp_computed_through_float32(dtype):
    """float16 and bfloat16 results are float32 results rounded once: one ULP passes (double
    rounding), two do not, for every function with a published accuracy."""
    numpy_dtype = dtypes.to_numpy(dtype)
    step = {"float16": 2.0**-11, "bfloat16": 2.0**-8}[dtype]  # the gap at 0.75: 10 and 7 fraction bits
    expected = np.array([0.75, 1.5], dtype=numpy_dtype)
    one, two = (np.array([0.75 + k * step, 1.5], dtype=numpy_dtype) for k in (1, 2))
    assert one[0] != expected[0] and (two[0] - one[0]) == (one[0] - expected[0])  # exactly representable
    for op in ("exp", "tanh", "power"):
        assert compare_values(expected, one, bound(op)) is None, op
        assert compare_values(expected, two, bound(op)) is not None, op


def test_operations_without_a_published_accuracy_keep_the_general_bound():
    """floor_divide's accuracy is published nowhere: 4 ULP pass, 5 do not."""
    expected = np.array([1.5], dtype=np.float32)
    assert compare_values(expected, ulps_away(expected, np.float32, 4), bound("floor_divide")) is None
    assert compare_values(expected, ulps_away(expected, np.float32, 5), bound("floor_divide")) is not None


def test_accumulation_bound_comes_from_the_terms_not_the_result():
    """A sum that cancels: its result is tiny, its rounding error is not; the bound is
    n * eps * sum(|terms|). A wrong result beyond that still fails."""
    x = np.array([1e4, 1.0, -1e4], dtype=np.float32)
    allowed = bound("sum", (x,), {})
    reordered = np.float32(np.float32(1e4) + np.float32(-1e4)) + np.float32(1.0)  # 1.0: exact here
    assert compare_values(np.array(1.0, np.float32), np.array(reordered), allowed) is None
    limit = 3 * np.finfo(np.float32).eps * 20001.0
    assert compare_values(np.array(1.0, np.float32), np.array(1.0 + 0.9 * limit, np.float32), allowed) is None
    assert (
        compare_values(np.array(1.0, np.float32), np.array(1.0 + 1.5 * limit, np.float32), allowed)
        is not None
    )


def test_accumulation_bound_follows_the_axis():
    """matmul: per result element, k * eps * (|A| @ |B|)."""
    a = np.array([[1.0, 1.0], [1e-3, 1e-3]], dtype=np.float32)
    allowed = bound("matmul", (a, np.eye(2, dtype=np.float32)), {})
    eps = np.finfo(np.float32).eps
    assert np.allclose(allowed.terms, 2 * np.abs(a))
    expected = a.copy()
    off = a.copy()
    off[1, 0] += np.float32(20 * eps * 1e-3)  # small next to row 0's bound, far beyond row 1's
    assert compare_values(expected, off, allowed) is not None


# -- special values ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_nan_matches_nan(dtype):
    values = np.array([np.nan, 1.0, -np.nan], dtype=dtype)
    assert compare(ok(values), ok(values.copy())) == []


def test_nan_does_not_match_a_number():
    m = compare_values(np.array([1.0, np.nan]), np.array([1.0, 2.0]))
    assert m is not None and (m.expected, m.actual) == ("nan", "finite")
    m = compare_values(np.array([2.0]), np.array([np.nan]))
    assert m is not None and (m.expected, m.actual) == ("finite", "nan")


def test_inf_sign_matters():
    assert compare_values(np.array([np.inf, -np.inf]), np.array([np.inf, -np.inf])) is None
    m = compare_values(np.array([np.inf]), np.array([-np.inf]))
    assert m is not None and (m.expected, m.actual) == ("+inf", "-inf")
    m = compare_values(np.array([-np.inf], np.float32), np.array([np.finfo(np.float32).min], np.float32))
    assert m is not None and (m.expected, m.actual) == ("-inf", "finite")
    m = compare_values(np.array([np.inf]), np.array([np.nan]))
    assert m is not None and (m.expected, m.actual) == ("+inf", "nan")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_negative_zero_against_positive_zero_bit_exact(dtype):
    """Signed zeros differ when compared bit for bit (exactness=Exactness.BITS), with the -0/+0 signature."""
    m = only(compare(ok([1.0, -0.0], dtype), ok([1.0, 0.0], dtype), exactness=Exactness.BITS), "value")
    assert (m.expected, m.actual) == ("-0", "+0")
    assert "(1,)" in m.detail
    m = only(compare(ok([0.0], dtype), ok([-0.0], dtype), exactness=Exactness.BITS), "value")
    assert (m.expected, m.actual) == ("+0", "-0")
    assert compare(ok([-0.0], dtype), ok([-0.0], dtype), exactness=Exactness.BITS) == []


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["negative", "add", "floor_divide", "remainder", "round", "copysign", "sin"])
def test_a_zeros_sign_is_judged_where_the_operation_fixes_it(op, dtype):
    """IEEE 754 and the standard fix the sign of every zero these return: -0.0 for +0.0 is a value
    divergence, signature -0 -> +0, "sign of zero" in its detail."""
    m = only(compare(ok([1.0, -0.0], dtype), ok([1.0, 0.0], dtype), bound(op)), "value")
    assert (m.expected, m.actual) == ("-0", "+0")
    assert "sign of zero" in m.detail and "(1,)" in m.detail
    assert compare(ok([-0.0], dtype), ok([-0.0], dtype), bound(op)) == []


@pytest.mark.parametrize(
    "op", ["sum", "mean", "matmul", "maximum", "minimum", "clip", "max", "sign", "unique_values"]
)
def test_a_zeros_sign_is_free_where_an_accumulation_or_the_standard_leaves_it(op):
    """A sum's zero takes its sign from the order of its terms; the standard leaves the order of -0
    and +0 open for maximum, minimum, clip, max and min, sign(-0) "is 0", and either zero may stand
    for both in unique_*: -0.0 equals 0.0 there (and without an operation's bound)."""
    assert compare(ok([1.0, -0.0]), ok([1.0, 0.0]), bound(op)) == []
    assert compare(ok([1.0, -0.0]), ok([1.0, 0.0])) == []


def test_a_complex_zeros_sign_is_judged_by_modulus():
    """Complex arithmetic's zero signs depend on the algorithm: judged as values, by modulus."""
    assert compare(ok([complex(-0.0, 0.0)]), ok([complex(0.0, -0.0)]), bound("multiply")) == []


def test_bit_exact_catches_one_ulp_and_accepts_identical_nans():
    values = np.array([1.0, np.nan, np.inf], dtype=np.float32)
    assert compare(ok(values), ok(values.copy()), exactness=Exactness.BITS) == []
    off = values.copy()
    off[0] = ulps_away(1.0, np.float32, 1)
    m = only(compare(ok(values), ok(off), exactness=Exactness.BITS), "value")
    assert "(0,)" in m.detail


# -- complex -------------------------------------------------------------------------


def test_complex_components_within_tolerance_pass():
    expected = np.array([1 + 1j, 1.5 - 1.25j], dtype=np.complex64)
    actual = expected.copy()
    actual[0] = complex(ulps_away(1.0, np.float32, 2), ulps_away(1.0, np.float32, 3))  # sqrt(13) ULP of |z|
    assert compare(ok(expected), ok(actual)) == []


def test_complex_is_compared_normwise():
    """Complex results are judged by the modulus of the difference against
    4 eps |expected| (the standard normwise bound): a small component may be
    off by many of its own ULPs when |z| is large, but not beyond the bound."""
    eps = np.finfo(np.float64).eps
    expected = np.array([1000 + 1j], dtype=np.complex128)
    within = np.array([1000 + (1 + 1000 * eps) * 1j], dtype=np.complex128)  # |diff| = 1000 eps < 4000 eps
    assert compare(ok(expected), ok(within)) == []
    beyond = np.array([1000 + (1 + 8000 * eps) * 1j], dtype=np.complex128)  # |diff| = 8000 eps > 4000 eps
    m = only(compare(ok(expected), ok(beyond)), "value")
    assert number_after(NUMBER + r" ULP", m.detail) == pytest.approx(
        8000 * eps / np.spacing(np.float64(1000.0)), rel=1e-2
    )
    real_off = np.array([1 + 10 * eps + 1j], dtype=np.complex128)  # |z| < 1: absolute bound 4 eps
    assert compare_values(np.array([1 + 1j]), real_off) is not None


def test_complex_special_components():
    values = np.array([complex(np.nan, 1.0), complex(np.inf, -0.0)])
    assert compare_values(values, values.copy()) is None
    m = compare_values(np.array([complex(1.0, np.inf)]), np.array([complex(1.0, -np.inf)]))
    assert m is not None and m.kind == "value" and m.expected != m.actual
    m = compare_values(np.array([complex(np.nan, 1.0)]), np.array([complex(1.0, 1.0)]))
    assert m is not None and m.kind == "value"


# -- error parity --------------------------------------------------------------------


def test_backend_raises_where_reference_does_not():
    m = only(compare(ok([1.0]), raised(ValueError("operands could not be broadcast"), "shape")), "error")
    assert (m.expected, m.actual) == ("ok", "shape")
    assert "ValueError" in m.detail


def test_reference_raises_where_backend_does_not():
    m = only(compare(raised(OverflowError("too big"), "overflow"), ok([1], np.int8)), "error")
    assert (m.expected, m.actual) == ("overflow", "ok")


def test_both_raise_in_the_same_category_agree():
    """Where the class is left open (an overflow: compat.core.errortypes has no class for it)."""
    assert (
        compare(raised(OverflowError("too big"), "overflow"), raised(RuntimeError("overflow"), "overflow"))
        == []
    )


def test_both_raise_in_different_categories():
    m = only(
        compare(raised(TypeError("ufunc"), "dtype"), raised(IndexError("out of range"), "index")), "error"
    )
    assert (m.expected, m.actual) == ("dtype", "index")


def test_empty_results_compare_equal_with_or_without_a_tolerance():
    """A gradient of a program with an empty result has an empty tolerance too (no maximum)."""
    empty = np.zeros((1, 0, 2), dtype=np.float32)
    assert compare_values(empty, empty.copy()) is None
    assert compare_values(empty, empty.copy(), tolerance=np.zeros((1, 0, 2))) is None
