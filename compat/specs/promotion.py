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
from compat.core.strategies import arrays, dtype_names, dtype_pairs, python_scalars, shapes

ARITHMETIC_AND_COMPARISON = ops.select(group=("arithmetic", "comparison"))
BINARY = ops.select(group=("arithmetic", "comparison", "logical", "bitwise"), arity=2)

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
    """op(array of dtype A, array of dtype B) has NumPy's result dtype and values, for every A, B."""
    for left, right in xp.sample(dtype_pairs()):
        if has_reference(left, right):
            xp.check(op, sample(left, LEFT), sample(right, RIGHT))


@pytest.mark.compat_table("promotion-grid")
def test_where_on_every_pair_of_dtypes(xp):
    """where(bool condition, A, B) promotes A and B like a binary operation."""
    condition = np.array([True, False, True])
    for left, right in xp.sample(dtype_pairs()):
        if has_reference(left, right):
            xp.check("where", condition, sample(left, LEFT), sample(right, RIGHT))


@pytest.mark.compat_table("promotion-grid")
def test_matmul_on_every_pair_of_dtypes(xp):
    """matmul(A[2,2], B[2,2]) has NumPy's result dtype and values."""
    for left, right in xp.sample(dtype_pairs()):
        if has_reference(left, right):
            xp.check("matmul", sample(left, [1, 2, 0, 1], (2, 2)), sample(right, [1, 0, 2, 1], (2, 2)))


SCALARS = {"bool": True, "int": 2, "float": 2.5, "complex": 1 + 2j}  # one moderate value of each Python kind


@pytest.mark.parametrize("op", ops.names("add", "true_divide", "less"))
def test_python_scalar_with_every_dtype(xp, op):
    """op(array of dtype A, Python scalar of kind K), in both orders, for every A and K: the scalar is
    weak (the table behind the Hypothesis spec below, so that no dtype and kind is left to chance)."""
    for dtype in xp.sample(dtypes.available()):
        for scalar in SCALARS.values():
            xp.check(op, sample(dtype, LEFT), scalar)
            xp.check(op, scalar, sample(dtype, LEFT))


@pytest.mark.parametrize("op", ARITHMETIC_AND_COMPARISON)
@given(data=st.data())
def test_array_with_python_scalar(xp, op, data):
    """An array with a Python bool/int/float/complex scalar, in both orders: the scalar is weak."""
    dtype = data.draw(dtype_names(), label="array dtype")
    kind = data.draw(st.sampled_from([bool, int, float, complex]), label="scalar kind")
    array = data.draw(arrays(dtype, shapes(max_dims=2)), label="array")
    scalar = data.draw(python_scalars(kind, dtype), label="scalar")
    args = (array, scalar) if data.draw(st.booleans(), label="array first") else (scalar, array)
    xp.check(op, *args)


@pytest.mark.parametrize("op", ops.names("add", "multiply", "true_divide", "maximum", "less", "where"))
@given(data=st.data())
def test_zero_dim_array_with_nd_array(xp, op, data):
    """A 0-d array promotes like any array (it is not weak like a Python scalar)."""
    zero_dim, nd = data.draw(dtype_names(), label="0-d dtype"), data.draw(dtype_names(), label="n-d dtype")
    if not has_reference(zero_dim, nd):
        return
    scalar_array = data.draw(arrays(zero_dim, ()), label="0-d array")
    array = data.draw(arrays(nd, shapes(min_dims=1, max_dims=2)), label="n-d array")
    args = [scalar_array, array] if data.draw(st.booleans(), label="0-d first") else [array, scalar_array]
    if op == "where":
        args.insert(0, np.ones(array.shape, dtype=bool))
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


@pytest.mark.parametrize("op", ops.names("sqrt", "exp", "sin", "abs", "negative", "sign", "floor", "round"))
@given(data=st.data())
def test_unary_function_result_dtype(xp, op, data):
    """sqrt/exp/sin on ints give floats; abs/negative/sign/floor/round keep the dtype (as NumPy)."""
    dtype = data.draw(dtype_names(dtypes.BOOL + dtypes.INTEGER + dtypes.REAL_FLOAT), label="dtype")
    xp.check(op, data.draw(arrays(dtype, shapes(max_dims=2)), label="x"))


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
    x = data.draw(arrays(dtype, shapes(min_dims=1, max_dims=3)), label="x")
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1), label="axis")
    kwargs = (
        {"axis": axis}
        if op == "cumsum"
        else {"axis": axis, "keepdims": data.draw(st.booleans(), label="keepdims")}
    )
    xp.check(op, x, **kwargs)
