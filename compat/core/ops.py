"""The table of operations: one declaration per operation, and every fact about it
that compat uses.

The oracle asks whether an operation accumulates (its rounding depends on summation
order) or is correctly rounded, reproducers and records which argument is an index,
the checker which argument names the device a result belongs on, the gradient
programs where an operation is smooth, the specs which operations form a group
(every binary arithmetic operation, every unary math function), and adapters which
operations they must map. A new operation, or a new fact, is one edit here (SciPy's
``xp_capabilities`` is the model: one declaration drives tests and documentation;
``python -m compat ops`` prints the table with each backend's support).

Operations are named as in NumPy. An adapter calls ``<its namespace>.<name>``
unless it maps the operation to something else or declares it unsupported.
"""

from __future__ import annotations

import operator
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


def setitem(x, index, values):
    x[index] = values
    return x


@dataclass(frozen=True)
class Op:
    name: str  # NumPy's name
    params: str  # the signature, as NumPy documents it
    group: str  # arithmetic, comparison, logical, bitwise, math, reduction, linalg, conversion, creation,
    #             shape, indexing, update, placement, autodiff
    about: str = ""  # one line, for the table in ``python -m compat ops``
    numpy: str = ""  # NumPy's own spelling where it is not np.<name>
    elementwise: bool = False
    terms: Callable | None = None  # an accumulation: (sum of |terms| per result element, number of terms)
    correctly_rounded: bool = False  # IEEE 754 (or exactness) fixes every bit of a float result
    ulps: tuple[float, float] | None = None  # published accuracy (float32, float64): see PUBLISHED_ULPS
    index_arg: int | None = None  # the argument that is an index
    moves_to: int | None = None  # the argument that names the device the result belongs on
    subscript: bool = False  # Python's x[index] on the backend's array, not a function
    python: Callable | None = None  # the same Python for every backend (unless an adapter maps it)
    smooth: Callable | None = None  # for the gradient programs: where it is differentiable (float64 operands)
    transform: bool = False  # an autodiff transform: its first argument is a function
    example: tuple = ()  # arguments to show and test it with (a transform's function is the test's)
    example_kwargs: tuple = ()  # (name, value) pairs

    @property
    def accumulates(self) -> bool:
        """A sum (or product) of terms: its rounding depends on their order."""
        return self.terms is not None

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
# Errors in Math Functions") and NVIDIA's (CUDA C++ Programming Guide, "Mathematical
# Functions", maximum ULP error over the full range). A backend beyond all three is less
# accurate than any of the libraries its users compare it with. float16 and bfloat16 results
# are computed in float32 and rounded once by every backend here: at most NARROW_ULPS.
# Sources: https://github.com/numpy/numpy/tree/main/numpy/_core/tests/data,
# https://www.gnu.org/software/libc/manual/html_node/Errors-in-Math-Functions.html,
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/#mathematical-functions-appendix
PUBLISHED_ULPS = {  # function: (float32, float64), each the maximum of (NumPy, glibc, CUDA)
    "exp": (3, 1),  # NumPy 3 / 1, glibc 1 / 1, CUDA 2 / 1
    "log": (4, 1),  # NumPy 4 / 1, glibc 1 / 1, CUDA 1 / 1
    "sin": (2, 2),  # NumPy 2 / 1, glibc 1 / 1, CUDA 2 / 2
    "cos": (2, 2),  # NumPy 2 / 1, glibc 1 / 1, CUDA 2 / 2
    "tanh": (2, 2),  # NumPy 2 / 2, glibc 2 / 2, CUDA 2 / 1
    "power": (4, 2),  # NumPy: libm's pow; glibc 1 / 1, CUDA 4 / 2
}
NARROW_ULPS = 1  # float16, bfloat16: half an ULP from rounding once, up to one where rounding twice


X, Y = f32(1.5, -2.0, 3.0, 0.25), f32(2.0, 0.5, -1.0, 3.0)
MATRIX = f32(1, -2, 3, 0.5, 4, -1, shape=(2, 3))


def _arithmetic(name, about, smooth=None, exact=False):
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


def _reduction(name, about, **facts):
    return Op(
        name,
        "(x, axis=None, keepdims=False)",
        "reduction",
        about,
        example=(MATRIX,),
        example_kwargs=(("axis", 1), ("keepdims", True)),
        **facts,
    )


def _update(name, params, about, **facts):
    index = (i32(0, 2, 0),)
    return Op(
        name, params, "update", about, example=(f32(1, 2, 3, 4), index, f32(10, 20, 30)), index_arg=1, **facts
    )


TABLE: tuple[Op, ...] = (
    _arithmetic("add", "x1 + x2", everywhere, exact=True),
    _arithmetic("subtract", "x1 - x2", everywhere, exact=True),
    _arithmetic("multiply", "x1 * x2", everywhere, exact=True),
    _arithmetic("true_divide", "x1 / x2", lambda a, b: np.all(np.abs(b) > 0.25), exact=True),
    _arithmetic("floor_divide", "x1 // x2"),
    _arithmetic("remainder", "x1 % x2, with the sign of x2"),
    _arithmetic(
        "maximum", "elementwise maximum (NaN wins)", lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN), True
    ),
    _arithmetic(
        "minimum", "elementwise minimum (NaN wins)", lambda a, b: np.all(np.abs(a - b) > SMOOTH_MARGIN), True
    ),
    _arithmetic("power", "x1 ** x2", lambda a, b: np.all(a > 0.2) and np.all(np.abs(b) < 3)),
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
        "relu",
        "(x)",
        "placement",
        "max(x, 0): a kernel every plug-in has",
        numpy="np.maximum(x, 0)",
        elementwise=True,
        correctly_rounded=True,
        example=(f32(-1.0, -0.0, 0.0, 2.0),),
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
    _reduction("sum", "sum of elements", terms=summed, smooth=everywhere),
    _reduction("prod", "product of elements", terms=multiplied),
    _reduction("mean", "arithmetic mean", terms=averaged, smooth=everywhere),
    _reduction("max", "largest element", correctly_rounded=True, smooth=no_ties),
    _reduction("min", "smallest element", correctly_rounded=True),
    Op(
        "cumsum",
        "(x, axis=None)",
        "reduction",
        "running sum",
        terms=running,
        example=(MATRIX,),
        example_kwargs=(("axis", 1),),
    ),
    Op("norm", "(x)", "reduction", "Euclidean norm", numpy="np.linalg.norm", terms=normed, example=(X,)),
    Op(
        "matmul",
        "(x1, x2)",
        "linalg",
        "matrix product, batch dimensions broadcast",
        terms=matrix_product,
        example=(MATRIX, MATRIX.T),
    ),
    # a conversion is exact or correctly rounded (within the target's range: beyond it C leaves float -> int open)
    Op(
        "astype",
        "(x, dtype)",
        "conversion",
        "x converted to dtype, as C casts it (ints wrap, floats round to nearest, to ints toward zero)",
        numpy="x.astype(dtype)",
        elementwise=True,
        correctly_rounded=True,
        example=(X,),
        example_kwargs=(("dtype", "int8"),),
    ),
    Op(
        "asarray",
        "(obj)",
        "creation",
        "an array of a Python value (or a copy onto a device)",
        correctly_rounded=True,
        example=([1, 2.5],),
    ),
    Op("broadcast_to", "(x, shape)", "shape", "x stretched to shape", example=(X, (2, 4))),
    Op("broadcast_shapes", "(*shapes)", "shape", "the shape shapes broadcast to", example=((2, 1), (1, 3))),
    Op("reshape", "(x, shape)", "shape", "the same elements in another shape", example=(MATRIX, (3, 2))),
    Op("transpose", "(x, axes=None)", "shape", "dimensions permuted", example=(MATRIX,)),
    Op(
        "getitem",
        "(x, index)",
        "indexing",
        "x[index]",
        index_arg=1,
        subscript=True,
        python=operator.getitem,
        example=(MATRIX, (1, slice(None, None, -1))),
    ),
    Op(
        "take",
        "(x, indices, axis)",
        "indexing",
        "elements at indices along axis",
        example=(MATRIX, i32(2, 0)),
        example_kwargs=(("axis", 1),),
    ),
    Op(
        "take_along_axis",
        "(x, indices, axis)",
        "indexing",
        "elements at matching indices along axis",
        example=(MATRIX, i32(2, 0).reshape(2, 1)),
        example_kwargs=(("axis", 1),),
    ),
    _update(
        "set_at",
        "(x, index, values)",
        "a copy of x with x[index] = values (the last duplicate wins)",
        numpy="x[index] = values on a copy",
    ),
    _update(
        "add_at",
        "(x, index, values)",
        "a copy of x with values added at index (duplicates add up)",
        numpy="np.add.at on a copy",
    ),
    _update("setitem", "(x, index, values)", "x[index] = values in place", python=setitem),
    Op(
        "put_along_axis",
        "(x, indices, values, axis)",
        "update",
        "a copy of x with values put along axis",
        numpy="np.put_along_axis on a copy",
        example=(MATRIX, i32(2, 0).reshape(2, 1), f32(7, 8).reshape(2, 1)),
        example_kwargs=(("axis", 1),),
    ),
    Op(
        "copy_to",
        "(x, device)",
        "placement",
        "a copy of x on device",
        numpy="x.copy()",
        moves_to=1,
        correctly_rounded=True,
        example=(X, "the reference device"),
    ),
    Op(
        "compiled_add",
        "(x1, x2)",
        "placement",
        "add inside the backend's compiler (jax.jit, tf.function)",
        numpy="np.add",
        elementwise=True,
        correctly_rounded=True,
        example=(X, Y),
    ),
    Op("grad", "(f, *xs)", "autodiff", "gradient of scalar f with respect to each input", transform=True),
    Op("jacobian", "(f, x)", "autodiff", "Jacobian of f at x", transform=True),
    Op(
        "per_example_grad",
        "(f, params, batch)",
        "autodiff",
        "gradient for each example of a batch (vmap of grad)",
        transform=True,
    ),
    Op("hvp", "(f, x, v)", "autodiff", "Hessian of f at x times v", transform=True),
)

OPS: dict[str, Op] = {op.name: op for op in TABLE}


class UnknownOperation(LookupError):
    pass


def get(name: str) -> Op:
    try:
        return OPS[name]
    except KeyError:
        raise UnknownOperation(
            f"{name!r} is not an operation of compat's table (compat/core/ops.py)"
        ) from None


def published_ulps(name: str, dtype: str) -> float | None:
    """The published accuracy of operation ``name`` for a real ``dtype`` result (PUBLISHED_ULPS), or None."""
    bounds = get(name).ulps
    if bounds is None:
        return None
    return {"float16": NARROW_ULPS, "bfloat16": NARROW_ULPS, "float32": bounds[0], "float64": bounds[1]}.get(
        dtype
    )


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
    both, broadcast), ``smooth("reduction")`` (of the operand and the axis)."""
    arity = {"unary": 1, "binary": 2}
    return {
        op.name: op.smooth
        for op in TABLE
        if op.smooth is not None
        and (
            op.group == "reduction"
            if kind == "reduction"
            else op.group != "reduction" and op.arity == arity[kind]
        )
    }
