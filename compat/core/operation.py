"""An operation and the facts compat knows about it (``Op``), and the helpers the table's
modules (``compat.core.table``) declare operations with: where an operation is smooth,
how many terms an accumulation adds and how large they are, published accuracy, and the
small arrays operations are shown and tested with."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SMOOTH_MARGIN = 0.05  # distance the gradient programs keep from kinks and ties


def everywhere(*_) -> bool:
    return True


def no_ties(value: np.ndarray, axis=None, *_) -> bool:
    """max is smooth where the largest element along the axis leads the next by the margin."""
    if value.size == 0 or (axis is not None and value.shape[axis] < 2) or (axis is None and value.size < 2):
        return value.size > 0
    ordered = np.sort(value.reshape(-1) if axis is None else np.moveaxis(value, axis, -1), axis=-1)
    return bool(np.all(ordered[..., -1] - ordered[..., -2] > SMOOTH_MARGIN))


# An accumulation's rounding error depends on the order of its terms, which no framework
# promises; whatever the order, it is at most (number of terms) * eps * (sum of |terms|)
# per result element (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
# ch. 3-4; relative to |result| for a product). Each function below gives that sum of
# magnitudes (or |product|) and the number of terms, from the operands as float64.


def count(x, axis) -> int:
    """How many terms go into each result element of a reduction over ``axis``."""
    return x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))


def summed(x, axis=None, keepdims=False, **_):
    return np.sum(np.abs(x), axis=axis, keepdims=keepdims), count(x, axis)


def averaged(x, axis=None, keepdims=False, **_):
    total, terms = summed(x, axis, keepdims)
    return total / max(terms, 1), terms


def multiplied(x, axis=None, keepdims=False, **_):
    return np.prod(np.abs(x), axis=axis, keepdims=keepdims), count(x, axis)


def running(x, axis=None, **_):
    magnitude = np.abs(x).reshape(-1) if axis is None else np.abs(x)
    return np.cumsum(magnitude, axis=0 if axis is None else axis), magnitude.shape[
        0 if axis is None else axis
    ]


def normed(x, **_):
    return np.linalg.norm(x), x.size


def matrix_product(x1, x2, **_):
    return np.matmul(np.abs(x1), np.abs(x2)), x1.shape[-1]


@dataclass(frozen=True)
class Op:
    name: str  # NumPy's name
    params: str  # the signature, as NumPy documents it
    group: str  # arithmetic, comparison, logical, bitwise, math, reduction, linalg, conversion, creation,
    #             shape, indexing, update, placement, autodiff, dtype (questions about dtypes)
    about: str = ""  # one line, for the table in ``python -m compat ops``
    numpy: str = ""  # NumPy's own spelling where it is not np.<name>
    elementwise: bool = False
    terms: Callable | None = None  # an accumulation: (sum of |terms| per result element, number of terms)
    correctly_rounded: bool = False  # IEEE 754 (or exactness) fixes every bit of a float result
    ulps: tuple[float, float] | None = None  # published accuracy (float32, float64): see PUBLISHED_ULPS
    accuracy: float | None = None  # ULPs a user declares for their own function (xp.check_function)
    index_arg: int | None = None  # the argument that is an index
    moves_to: int | None = None  # the argument that names the device the result belongs on
    subscript: bool = False  # Python's x[index] on the backend's array, not a function
    python: Callable | None = None  # the same Python for every backend (unless an adapter maps it)
    smooth: Callable | None = None  # for the gradient programs: where it is differentiable (float64 operands)
    hermitian: bool = False  # reads its matrix as Hermitian (one triangle): the gradient programs pass it one
    smooth_part: int | None = None  # of a tuple result, the part the gradient programs differentiate
    transform: bool = False  # an autodiff transform: its first argument is a function
    example: tuple = ()  # arguments to show and test it with (a transform's function is the test's)
    example_kwargs: tuple = ()  # (name, value) pairs
    standard: str = ""  # the 2025.12 standard's name where NumPy's differs ("pow" for power)
    # the standard's function whose parameters its calls take, where it is not its own: from_dlpack for
    # compat's imports of another backend's array onto a device or with copy= (compat.core.binding)
    signature: str = ""
    takes: str = (
        "any"  # the dtype category of its array arguments, in the standard's words (dtypes.CATEGORIES)
    )
    data_dependent: bool = False  # the result's shape depends on the values (nonzero, unique_*)
    unique: bool = True  # one right answer: an unstable argsort's, or an eigenvector's, is not
    # where a result is not unique: (args, kwargs, values) -> the values in the one form every right
    # answer has (an unstable argsort's ties in index order), which the judge compares on both sides
    canonical: Callable | None = None
    # where a result is not unique and has no canonical form (a factorization): the properties every right
    # answer has, which compat.judge.factorizations checks instead of comparing values with NumPy's
    satisfies: tuple[str, ...] = ()
    spelling: str = ""  # an operator's Python syntax, its operands {0}, {1}, ...: "{0} + {1}", "{0} += {1}"
    computes: str = ""  # an operator: the function of the table it computes (power for x ** y, x **= y)

    @property
    def in_place(self) -> bool:
        """An operator that is a statement (x += y, x[i] += v): it changes its first operand."""
        if not self.spelling:
            return False
        return isinstance(ast.parse(self.spelling.format(*["x"] * 4)).body[0], ast.AugAssign)

    static: tuple[int, ...] = ()  # positional parameters that are sizes or counts (arange's bounds, eye's
    #                               n_rows): a compiled call keeps them constant, as users write them
    specified_values: bool = True  # the standard fixes the result's values (empty's it does not: judged
    #                                by dtype, shape and device only)
    # the sign of a zero result is open: the standard leaves the order of -0 and +0 to the library
    # (maximum, minimum, max, min, clip, compat's relu), says "the result is 0" (sign), or keeps
    # either zero as the distinct value (unique_*)
    zero_sign_free: bool = False
    # values that show what the operation does (compat.core.facts): "distinct" (it moves or selects
    # elements: pairwise-distinct ones show where each went), "ties" (it promises an order among equal
    # elements), "imaginary" (it conjugates or takes a part: nonzero imaginary parts), "negative" (it
    # rounds a quotient or a value: negative operands); every spec that draws operands for the
    # operation draws them so (compat.core.strategies.arrays(..., op=))
    values: tuple[str, ...] = ()

    @property
    def accumulates(self) -> bool:
        """A sum (or product) of terms: its rounding depends on their order."""
        return self.terms is not None

    @property
    def zero_sign_fixed(self) -> bool:
        """-0.0 and +0.0 differ in a real float result: IEEE 754, the standard's special cases
        and copies fix the sign of every zero, except where an accumulation's order decides it."""
        return not (self.accumulates or self.zero_sign_free)

    @property
    def standard_name(self) -> str:
        return self.standard or self.name

    @property
    def arity(self) -> int:
        return len(
            [p for p in self.params.strip("()").split(",") if p.strip() and "=" not in p and "*" not in p]
        )


def f32(*values, shape=None) -> np.ndarray:
    array = np.array(values, dtype=np.float32)
    return array if shape is None else array.reshape(shape)


def i32(*values) -> np.ndarray:
    return np.array(values, dtype=np.int32)


# Published accuracy of the functions that are not correctly rounded, in ULPs of the result
# (float32, float64): the largest of what NumPy's own accuracy tests allow its SIMD
# implementations (numpy/_core/tests/data/umath-validation-set-<function>.csv, the ulperror
# column), glibc's known maximum errors on x86_64 (the GNU C Library manual, "Known Maximum
# Errors in Math Functions") and NVIDIA's (CUDA Programming Guide, "Floating-Point
# Computation", Tables 48-51: maximum ULP error, default build, no range or condition
# given for any function here). A backend beyond all three is less
# accurate than any of the libraries its users compare it with. float16 and bfloat16 results
# are computed in float32 and rounded once by every backend here: at most NARROW_ULPS.
# Sources: https://github.com/numpy/numpy/tree/main/numpy/_core/tests/data,
# https://www.gnu.org/software/libc/manual/html_node/Errors-in-Math-Functions.html (generated from
# glibc's sysdeps/x86_64/fpu/libm-test-ulps, where a function not listed for a type has 0: glibc 2.41's
# correctly rounded float functions),
# https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/mathematical-functions.html (section
# 5.5.7; the older CUDA C++ Programming Guide's appendix, #mathematical-functions-appendix, gave wider
# figures for some, e.g. powf 8) ("-": that library publishes no number for the function).
PUBLISHED_ULPS = {  # function: (float32, float64), each the maximum of (NumPy, glibc, CUDA)
    "exp": (3, 1),  # NumPy 3 / 1, glibc 1 / 1, CUDA 2 / 1
    "log": (4, 1),  # NumPy 4 / 1, glibc 1 / 1, CUDA 1 / 1
    "sin": (2, 2),  # NumPy 2 / 1, glibc 1 / 1, CUDA 2 / 2
    "cos": (2, 2),  # NumPy 2 / 1, glibc 1 / 1, CUDA 2 / 2
    "tanh": (2, 2),  # NumPy 2 / 2, glibc 2 / 2, CUDA 2 / 1
    "power": (4, 2),  # NumPy: libm's pow; glibc 1 / 1, CUDA 4 / 2 (unconditional)
    "acos": (3, 2),  # NumPy 3 / 1, glibc 1 / 1, CUDA 2 / 2
    "acosh": (4, 3),  # NumPy 2 / 1, glibc 2 / 2, CUDA 4 / 3
    "asin": (4, 2),  # NumPy 4 / 1, glibc 1 / 1, CUDA 2 / 2
    "asinh": (3, 3),  # NumPy 2 / 1, glibc 2 / 2, CUDA 3 / 3
    "atan": (3, 2),  # NumPy 3 / 1, glibc 1 / 1, CUDA 2 / 2
    "atan2": (3, 2),  # NumPy - (libm's atan2), glibc 2 / 0, CUDA 3 / 2
    "atanh": (3, 2),  # NumPy 2 / 1, glibc 2 / 2, CUDA 3 / 2
    "cosh": (3, 2),  # NumPy 3 / 1, glibc 2 / 2, CUDA 2 / 1
    "sinh": (3, 2),  # NumPy 2 / 1, glibc 2 / 2, CUDA 3 / 2
    "tan": (4, 2),  # NumPy 4 / 1, glibc 0 / 0 (the manual's older table: 1 / 1), CUDA 4 / 2
    "expm1": (3, 1),  # NumPy 3 / 1, glibc 0 / 1, CUDA 1 / 1
    "log1p": (2, 1),  # NumPy 2 / 1, glibc 0 / 1, CUDA 1 / 1
    "log2": (3, 2),  # NumPy 3 / 1, glibc 1 / 2, CUDA 1 / 1
    "log10": (4, 2),  # NumPy 4 / 1, glibc 2 / 2, CUDA 2 / 1
    "hypot": (3, 2),  # NumPy - (libm's hypot), glibc 1 / 1, CUDA 3 / 2
    # logaddexp: no library publishes its accuracy (glibc and CUDA have no such function); NumPy
    # computes max(x1, x2) + log1p(exp(-|x1 - x2|)), whose error is relative to those two terms
    # and not to a result near 0 (7 ULP of it in NumPy itself): compat.core.table.elementwise
    # declares it a sum of two terms
}


def log_sum_terms(x1, x2, **_):
    """logaddexp's two terms: max(x1, x2) and log1p(exp(-|x1 - x2|)) (their magnitudes, and 2)."""
    return np.abs(np.maximum(x1, x2)) + np.log1p(np.exp(-np.abs(x1 - x2))), 2


NARROW_ULPS = 1  # float16, bfloat16: half an ULP from rounding once, up to one where rounding twice


X, Y = f32(1.5, -2.0, 3.0, 0.25), f32(2.0, 0.5, -1.0, 3.0)
MATRIX = f32(1, -2, 3, 0.5, 4, -1, shape=(2, 3))
