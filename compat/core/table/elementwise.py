"""The standard's elementwise functions: arithmetic, comparison, logical, bitwise, math and complex
functions, and the selections (where, clip) that broadcast like them.

``takes`` is the dtype category the standard's stubs name for the arguments ("x: Should have a
real-valued floating-point data type", src/array_api_stubs/_2025_12/elementwise_functions.py):
the specs draw dtypes (and pairs of them) from it."""

from __future__ import annotations

import numpy as np

from compat.core.operation import (
    PUBLISHED_ULPS,
    SMOOTH_MARGIN,
    Op,
    X,
    Y,
    everywhere,
    f32,
    i32,
    log_sum_terms,
)


def _arithmetic(name, about, smooth=None, exact=False, standard="", takes="numeric", **facts):
    return Op(
        name,
        "(x1, x2)",
        "arithmetic",
        about,
        elementwise=True,
        correctly_rounded=exact,
        smooth=smooth,
        ulps=PUBLISHED_ULPS.get(name),
        example=(X, Y),
        standard=standard,
        takes=takes,
        **facts,
    )


def _math(name, about, smooth=None, exact=False, takes="floating-point", example=None, **facts):
    return Op(
        name,
        "(x)",
        "math",
        about,
        elementwise=True,
        correctly_rounded=exact,
        smooth=smooth,
        ulps=PUBLISHED_ULPS.get(name),
        example=example or (f32(0.5, 1.5, 2.25, 3.0),),
        takes=takes,
        **facts,
    )


def _math2(name, about, smooth=None, exact=False, standard="", terms=None):
    """A function of two real floats (atan2, hypot, ...)."""
    return Op(
        name,
        "(x1, x2)",
        "math",
        about,
        elementwise=True,
        correctly_rounded=exact,
        smooth=smooth,
        ulps=PUBLISHED_ULPS.get(name),
        terms=terms,
        example=(X, Y),
        standard=standard,
        takes="real-valued floating-point",
    )


def _binary(name, group, about, takes):
    operands = (X, Y) if group == "comparison" else (i32(0, 1, 6, 3), i32(1, 1, 5, 0))
    return Op(
        name,
        "(x1, x2)",
        group,
        about,
        elementwise=True,
        correctly_rounded=True,
        example=operands,
        takes=takes,
    )


def _shift(name, about):
    return Op(
        name,
        "(x1, x2)",
        "bitwise",
        about,
        elementwise=True,
        correctly_rounded=True,
        example=(i32(1, 2, -8, 5), i32(0, 1, 2, 3)),
        takes="integer",
    )


def _within(bound):
    """Smooth where every |x| < bound (asin, atanh: away from the ends of their domain)."""
    return lambda a: np.all(np.abs(a) < bound)


def _away_from_origin(a, b):
    """hypot is smooth away from (0, 0)."""
    return np.all(np.hypot(a, b) > 0.25)


def _off_the_branch_cut(a, b):
    """atan2(x1, x2) is smooth away from (0, 0) and from its jump across the negative x2 axis."""
    return _away_from_origin(a, b) and np.all((b > 0) | (np.abs(a) > SMOOTH_MARGIN))


NEAR_ONE = f32(-0.5, 0.25, 0.75, 0.0)  # inside the domain of asin, acos, atanh


TABLE: tuple[Op, ...] = (
    _arithmetic("add", "x1 + x2", everywhere, exact=True),
    _arithmetic("subtract", "x1 - x2", everywhere, exact=True),
    _arithmetic("multiply", "x1 * x2", everywhere, exact=True),
    _arithmetic(
        "true_divide", "x1 / x2", lambda a, b: np.all(np.abs(b) > 0.25), exact=True, standard="divide"
    ),
    _arithmetic("floor_divide", "x1 // x2", takes="real-valued", values=("negative",)),
    _arithmetic("remainder", "x1 % x2, with the sign of x2", takes="real-valued", values=("negative",)),
    _arithmetic(
        "maximum",
        "elementwise maximum (NaN wins)",
        lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN),
        True,
        takes="real-valued",
        zero_sign_free=True,
    ),
    _arithmetic(
        "minimum",
        "elementwise minimum (NaN wins)",
        lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN),
        True,
        takes="real-valued",
        zero_sign_free=True,
    ),
    _arithmetic("power", "x1 ** x2", lambda a, b: np.all(a > 0.2) and np.all(np.abs(b) < 3), standard="pow"),
    *(
        _binary(name, "comparison", f"x1 {symbol} x2", takes)
        for name, symbol, takes in (
            ("equal", "==", "any"),
            ("not_equal", "!=", "any"),
            ("less", "<", "real-valued"),
            ("less_equal", "<=", "real-valued"),
            ("greater", ">", "real-valued"),
            ("greater_equal", ">=", "real-valued"),
        )
    ),
    *(
        _binary(f"logical_{name}", "logical", f"truth of x1 {name} x2", "boolean")
        for name in ("and", "or", "xor")
    ),
    *(
        _binary(f"bitwise_{name}", "bitwise", f"bits of x1 {name} x2", "integer or boolean")
        for name in ("and", "or", "xor")
    ),
    _shift("bitwise_left_shift", "x1 << x2"),
    _shift("bitwise_right_shift", "x1 >> x2 (arithmetic: the sign bit fills in)"),
    # the gradient programs draw their unary operations in this order: the first is the simplest
    _math("tanh", "hyperbolic tangent", everywhere),
    _math("sin", "sine", everywhere),
    _math("cos", "cosine", everywhere),
    _math("square", "x * x", everywhere, exact=True, takes="numeric"),
    _math("negative", "-x", everywhere, exact=True, takes="numeric"),
    _math("exp", "e ** x", lambda a: np.all(a < 4)),
    _math("log", "natural logarithm", lambda a: np.all(a > 0.1)),
    _math("sqrt", "square root", lambda a: np.all(a > 0.1), exact=True),
    _math(
        "abs",
        "|x|",
        lambda a: np.all(np.abs(a) > SMOOTH_MARGIN),
        exact=True,
        takes="numeric",
        values=("imaginary",),
    ),
    # the standard: "If x_i is either -0 or +0, the result is 0" (of either sign)
    _math(
        "sign",
        "-1, 0 or 1 (NaN for NaN); x / |x| of a complex x",
        exact=True,
        takes="numeric",
        zero_sign_free=True,
        values=("imaginary",),
    ),
    _math("floor", "largest integer <= x", exact=True, takes="real-valued", values=("negative",)),
    _math("round", "nearest integer, halves to even", exact=True, takes="numeric", values=("negative",)),
    # the rest of the standard's functions of one float (after those above: the programs shrink to them)
    _math("positive", "+x", everywhere, exact=True, takes="numeric"),
    _math("reciprocal", "1 / x", lambda a: np.all(np.abs(a) > 0.25), exact=True),
    _math("atan", "inverse tangent", everywhere),
    _math("asinh", "inverse hyperbolic sine", everywhere),
    _math("sinh", "hyperbolic sine", _within(4)),
    _math("cosh", "hyperbolic cosine", _within(4)),
    _math("tan", "tangent", _within(1.3)),
    _math("expm1", "e ** x - 1, accurate near 0", lambda a: np.all(a < 4)),
    _math("log1p", "log(1 + x), accurate near 0", lambda a: np.all(a > -0.9)),
    _math("log2", "base-2 logarithm", lambda a: np.all(a > 0.1)),
    _math("log10", "base-10 logarithm", lambda a: np.all(a > 0.1)),
    _math("asin", "inverse sine", _within(0.95), example=(NEAR_ONE,)),
    _math("acos", "inverse cosine", _within(0.95), example=(NEAR_ONE,)),
    _math("atanh", "inverse hyperbolic tangent", _within(0.95), example=(NEAR_ONE,)),
    _math(
        "acosh", "inverse hyperbolic cosine", lambda a: np.all(a > 1.1), example=(f32(1.0, 1.5, 2.25, 3.0),)
    ),
    _math("ceil", "smallest integer >= x", exact=True, takes="real-valued", values=("negative",)),
    _math("trunc", "integer part (towards zero)", exact=True, takes="real-valued", values=("negative",)),
    *(
        _math(name, about, exact=True, takes=takes, example=(f32(1.5, np.nan, -np.inf, -0.0),))
        for name, about, takes in (
            ("isnan", "whether x is NaN", "numeric"),
            ("isinf", "whether x is +-infinity", "numeric"),
            ("isfinite", "whether x is neither NaN nor infinite", "numeric"),
            ("signbit", "whether x's sign bit is set (-0.0 too)", "real-valued floating-point"),
        )
    ),
    _math2("atan2", "inverse tangent of x1 / x2, in the quadrant of (x2, x1)", _off_the_branch_cut),
    _math2("hypot", "sqrt(x1 ** 2 + x2 ** 2) without overflow", _away_from_origin),
    _math2(
        "logaddexp", "log(exp(x1) + exp(x2)) without overflow", everywhere, terms=log_sum_terms
    ),  # judged as the sum of its two terms (compat.core.operation.log_sum_terms)
    _math2(
        "copysign",
        "|x1| with the sign bit of x2",
        lambda a, b: np.all(np.abs(a) > SMOOTH_MARGIN) and np.all(np.abs(b) > SMOOTH_MARGIN),
        exact=True,
    ),
    _math2("nextafter", "the next float after x1 towards x2", exact=True),
    Op(
        "bitwise_invert",
        "(x)",
        "bitwise",
        "bits of not x",
        elementwise=True,
        correctly_rounded=True,
        example=(i32(0, 1, -6, 3),),
        takes="integer or boolean",
    ),
    Op(
        "logical_not",
        "(x)",
        "logical",
        "truth of not x",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([True, False]),),
        takes="boolean",
    ),
    Op(
        "real",
        "(x)",
        "complex",
        "real part",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([1 + 2j, -3j], np.complex64),),
        values=("imaginary",),
        takes="numeric",
    ),
    Op(
        "imag",
        "(x)",
        "complex",
        "imaginary part",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([1 + 2j, -3j], np.complex64),),
        values=("imaginary",),
        takes="complex floating-point",
    ),
    Op(
        "conj",
        "(x)",
        "complex",
        "complex conjugate",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([1 + 2j, -3j], np.complex64),),
        values=("imaginary",),
        takes="numeric",
    ),
    Op(
        "where",
        "(condition, x1, x2)",
        "selection",
        "x1 where condition, else x2",
        elementwise=True,
        correctly_rounded=True,
        values=("distinct",),
        example=(np.array([True, False, True, False]), X, Y),
    ),
    Op(
        "clip",
        "(x, min, max)",
        "selection",
        "x limited to [min, max] (either bound None: no bound)",
        elementwise=True,
        correctly_rounded=True,
        example=(X, f32(-1.0), f32(2.0)),
        takes="real-valued",
        zero_sign_free=True,  # max(min(x, hi), lo) of -0 and +0: the standard leaves it open
    ),
)
