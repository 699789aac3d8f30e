"""Creation: arrays made from Python numbers and shapes.

arange's length is ceil((stop - start) / step), which a float step makes a question of
rounding: the stop may lie on a step in decimal and a hair off it in binary; linspace includes
its stop or not (``endpoint``); eye, tril and triu take a diagonal offset ``k``; full, zeros,
ones and empty infer a dtype where none is given (from a Python fill value: bool, the default
integer, the default float, the default complex), the ``*_like`` ones keep x's; meshgrid
orders its grids by ``indexing``; from_dlpack hands a backend's array to NumPy and back. Each
rule's classes are drawn in turn, so that every run meets each of them.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes
from compat.core.strategies import (
    arrays,
    dtype_names,
    examples,
    input_classes,
    one_example_on_modes_and_devices,
)
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

SHARE = 0.5  # of the profile's examples per spec: each shape and dtype compiles anew in JAX
SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)
# steps and starts that are short decimals: most are not binary fractions, so start + n * step
# lands a hair above or below the decimal stop
STEPS = [0.1, 0.2, 0.3, 0.25, 0.5, 0.7, 1.1, 1.5, 2.5]
STARTS = st.integers(-20, 20).map(lambda n: n / 10)


ARANGE = (
    "integers",
    "float step, stop on a step",
    "float step, stop between steps",
    "negative step",
    "empty",
)


@input_classes("interval", ARANGE, share=SHARE)
@given(data=st.data())
def test_arange_length_and_values(xp, interval, data):
    """arange(start, stop, step) has ceil((stop - start) / step) values (none where stop lies on
    the wrong side), start + i * step; a float step gives the default float dtype, ints the default
    integer. A decimal stop on a step (0.1 * 3) may be a hair off in binary: NumPy's length is the
    reference."""
    count = data.draw(st.integers(0, 12), label="steps")
    if interval == "integers":
        start, step = data.draw(st.integers(-5, 5), label="start"), data.draw(st.integers(1, 3), label="step")
        xp.check(
            "arange", start, start + count * step + data.draw(st.integers(0, step - 1), label="beyond"), step
        )
        return
    start, step = data.draw(STARTS, label="start"), data.draw(st.sampled_from(STEPS), label="step")
    if interval == "negative step":
        step = -step
    stop = start + count * step  # rounded: on the step in decimal, maybe not in binary
    if interval == "float step, stop between steps":
        stop += step * data.draw(st.sampled_from([0.25, 0.5, 0.75]), label="part of a step")
    if interval == "empty":
        stop = start - count * step
    xp.check("arange", start, stop, step)


@input_classes("endpoint", ("endpoint=True", "endpoint=False"), share=SHARE)
@given(data=st.data())
def test_linspace_with_and_without_endpoint(xp, endpoint, data):
    """linspace(start, stop, num) spaces num values from start to stop inclusive; endpoint=False
    leaves stop out (the step is (stop - start) / num); num 0 and 1 included."""
    start, stop = data.draw(STARTS, label="start"), data.draw(STARTS, label="stop")
    num = data.draw(st.integers(0, 9), label="num")
    xp.check("linspace", start, stop, num, endpoint=endpoint == "endpoint=True")


LIMITS = (
    "arange up to an integer's largest",
    "arange down to an integer's least",
    "linspace near a float's largest",
)


@input_classes("limits", LIMITS, share=SHARE)
@given(data=st.data())
def test_ranges_near_the_dtype_limits(xp, limits, data):
    """arange with a dtype= whose largest (least) value is the range's last, stepping up (down) to
    it: every value fits, none wraps; linspace between values near a float dtype's largest, whose
    difference overflows it (NumPy computes the step in float64): the values NumPy gives, no inf."""
    if limits.startswith("arange"):
        dtype = data.draw(st.sampled_from(("int8", "uint8", "int16", "int32")), label="dtype")
        info = np.iinfo(dtype)
        step = data.draw(st.integers(1, 3), label="step")
        count = data.draw(st.integers(1, 6), label="values")
        if limits.endswith("largest"):
            start = int(info.max) - step * (count - 1)
            xp.check("arange", start, int(info.max) + 1, step, dtype=dtype)
        else:
            start = int(info.min) + step * (count - 1)
            xp.check("arange", start, int(info.min) - 1, -step, dtype=dtype)
        return
    dtype = data.draw(st.sampled_from(("float32", "float16")), label="dtype")
    largest = float(np.finfo(dtype).max)
    fraction = data.draw(st.sampled_from([1.0, 0.75, 0.5]), label="of the largest")
    num = data.draw(st.integers(2, 6), label="num")
    xp.check("linspace", -largest * fraction, largest * fraction, num, dtype=dtype)


DIAGONALS = ("k=0", "k above", "k below", "k beyond the matrix")


def diagonal(data, which: str, rows: int, cols: int) -> int:
    if which == "k=0":
        return 0
    if which == "k beyond the matrix":
        return data.draw(st.sampled_from([cols, cols + 1, -rows, -rows - 1]), label="k")
    k = data.draw(st.integers(1, 3), label="k")
    return k if which == "k above" else -k


@input_classes("k", DIAGONALS, share=SHARE)
@given(data=st.data())
def test_eye_puts_ones_on_diagonal_k(xp, k, data):
    """eye(n_rows, n_cols, k) has ones on diagonal k (above the main one for k > 0, below for
    k < 0, none beyond the matrix), in the default float dtype or the one asked for."""
    rows, cols = data.draw(st.integers(0, 4), label="n_rows"), data.draw(st.integers(0, 4), label="n_cols")
    dtype = data.draw(st.none() | dtype_names(), label="dtype")
    xp.check("eye", rows, cols, k=diagonal(data, k, rows, cols), **({"dtype": dtype} if dtype else {}))


@pytest.mark.parametrize("op", ["tril", "triu"])
@input_classes("k", DIAGONALS, share=SHARE / 2)
@given(data=st.data())
def test_triangles_keep_diagonal_k(xp, op, k, data):
    """tril (triu) keeps the elements on and below (above) diagonal k of each matrix of a stack,
    zeros elsewhere, in x's dtype."""
    x = data.draw(
        arrays(
            data.draw(dtype_names(), label="dtype"),
            hnp.array_shapes(min_dims=2, max_dims=4, min_side=0, max_side=4),
        ),
        label="x",
    )
    xp.check(op, x, k=diagonal(data, k, *x.shape[-2:]))


PART = st.floats(-8, 8, width=32)
FILL = {
    "bool": st.booleans(),
    "int": st.integers(-8, 8),
    "float": PART,
    "complex": st.builds(complex, PART, PART),
}


@pytest.mark.parametrize("op", ["full", "full_like"])
@input_classes("fill", list(FILL), share=SHARE / 2)
@given(data=st.data())
def test_full_infers_its_dtype_from_the_fill_value(xp, op, fill, data):
    """full(shape, value) has the dtype a Python value of that kind gets (bool, the default
    integer, float or complex); full_like(x, value) keeps x's dtype, the value converted to it
    (a complex one into a real dtype loses its imaginary part, with a warning)."""
    value = data.draw(FILL[fill], label="fill value")
    if op == "full":
        xp.check("full", data.draw(SHAPES, label="shape"), value)
        return
    x = data.draw(arrays(data.draw(dtype_names(), label="x dtype"), SHAPES), label="x")
    if x.dtype.kind == "u" and fill in ("float", "complex"):  # a negative float into unsigned is C's UB
        value = type(value)(abs(value.real)) if fill == "float" else complex(abs(value.real), value.imag)
    xp.check("full_like", x, value)


FILLED = ["zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like"]


@input_classes("op", FILLED, share=SHARE)
@given(data=st.data())
def test_filled_arrays_have_the_shape_and_dtype(xp, op, data):
    """zeros, ones and empty have the default float dtype, or the one asked for; the *_like ones
    x's shape and dtype, or the one asked for. (empty's values are not compared: the standard
    leaves them open.)"""
    dtype = data.draw(st.none() | dtype_names(), label="dtype")
    kwargs = {"dtype": dtype} if dtype else {}
    if op.endswith("_like"):
        x = data.draw(arrays(data.draw(dtype_names(), label="x dtype"), SHAPES), label="x")
        xp.check(op, x, **kwargs)
    else:
        xp.check(op, data.draw(SHAPES, label="shape"), **kwargs)


@input_classes("indexing", ("xy", "ij", "default"), share=SHARE)
@given(data=st.data())
def test_meshgrid_orders_grids_by_indexing(xp, indexing, data):
    """meshgrid(*arrays, indexing) gives one grid per 1-d array; 'xy' (the default) swaps the
    first two axes of the grid shape (Cartesian), 'ij' keeps them (matrix); each grid keeps its
    array's dtype."""
    count = data.draw(st.integers(1, 3), label="arrays")
    grids = [
        data.draw(
            arrays(data.draw(dtype_names(), label="dtype"), (data.draw(st.integers(0, 3)),), op="meshgrid"),
            label="x",
        )
        for _ in range(count)
    ]
    xp.check("meshgrid", *grids, **({} if indexing == "default" else {"indexing": indexing}))


@examples(SHARE)
@given(data=st.data())
def test_from_dlpack_hands_arrays_over_bit_for_bit(xp, data):
    """A backend's array handed to NumPy through DLPack and back (from_dlpack both ways) is the
    same array: dtype, shape (0-d and size-0 too) and every bit."""
    name = data.draw(dtype_names([d for d in dtypes.ALL if d != "bfloat16"]), label="dtype")
    xp.check_exact("from_dlpack", data.draw(arrays(name, SHAPES), label="x"))


test_every_form_of_every_parameter = every_form("creation")
