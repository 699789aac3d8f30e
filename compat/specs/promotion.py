"""Type promotion: the result dtype (and values) of NumPy's promotion rules.

NumPy 2 (NEP 50) is the reference: arrays and 0-d arrays promote by dtype
alone; Python scalars are "weak" and take the array's dtype (an int scalar
that does not fit raises OverflowError). bfloat16 is ml_dtypes' type; where
NumPy with ml_dtypes defines no common dtype (bfloat16 with float16 or with
integers wider than 8 bits) there is no reference, so those pairs are not
judged.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from compat.core import dtypes, ops
from compat.core.domain import in_domain
from compat.core.strategies import (
    arrays,
    dtype_names,
    dtype_pairs,
    few_shapes,
    in_category,
    operation_params,
    python_scalars,
)
from compat.specs._forms import every_form

# every elementwise operation of two arrays (of one), each on the dtypes its standard category takes
BINARY = ops.elementwise_functions(arity=2)
UNARY = ops.elementwise_functions(arity=1)
SHIFTS = ops.names("bitwise_left_shift", "bitwise_right_shift")

# Operands of the exhaustive tables: values every dtype holds, divisors that
# are not zero and differences that stay non-negative, so the table is about
# dtypes; the Hypothesis specs below explore values.
LEFT = [2, 3, 5]
RIGHT = [1, 2, 3]


def has_reference(left: str, right: str) -> bool:
    try:
        np.result_type(dtypes.to_numpy(left), dtypes.to_numpy(right))
    except TypeError:
        return False
    return True


def sample(name: str, values, shape=None) -> np.ndarray:
    array = np.array([bool(v) for v in values] if name == "bool" else values).astype(dtypes.to_numpy(name))
    return array if shape is None else array.reshape(shape)


@pytest.mark.compat_table("promotion-grid")
@pytest.mark.parametrize("op", BINARY)
def test_binary_operation_on_every_pair_of_dtypes(xp, op):
    """op(array of dtype A, array of dtype B) has NumPy's result dtype and values, for every A, B
    NumPy computes op of: the category the standard says op takes (integers for a shift, real floats
    for atan2) and NumPy's others (bool + bool, maximum of bools, atan2 of ints)."""
    for left, right in xp.sample(dtype_pairs(in_domain(op))):
        if has_reference(left, right):
            xp.check(op, sample(left, LEFT), sample(right, RIGHT))


@pytest.mark.compat_table("promotion-grid")
def test_where_on_every_pair_of_dtypes(xp):
    """where(bool condition, A, B) promotes A and B like a binary operation."""
    condition = np.array([True, False, True])
    for left, right in xp.sample(dtype_pairs()):
        if has_reference(left, right):
            xp.check("where", condition, sample(left, LEFT), sample(right, RIGHT))


# tensordot and vecdot beside matmul: a share of the pairs each run (the seed picks which); the
# linalg extension's functions of two arrays have their dtype rules in compat/specs/linalg.py
@pytest.mark.compat_table("promotion-grid")
@pytest.mark.parametrize(
    "op", operation_params(ops.names("matmul", "tensordot", "vecdot"), ops.names("matmul"))
)
def test_linear_algebra_on_every_pair_of_dtypes(xp, op):
    """matmul, tensordot, vecdot (A[2,2], B[2,2]) have NumPy's result dtype and values, for every
    A, B NumPy computes op of (the standard's category and NumPy's others)."""
    for left, right in xp.sample(dtype_pairs(in_domain(op))):
        if has_reference(left, right):
            xp.check(op, sample(left, [1, 2, 0, 1], (2, 2)), sample(right, [1, 0, 2, 1], (2, 2)))


SCALARS = {"bool": True, "int": 2, "float": 2.5, "complex": 1 + 2j}  # one moderate value of each Python kind
# the Python scalars an operation meets beside arrays of its category: a kind of value its
# category holds (an int beside floats too: the standard's rule for Python scalars)
KINDS = {
    bool: dtypes.BOOL,
    int: dtypes.INTEGER + dtypes.FLOATING,
    float: dtypes.FLOATING,
    complex: dtypes.COMPLEX,
}


def scalar_kinds(op: str) -> list[type]:
    return [kind for kind, holds in KINDS.items() if set(holds) & set(dtypes.CATEGORIES[ops.get(op).takes])]


@pytest.mark.parametrize("op", ops.names("add", "true_divide", "less"))
def test_python_scalar_with_every_dtype(xp, op):
    """op(array of dtype A, Python scalar of kind K), in both orders, for every A NumPy computes op of
    and K op takes: the scalar is weak (the table behind the Hypothesis spec below, so that no dtype
    and kind is left to chance)."""
    for dtype in xp.sample(in_domain(op)):
        for scalar in (SCALARS[kind.__name__] for kind in scalar_kinds(op)):
            xp.check(op, sample(dtype, LEFT), scalar)
            xp.check(op, scalar, sample(dtype, LEFT))


# the arithmetic and comparisons at full size, the other operations with a share of the examples
@pytest.mark.parametrize(
    "op", operation_params(BINARY, ops.select(group=("arithmetic", "comparison"), arity=2))
)
@given(data=st.data())
def test_array_with_python_scalar(xp, op, data):
    """An array with a Python bool/int/float/complex scalar, in both orders: the scalar is weak."""
    dtype = data.draw(dtype_names(in_domain(op)), label="array dtype")
    kind = data.draw(st.sampled_from(scalar_kinds(op)), label="scalar kind")
    array = data.draw(arrays(dtype, few_shapes(max_dims=2), op=op), label="array")
    scalar = data.draw(python_scalars(kind, dtype), label="scalar")
    first = data.draw(st.booleans(), label="array first")
    if op in SHIFTS:  # a shift's count: "Each element must be greater than or equal to 0"
        scalar, array = (abs(scalar), array) if first else (scalar, np.asarray(np.abs(array)))
    xp.check(op, *((array, scalar) if first else (scalar, array)))


@pytest.mark.parametrize("op", ops.names("add", "multiply", "true_divide", "maximum", "less", "where"))
@given(data=st.data())
def test_zero_dim_array_with_nd_array(xp, op, data):
    """A 0-d array promotes like any array (it is not weak like a Python scalar)."""
    zero_dim, nd = data.draw(dtype_names(), label="0-d dtype"), data.draw(dtype_names(), label="n-d dtype")
    if not has_reference(zero_dim, nd):
        return
    scalar_array = data.draw(arrays(zero_dim, (), op=op), label="0-d array")
    array = data.draw(arrays(nd, few_shapes(min_dims=1, max_dims=2), op=op), label="n-d array")
    args = [scalar_array, array] if data.draw(st.booleans(), label="0-d first") else [array, scalar_array]
    if op == "where":  # a condition that picks from both: the selection shows, not only the dtype
        args.insert(0, np.arange(array.size).reshape(array.shape) % 2 == 0)
    xp.check(op, *args)


LITERALS = [
    True,
    1,
    1.0,
    1j,
    -1,
    2**31,
    2**40,
    2**63 - 1,
    -(2**63),
    2**63,
    [1, 2],
    [1, 2.5],
    [True, 2],
    [1, 1j],
    [1.5, True],
    [[1, 2], [3, 4.0]],
    [2**40, 1],
]


@pytest.mark.parametrize("literal", LITERALS, ids=repr)
def test_dtype_inferred_for_python_literal(xp, literal):
    """asarray(literal) infers NumPy's dtype: int64 for ints, float64 for floats, complex128 for complex."""
    xp.check("asarray", literal)


def unary_dtypes(op: str) -> list[str]:
    """The real dtypes of op's category (complex ones for the complex functions real, imag, conj:
    the exactness facts of the others are their real results'); for a function of floats, bools
    and integers too: NumPy computes them in the float its promotion gives (float16 for bool and
    int8), where the standard leaves the result to the library."""
    declared = ops.get(op)
    real = dtypes.BOOL + dtypes.INTEGER + dtypes.REAL_FLOAT
    extra = dtypes.BOOL + dtypes.INTEGER if declared.takes == "floating-point" else ()
    return in_category(declared.takes, None if declared.group == "complex" else real) + [
        n for n in extra if n in dtypes.available()
    ]


@pytest.mark.parametrize(
    "op",
    operation_params(UNARY, ops.names("sqrt", "exp", "sin", "abs", "negative", "sign", "floor", "round")),
)
@given(data=st.data())
def test_unary_function_result_dtype(xp, op, data):
    """Every elementwise function of one array has NumPy's result dtype: sqrt/exp/sin on ints give
    floats, abs of a complex its component's float, abs/negative/sign/floor/ceil/trunc keep the dtype,
    isnan/signbit give bools."""
    dtype = data.draw(dtype_names(unary_dtypes(op)), label="dtype")
    xp.check(op, data.draw(arrays(dtype, few_shapes(max_dims=2), op=op), label="x"))


@pytest.mark.parametrize("op", ops.names("sum", "prod", "mean", "max", "cumsum"))
@given(data=st.data())
def test_reduction_result_dtype(xp, op, data):
    """sum/prod/cumsum widen bool and small ints to the default int; mean gives a float."""
    dtype = data.draw(
        dtype_names(
            ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "float16", "float32")
        ),
        label="dtype",
    )
    x = data.draw(arrays(dtype, few_shapes(min_dims=1, max_dims=3)), label="x")
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    kwargs = (
        {"axis": axis}
        if op == "cumsum"
        else {"axis": axis, "keepdims": data.draw(st.booleans(), label="keepdims")}
    )
    xp.check(op, x, **kwargs)


test_every_form_of_every_parameter = every_form("promotion")
