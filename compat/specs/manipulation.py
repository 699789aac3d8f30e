"""Manipulation: the standard's functions that move, join, split and repeat elements.

Each counts axes as NumPy does: a negative axis from the end, an axis beyond the rank an error;
each keeps size-0 dimensions and 0-d inputs working; concatenate and stack promote the dtypes of
the arrays they join (NumPy's promotion: the first array's dtype is no rule). The values are
copies, judged to the bit; the classes of each rule (negative axes, axis None, a tuple of axes)
are drawn in turn, so that every run meets each of them.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes
from compat.core.source import backend_array
from compat.core.strategies import (
    RANK_RELATIONS,
    arrays,
    dtype_names,
    examples,
    input_classes,
    one_example_on_modes_and_devices,
    ranked_broadcastable_shapes,
)
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

MAX_DIMS = 4
MAX_SIDE = 3
SHARE = 0.5  # of the profile's examples per spec: each shape and dtype compiles anew in JAX
SIGNS = ("non-negative axis", "negative axis")


def any_shapes(min_dims=0, max_dims=MAX_DIMS):
    """Shapes with size-0 dimensions among them (and 0-d ones where min_dims is 0)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=0, max_side=MAX_SIDE)


def axis_of(data, rank: int, sign: str, label="axis") -> int:
    """An axis of an array of ``rank`` dimensions, counted from the start or from the end."""
    axis = data.draw(st.integers(0, rank - 1), label=label)
    return axis - rank if sign == "negative axis" else axis


def promoting_dtypes(data, count: int) -> list[str]:
    """``count`` dtypes with a common dtype in NumPy (drawn each on its own: mostly different ones)."""
    chosen = [data.draw(dtype_names(), label="dtype 0")]
    for n in range(1, count):
        chosen.append(data.draw(dtype_names().filter(lambda d: promotes(*chosen, d)), label=f"dtype {n}"))
    return chosen


def promotes(*names: str) -> bool:
    try:
        np.result_type(*(dtypes.to_numpy(n) for n in names))
    except TypeError:  # bfloat16 with float16 or wide integers: NumPy has no common dtype
        return False
    return True


def joined(data, shapes, names, op):
    """The arrays to join, as one argument: each is converted to the backend's array."""
    return tuple(
        backend_array(data.draw(arrays(d, s, op=op), label=f"array {n}"))
        for n, (s, d) in enumerate(zip(shapes, names))
    )


@input_classes("axis", (*SIGNS, "axis None"), share=SHARE)
@given(data=st.data())
def test_concatenate_joins_and_promotes(xp, axis, data):
    """concatenate(arrays, axis) joins arrays that agree in every other dimension (size 0 too);
    axis=None flattens them first (any shapes); the result has the dtype their dtypes promote to."""
    count = data.draw(st.integers(1, 3), label="arrays")
    names = promoting_dtypes(data, count)
    if axis == "axis None":
        shapes = [data.draw(any_shapes(max_dims=3), label=f"shape {n}") for n in range(count)]
        xp.check("concatenate", joined(data, shapes, names, "concatenate"), axis=None)
        return
    shape = list(data.draw(any_shapes(min_dims=1), label="shape"))
    along = axis_of(data, len(shape), axis)
    shapes = []
    for n in range(count):
        shape[along] = data.draw(st.integers(0, MAX_SIDE), label=f"size {n} along the axis")
        shapes.append(tuple(shape))
    xp.check("concatenate", joined(data, shapes, names, "concatenate"), axis=along)


@input_classes("axis", SIGNS, share=SHARE)
@given(data=st.data())
def test_stack_joins_along_a_new_axis_and_promotes(xp, axis, data):
    """stack(arrays, axis) inserts a new axis at ``axis`` of the result (rank + 1 positions, 0-d
    arrays too) and promotes the arrays' dtypes."""
    count = data.draw(st.integers(1, 3), label="arrays")
    shape = data.draw(any_shapes(), label="shape")
    along = axis_of(data, len(shape) + 1, axis)
    xp.check("stack", joined(data, [shape] * count, promoting_dtypes(data, count), "stack"), axis=along)


@input_classes("axis", SIGNS, share=SHARE)
@given(data=st.data())
def test_unstack_splits_along_an_axis(xp, axis, data):
    """unstack(x, axis) gives x.shape[axis] arrays, each x without that axis (size 0 elsewhere).
    (Not along a size-0 axis: no arrays at all, which NumPy returns as the tuple () that also
    spells a 0-d shape.)"""
    shape = list(data.draw(any_shapes(min_dims=1), label="shape"))
    along = axis_of(data, len(shape), axis)
    shape[along] = shape[along] or 1
    x = data.draw(arrays(data.draw(dtype_names(), label="dtype"), tuple(shape), op="unstack"), label="x")
    xp.check("unstack", x, axis=along)


FLIP_AXES = ("axis None", *SIGNS, "tuple of axes")


def axes_of(data, rank: int, which: str):
    """None, one axis (either sign), or a tuple of distinct axes of mixed signs."""
    if which == "axis None":
        return None
    if which in SIGNS:
        return axis_of(data, rank, which)
    chosen = data.draw(
        st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True), label="axes"
    )
    signs = data.draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)), label="negative")
    return tuple(a - rank if minus else a for a, minus in zip(chosen, signs))


@input_classes("axes", FLIP_AXES, share=SHARE)
@given(data=st.data())
def test_flip_reverses_along_axes(xp, axes, data):
    """flip(x, axis) reverses the order along one axis, several, or (None) every axis, 0-d x too."""
    shape = data.draw(any_shapes(min_dims=0 if axes == "axis None" else 1), label="shape")
    x = data.draw(arrays(data.draw(dtype_names(), label="dtype"), shape, op="flip"), label="x")
    xp.check("flip", x, axis=axes_of(data, x.ndim, axes))


@input_classes("axes", FLIP_AXES, share=SHARE)
@given(data=st.data())
def test_roll_shifts_cyclically(xp, axes, data):
    """roll(x, shift, axis) shifts elements cyclically (either way, beyond the size too) along
    the axes; axis=None rolls the flattened array and gives back x's shape."""
    shape = data.draw(any_shapes(min_dims=0 if axes == "axis None" else 1), label="shape")
    x = data.draw(arrays("int32", shape, op="roll"), label="x")
    along = axes_of(data, x.ndim, axes)
    shifts = st.integers(-5, 5)
    if isinstance(along, tuple):
        shift = tuple(data.draw(st.lists(shifts, min_size=len(along), max_size=len(along)), label="shift"))
    else:
        shift = data.draw(shifts, label="shift")
    xp.check("roll", x, shift, axis=along)


@input_classes("axes", (*SIGNS, "tuple of axes"), share=SHARE)
@given(data=st.data())
def test_moveaxis_moves_axes(xp, axes, data):
    """moveaxis(x, source, destination) puts each source axis at its destination, the others
    keeping their order; negative axes count from the end."""
    x = data.draw(arrays("int32", any_shapes(min_dims=1), op="moveaxis"), label="x")
    if axes == "tuple of axes":
        source = axes_of(data, x.ndim, axes)
        destination = tuple(data.draw(st.permutations(range(x.ndim)), label="destination")[: len(source)])
    else:
        source, destination = (
            axis_of(data, x.ndim, axes, "source"),
            axis_of(data, x.ndim, axes, "destination"),
        )
    xp.check("moveaxis", x, source, destination)


SQUEEZED = (*SIGNS, "tuple of axes", "axis not of size 1")


@input_classes("axes", SQUEEZED, share=SHARE)
@given(data=st.data())
def test_squeeze_removes_size_one_axes(xp, axes, data):
    """squeeze(x, axis) removes the named axes, each of size 1; naming an axis of another size
    (0 included) is an error."""
    shape = list(data.draw(any_shapes(min_dims=1), label="shape"))
    which = axes_of(data, len(shape), "tuple of axes" if axes == "axis not of size 1" else axes)
    named = which if isinstance(which, tuple) else (which,)
    for a in named:
        shape[a] = 1
    if axes == "axis not of size 1":
        shape[named[0]] = data.draw(st.sampled_from([0, 2, 3]), label="size of the named axis")
    x = data.draw(arrays("float32", tuple(shape), op="squeeze"), label="x")
    xp.check("squeeze", x, which)


@input_classes("axes", (*SIGNS, "tuple of axes"), share=SHARE)
@given(data=st.data())
def test_expand_dims_inserts_size_one_axes(xp, axes, data):
    """expand_dims(x, axis) inserts a size-1 axis at each position, counted in the result's rank
    (so -1 appends one); a tuple inserts several (standard 2025.12)."""
    x = data.draw(arrays("float32", any_shapes(max_dims=3), op="expand_dims"), label="x")
    if axes == "tuple of axes":
        count = data.draw(st.integers(1, 2), label="new axes")
        rank = x.ndim + count
        chosen = data.draw(st.lists(st.integers(0, rank - 1), min_size=count, max_size=count, unique=True))
        signs = data.draw(st.lists(st.booleans(), min_size=count, max_size=count), label="negative")
        where = tuple(a - rank if minus else a for a, minus in zip(chosen, signs))
    else:
        where = axis_of(data, x.ndim + 1, axes)
    xp.check("expand_dims", x, where)


@input_classes(
    "repetitions", ("fewer than the rank", "as many as the rank", "more than the rank"), share=SHARE
)
@given(data=st.data())
def test_tile_repeats_the_whole_array(xp, repetitions, data):
    """tile(x, repetitions) repeats x along each axis; fewer repetitions than axes apply to the
    last axes, more add leading axes; a repetition of 0 empties its axis."""
    x = data.draw(arrays("int16", any_shapes(max_dims=3), op="tile"), label="x")
    count = {"fewer than the rank": x.ndim - 1, "as many as the rank": x.ndim}.get(repetitions, x.ndim + 1)
    reps = data.draw(
        st.lists(st.integers(0, 3), min_size=max(count, 0), max_size=max(count, 0)), label="reps"
    )
    xp.check("tile", x, tuple(reps))


@input_classes("repeats", ("int, axis None", "int, negative axis", "array of repeats"), share=SHARE)
@given(data=st.data())
def test_repeat_repeats_each_element(xp, repeats, data):
    """repeat(x, repeats, axis) repeats each element along axis (None: of the flattened x), an
    int as often for each, an integer array element by element (0 drops one)."""
    x = data.draw(arrays("float32", any_shapes(min_dims=1, max_dims=3), op="repeat"), label="x")
    if repeats == "array of repeats":
        axis = axis_of(data, x.ndim, "non-negative axis")
        counts = data.draw(arrays("int64", (x.shape[axis],), elements=st.integers(0, 3)), label="repeats")
        xp.check("repeat", x, counts, axis=axis)
        return
    axis = None if repeats == "int, axis None" else axis_of(data, x.ndim, "negative axis")
    xp.check("repeat", x, data.draw(st.integers(0, 3), label="repeats"), axis=axis)


@input_classes("ranks", RANK_RELATIONS[2], share=SHARE)
@given(data=st.data())
def test_broadcast_arrays_stretch_to_one_shape(xp, ranks, data):
    """broadcast_arrays(a, b) gives each array stretched to the shape they broadcast to, whichever
    has the lower rank, in its own dtype."""
    shapes = data.draw(
        ranked_broadcastable_shapes(2, RANK_RELATIONS[2][ranks], max_dims=MAX_DIMS, max_side=MAX_SIDE),
        label="shapes",
    )
    a, b = (
        data.draw(arrays(data.draw(dtype_names(), label="dtype"), s, op="broadcast_arrays"), label=f"x{n}")
        for n, s in enumerate(shapes)
    )
    xp.check("broadcast_arrays", a, b)


RESHAPES = ("explicit shape", "-1 inferred", "copy=True", "copy=False")


@input_classes("shape", RESHAPES, share=SHARE)
@given(data=st.data())
def test_reshape_infers_minus_one_and_honours_copy(xp, shape, data):
    """reshape(x, shape) keeps the elements in C order; one -1 is inferred from the others (0 where
    the array is empty and the others allow it); copy=True and copy=False (no copy is needed for a
    fresh array) are the standard's keyword."""
    x = data.draw(arrays("float32", any_shapes(max_dims=3), op="reshape"), label="x")
    target = list(data.draw(st.permutations(x.shape), label="new order")) if x.ndim else []
    if shape == "-1 inferred" and target and (x.size or len(target) == 1):
        target[data.draw(st.integers(0, len(target) - 1), label="inferred axis")] = -1
    kwargs = {"copy": shape == "copy=True"} if shape.startswith("copy") else {}
    xp.check("reshape", x, tuple(target), **kwargs)


@pytest.mark.parametrize("op", ["squeeze", "expand_dims"])
@examples(0.25)
@given(data=st.data())
def test_an_axis_beyond_the_rank_raises(xp, op, data):
    """An axis outside [-rank, rank) (expand_dims: of the result's rank) is an error, as NumPy raises one."""
    # squeeze of a 0-d array: NumPy accepts axis 0 and -1 (its old scalar rule), the standard no axis
    x = data.draw(arrays("float32", any_shapes(min_dims=op == "squeeze", max_dims=3), op=op), label="x")
    rank = x.ndim + (op == "expand_dims")
    beyond = data.draw(st.sampled_from([rank, rank + 1, -rank - 1]), label="axis")
    xp.check(op, x, beyond)


@input_classes("axes", ("a permutation", "negative axes", "matrix_transpose"), share=SHARE)
@given(data=st.data())
def test_permute_dims_reorders_axes(xp, axes, data):
    """permute_dims(x, axes) (NumPy's transpose) puts axis axes[i] at position i, axes a permutation
    of all of x's axes (negative ones count from the end); matrix_transpose swaps the last two axes
    of a stack of matrices."""
    if axes == "matrix_transpose":
        xp.check(
            "matrix_transpose",
            data.draw(arrays("float32", any_shapes(min_dims=2), op="matrix_transpose"), label="x"),
        )
        return
    x = data.draw(arrays("int32", any_shapes(), op="transpose"), label="x")
    order = data.draw(st.permutations(range(x.ndim)), label="axes")
    xp.check("transpose", x, tuple(a - x.ndim if axes == "negative axes" else a for a in order))


test_every_form_of_every_parameter = every_form("manipulation")
