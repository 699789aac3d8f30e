"""The standard's elementwise functions: arithmetic, comparison, logical, bitwise, math and complex
functions, and the selections (where, clip) that broadcast like them."""

from __future__ import annotations

import numpy as np

from compat.core.operation import PUBLISHED_ULPS, SMOOTH_MARGIN, Op, X, Y, everywhere, f32, i32


def _arithmetic(name, about, smooth=None, exact=False, standard=""):
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
    )


def _math(name, about, smooth=None, exact=False):
    return Op(
        name,
        "(x)",
        "math",
        about,
        elementwise=True,
        correctly_rounded=exact,
        smooth=smooth,
        ulps=PUBLISHED_ULPS.get(name),
        example=(f32(0.5, 1.5, 2.25, 3.0),),
    )


def _binary(name, group, about):
    operands = (X, Y) if group == "comparison" else (i32(0, 1, 6, 3), i32(1, 1, 5, 0))
    return Op(name, "(x1, x2)", group, about, elementwise=True, correctly_rounded=True, example=operands)


TABLE: tuple[Op, ...] = (
    _arithmetic("add", "x1 + x2", everywhere, exact=True),
    _arithmetic("subtract", "x1 - x2", everywhere, exact=True),
    _arithmetic("multiply", "x1 * x2", everywhere, exact=True),
    _arithmetic(
        "true_divide", "x1 / x2", lambda a, b: np.all(np.abs(b) > 0.25), exact=True, standard="divide"
    ),
    _arithmetic("floor_divide", "x1 // x2"),
    _arithmetic("remainder", "x1 % x2, with the sign of x2"),
    _arithmetic(
        "maximum", "elementwise maximum (NaN wins)", lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN), True
    ),
    _arithmetic(
        "minimum", "elementwise minimum (NaN wins)", lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN), True
    ),
    _arithmetic("power", "x1 ** x2", lambda a, b: np.all(a > 0.2) and np.all(np.abs(b) < 3), standard="pow"),
    *(
        _binary(name, "comparison", f"x1 {symbol} x2")
        for name, symbol in (
            ("equal", "=="),
            ("not_equal", "!="),
            ("less", "<"),
            ("less_equal", "<="),
            ("greater", ">"),
            ("greater_equal", ">="),
        )
    ),
    *(_binary(f"logical_{name}", "logical", f"truth of x1 {name} x2") for name in ("and", "or", "xor")),
    *(_binary(f"bitwise_{name}", "bitwise", f"bits of x1 {name} x2") for name in ("and", "or", "xor")),
    # the gradient programs draw their unary operations in this order: the first is the simplest
    _math("tanh", "hyperbolic tangent", everywhere),
    _math("sin", "sine", everywhere),
    _math("cos", "cosine", everywhere),
    _math("square", "x * x", everywhere, exact=True),
    _math("negative", "-x", everywhere, exact=True),
    _math("exp", "e ** x", lambda a: np.all(a < 4)),
    _math("log", "natural logarithm", lambda a: np.all(a > 0.1)),
    _math("sqrt", "square root", lambda a: np.all(a > 0.1), exact=True),
    _math("abs", "|x|", lambda a: np.all(np.abs(a) > SMOOTH_MARGIN), exact=True),
    _math("sign", "-1, 0 or 1 (NaN for NaN)", exact=True),
    _math("floor", "largest integer <= x", exact=True),
    _math("round", "nearest integer, halves to even", exact=True),
    Op(
        "logical_not",
        "(x)",
        "logical",
        "truth of not x",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([True, False]),),
    ),
    Op(
        "real",
        "(x)",
        "complex",
        "real part",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([1 + 2j, -3j], np.complex64),),
    ),
    Op(
        "conj",
        "(x)",
        "complex",
        "complex conjugate",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([1 + 2j, -3j], np.complex64),),
    ),
    Op(
        "where",
        "(condition, x1, x2)",
        "selection",
        "x1 where condition, else x2",
        elementwise=True,
        correctly_rounded=True,
        example=(np.array([True, False, True, False]), X, Y),
    ),
    Op(
        "clip",
        "(x, lo, hi)",
        "selection",
        "x limited to [lo, hi]",
        elementwise=True,
        correctly_rounded=True,
        example=(X, f32(-1.0), f32(2.0)),
    ),
)
