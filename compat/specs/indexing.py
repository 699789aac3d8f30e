"""Indexing, as NumPy's indexing guide states it.

- basic indexing: integers, slices (any start, stop, step), None, Ellipsis, 0-d boolean
  arrays; every slice form and integer position in every run;
- advanced indexing: integer arrays (as NumPy arrays, lists or backend arrays)
  broadcast together; advanced indices separated by a slice move their
  dimensions to the front;
- boolean masks: full-shape, over leading dimensions, as tuple elements, 0-d;
- out-of-bounds and invalid indices: NumPy raises IndexError;
- functional updates: x[i] = v on a copy (last write wins for duplicates) and
  np.add.at (duplicates accumulate), put_along_axis on a copy, in-place item
  assignment; take and take_along_axis.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import ops
from compat.core.source import backend_array
from compat.core.strategies import arrays, dtype_names, input_classes, shapes
from compat.specs._forms import every_form

MAX_SIDE = 4


def any_arrays(shape):
    return dtype_names().flatmap(lambda name: arrays(name, shape, op="getitem"))


def nested_tuple(array):
    return array.item() if array.ndim == 0 else tuple(nested_tuple(a) for a in array)


def array_forms(index_arrays, form):
    """The same integer/bool arrays as NumPy arrays, Python lists, tuples or backend arrays."""
    if form == "list":
        return tuple(a.tolist() for a in index_arrays)
    if form == "tuple":
        return tuple(nested_tuple(a) for a in index_arrays)
    if form == "backend":
        return tuple(backend_array(a) for a in index_arrays)
    return tuple(index_arrays)


@given(data=st.data())
def test_basic_indexing(xp, data):
    """x[index] for integers, slices (negative steps too), None and Ellipsis, on ranks 0 to 6."""
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=6, min_side=0, max_side=MAX_SIDE), label="shape")
    x = data.draw(any_arrays(shape), label="x")
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
    xp.check("getitem", x, index)


# Every form of a basic index, every run: a drawn index meets some of them only in some runs.
# A slice's start and stop omitted, positive or negative (and beyond either end: clamped), its
# step omitted, of magnitude 1 or larger, either sign; an integer at 0, -1, n-1 and -n of each
# axis; a 0-d boolean array (a new axis of length 1 or 0).
LINE = np.arange(5.0, dtype=np.float32)
GRID = np.arange(15.0, dtype=np.float32).reshape(3, 5)
ENDS = (None, 1, -2)
STEPS = (None, 1, -1, 2, -2)
CLAMPED = (slice(-8, 8), slice(8, -8, -1), slice(3, 1), slice(-1, -4, -2))


def basic_index_forms() -> list[tuple[np.ndarray, tuple]]:
    slices = [slice(*ends) for ends in itertools.product(ENDS, (None, 4, -1), STEPS)] + list(CLAMPED)
    forms = [(LINE, (s,)) for s in slices]
    for axis, n in enumerate(GRID.shape):
        forms += [(GRID, (slice(None),) * axis + (i,)) for i in (0, -1, n - 1, -n)]
    forms += [(GRID, (np.array(b),)) for b in (True, False)]
    forms += [(GRID, (np.array(True), -1)), (LINE, (Ellipsis, np.array(False)))]
    return forms


BASIC_INDEX_FORMS = basic_index_forms()


def test_every_basic_index_form(xp):
    """Each slice form (start, stop and step each omitted, positive or negative; steps of magnitude
    1 and 2; ends beyond the axis), each integer position (0, -1, n-1, -n of each axis) and a 0-d
    boolean array index as NumPy does, every run (a row's share of them on devices and modes)."""
    for x, index in xp.sample(BASIC_INDEX_FORMS):
        xp.check("getitem", x, index)


@pytest.mark.parametrize("form", ["numpy", "list", "tuple", "backend"])
@given(data=st.data())
def test_integer_array_indexing(xp, form, data):
    """Integer arrays index the leading dimensions, broadcast together; negative entries count from the end."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=MAX_SIDE), label="shape")
    x = data.draw(any_arrays(shape), label="x")
    index = data.draw(
        hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
        label="integer arrays",
    )
    xp.check("getitem", x, array_forms(index, form))


# Where the integer arrays of an index stand decides where their dimensions go: next to
# each other they stay in place, separated by a slice (or None, or Ellipsis) they move
# to the front; and "in place" is "the front" when the first array leads the index.
LAYOUTS = {  # class -> (pattern of arrays "a" and slices "s" it allows, least rank of x)
    "one array": (lambda p: p.count("a") == 1, 2),
    "adjacent, leading": (lambda p: p.count("a") >= 2 and p.startswith("a") and adjacent(p), 2),
    "adjacent, after a slice": (lambda p: p.count("a") >= 2 and p.startswith("s") and adjacent(p), 3),
    "separated, leading": (lambda p: p.count("a") >= 2 and p.startswith("a") and not adjacent(p), 3),
    "separated, after a slice": (lambda p: p.count("a") >= 2 and p.startswith("s") and not adjacent(p), 4),
}
# Not a class yet, only a chance (the Ellipsis below may span no dimension): arrays separated
# by an empty Ellipsis, which torch keeps in place. Its registry entry
# (torch-empty-ellipsis-keeps-advanced-indices-adjacent) covers the shape divergence only,
# and drawn every run the class shows a value divergence too (same-sized dimensions swapped).


def adjacent(pattern: str) -> bool:
    """Whether the integer arrays ("a") of a pattern stand next to each other."""
    return "a" * pattern.count("a") in pattern


@st.composite
def mixed_indices(draw, layout):
    """x's shape and a tuple that mixes integer arrays with slices (and None, Ellipsis), the
    arrays standing as ``layout`` says; arrays that are separated have at least one dimension
    (0-d ones have nothing to move: the other layouts draw those)."""
    allows, min_dims = LAYOUTS[layout]
    shape = draw(
        hnp.array_shapes(min_dims=min_dims, max_dims=4, min_side=1, max_side=MAX_SIDE), label="shape"
    )
    pattern = draw(
        st.sampled_from([p for p in map("".join, itertools.product("as", repeat=len(shape))) if allows(p)]),
        label="arrays and slices",
    )
    separated = layout.startswith("separated")
    result_shape = draw(
        hnp.array_shapes(min_dims=1 if separated else 0, max_dims=2, max_side=3),
        label="advanced result shape",
    )
    items = []
    for side, kind in zip(shape, pattern):
        if kind == "a":
            items.append(
                draw(
                    hnp.arrays(np.intp, result_shape, elements=st.integers(-side, side - 1)),
                    label="index array",
                )
            )
        else:
            items.append(draw(st.slices(side), label="slice"))
    if draw(st.booleans(), label="insert None"):  # after the first array, and not between adjacent ones
        first, last = pattern.index("a"), pattern.rindex("a")
        items.insert(
            draw(
                st.integers(first + 1 if separated or first == last else last + 1, len(items)),
                label="None at",
            ),
            None,
        )
    if draw(st.booleans(), label="use Ellipsis"):  # in place of a run of full slices (or of none)
        start = draw(st.integers(0, len(items)), label="Ellipsis from")
        stop = draw(st.integers(start, len(items)), label="Ellipsis to")
        if all(isinstance(i, slice) and i == slice(None) for i in items[start:stop]):
            items[start:stop] = [Ellipsis]
    return shape, tuple(items)


@input_classes("layout", LAYOUTS)
@given(data=st.data())
def test_advanced_indices_mixed_with_slices(xp, layout, data):
    """x[a, :, b] puts the broadcast index dimensions first; x[:, a, b] keeps them in place."""
    shape, index = data.draw(mixed_indices(layout), label="index")
    x = data.draw(arrays("int32", shape, op="getitem"), label="x")
    xp.check("getitem", x, index)


@st.composite
def boolean_masks(draw, shape):
    kind = draw(st.sampled_from(["full", "leading", "sequence element", "0-d"]), label="mask kind")
    if kind == "0-d":
        return draw(st.booleans(), label="scalar mask")
    if kind == "sequence element":
        axis = draw(st.integers(0, len(shape) - 1), label="axis")
        sequence = draw(st.sampled_from([tuple, list]), label="mask sequence")
        mask = draw(
            st.lists(st.booleans(), min_size=shape[axis], max_size=shape[axis]).map(sequence), label="mask"
        )
        return (slice(None),) * axis + (mask,)
    dims = len(shape) if kind == "full" else draw(st.integers(1, len(shape)), label="mask dims")
    return draw(hnp.arrays(np.bool_, shape[:dims]), label="mask")


@given(data=st.data())
def test_boolean_masks(xp, data):
    """A mask selects where it is True: over all or the leading dimensions, as a tuple or list element, or 0-d."""
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=MAX_SIDE), label="shape")
    x = data.draw(arrays("float32", shape, op="getitem"), label="x")
    xp.check("getitem", x, data.draw(boolean_masks(shape), label="mask"))


def out_of_bounds(side: int) -> st.SearchStrategy[int]:
    """An index just beyond an axis of ``side`` elements, on either side."""
    return st.integers(side, side + 3) | st.integers(-side - 3, -side - 1)


@st.composite
def invalid_indices(draw, shape):
    """Indices NumPy refuses: out-of-range integers and integer arrays, floats, too many indices."""
    kind = draw(st.sampled_from(["integer", "array", "float", "too many"]), label="invalid kind")
    axis = draw(st.integers(0, len(shape) - 1), label="axis")
    side = shape[axis]
    if kind == "integer":
        bad = draw(out_of_bounds(side), label="integer")
    elif kind == "array":
        inside = draw(st.lists(st.integers(-side, side - 1), max_size=2))
        bad = np.array(inside + [draw(out_of_bounds(side))], dtype=np.intp)
    elif kind == "float":
        bad = draw(st.sampled_from([0.0, 1.0, -1.5]), label="float")
    else:
        return (0,) * (len(shape) + 1)
    return (slice(None),) * axis + (bad,)


@pytest.mark.compat_table("invalid-indices")
@given(data=st.data())
def test_invalid_indices_raise(xp, data):
    """NumPy raises IndexError for out-of-range and float indices and for too many indices."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=MAX_SIDE), label="shape")
    x = data.draw(arrays("int32", shape), label="x")
    xp.check("getitem", x, data.draw(invalid_indices(shape), label="index"))


# Each kind of index NumPy refuses with IndexError, every run (a drawn one meets each kind only in
# some): an integer past either end, an integer array with an entry past the end, more indices
# than the rank (the standard's indexing.rst: "An IndexError exception must be raised").
INVALID_INDEX_FORMS = [
    (GRID.astype(np.int32), (3,)),
    (GRID.astype(np.int32), (slice(None), -6)),
    (LINE.astype(np.int32), (np.array([0, 5], dtype=np.intp),)),
    (LINE.astype(np.int32), (0, 0)),
    (GRID.astype(np.int32), (0, 0, 0)),
]


def test_every_invalid_index_kind_raises(xp):
    """Out-of-range integers and integer arrays and too many indices raise IndexError, as in NumPy."""
    for x, index in xp.sample(INVALID_INDEX_FORMS):
        xp.check("getitem", x, index)


WRITE_BOUNDS = {"in bounds": False, "out of bounds": True}


@st.composite
def updates(draw, outside: bool, op: str = "setitem"):
    """x, an integer-array index into x's leading dimensions (duplicates likely), and values
    (pairwise distinct where they fit: which duplicate write lands shows); ``outside``: one of the
    indices lies beyond its axis, on either side."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=MAX_SIDE), label="shape")
    x = draw(arrays("float32", shape, op=op), label="x")
    dims = draw(st.integers(1, len(shape)), label="indexed dims")
    count = draw(st.integers(1, 4), label="index length")
    index = [
        draw(hnp.arrays(np.intp, (count,), elements=st.integers(0, side - 1)), label="indices")
        for side in shape[:dims]
    ]
    if outside:
        axis = draw(st.integers(0, dims - 1), label="axis out of bounds")
        index[axis][draw(st.integers(0, count - 1), label="position out of bounds")] = draw(
            out_of_bounds(shape[axis]), label="index out of bounds"
        )
    values = draw(arrays("float32", (count,) + shape[dims:], op=op), label="values")
    return x, tuple(index), values


@pytest.mark.parametrize("op", ops.names("set_at", "add_at"))
@input_classes("indices", WRITE_BOUNDS)
@given(data=st.data())
def test_functional_update_with_duplicate_indices(xp, op, indices, data):
    """set_at: an updated copy, the last write to a duplicate index wins; add_at: duplicates accumulate
    (np.add.at); an index beyond its axis raises IndexError, as it does when reading."""
    x, index, values = data.draw(updates(WRITE_BOUNDS[indices], op), label="update")
    xp.check(op, x, index, values)


@input_classes("indices", WRITE_BOUNDS)
@given(data=st.data())
def test_item_assignment_mutates_in_place(xp, indices, data):
    """x[index] = values works on a NumPy array and changes it in place; an index beyond its axis raises IndexError."""
    x, index, values = data.draw(updates(WRITE_BOUNDS[indices]), label="update")
    xp.check("setitem", x, index, values)


KEYS = (
    "an integer",
    "a slice with a negative step",
    "an empty selection",
    "a boolean mask",
    "an integer array",
    "Ellipsis and None",
)


@st.composite
def assignment_key(draw, shape, kind: str):
    """A key of one kind into an array of ``shape`` (rank 1 or more, every side 1 or more)."""
    axis = draw(st.integers(0, len(shape) - 1), label="axis")
    side, before = shape[axis], (slice(None),) * axis
    if kind == "an integer":
        return before + (draw(st.integers(-side, side - 1), label="integer"),)
    if kind == "a slice with a negative step":
        start = draw(st.none() | st.integers(-side, side - 1), label="start")
        return before + (slice(start, None, -draw(st.integers(1, 2), label="step")),)
    if kind == "an empty selection":
        return before + (draw(st.sampled_from([slice(1, 1), slice(2, 0)]), label="empty slice"),)
    if kind == "a boolean mask":
        return draw(hnp.arrays(np.bool_, shape[: axis + 1]), label="mask")
    if kind == "an integer array":
        length = draw(st.integers(0, 3), label="length")
        return before + (draw(hnp.arrays(np.intp, (length,), elements=st.integers(-side, side - 1))),)
    leading = (Ellipsis, None)[: draw(st.integers(1, 2), label="items")]  # x[..., None, i]
    return leading + (draw(st.integers(-shape[-1], shape[-1] - 1), label="last axis"),)


@input_classes("key", KEYS)
@given(data=st.data())
def test_item_assignment_with_every_key_kind(xp, key, data):
    """x[key] = value writes the selection in place, for every kind of key (an integer, a slice
    stepping backwards, an empty selection, a boolean mask, an integer array, Ellipsis with None),
    value an array of the selection's shape (or one that broadcasts to it) or a Python scalar of x's
    kind (the standard: int, float, complex, bool where the dtype holds it)."""
    dtype = data.draw(st.sampled_from(("float32", "int32", "bool", "complex64")), label="dtype")
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=MAX_SIDE), label="shape")
    x = data.draw(arrays(dtype, shape, op="setitem"), label="x")
    index = data.draw(assignment_key(shape, key), label="key")
    selected = x[index].shape
    if data.draw(st.booleans(), label="a Python scalar"):
        value = {"float32": 2.5, "int32": 7, "bool": True, "complex64": 1 - 2j}[dtype]
    else:
        trailing = selected[data.draw(st.integers(0, len(selected)), label="value drops leading axes") :]
        value = data.draw(arrays(dtype, trailing, op="setitem"), label="value")
    xp.check("setitem", x, index, value)


@given(data=st.data())
def test_take_and_take_along_axis(xp, data):
    """take(x, i, axis) and take_along_axis(x, i, axis) select like NumPy."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=MAX_SIDE), label="shape")
    x = data.draw(arrays("int32", shape, op="take"), label="x")
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    side = shape[axis]
    flat = data.draw(
        hnp.arrays(np.intp, st.integers(0, 4), elements=st.integers(-side, side - 1)), label="take indices"
    )
    xp.check("take", x, flat, axis=axis)
    along_shape = shape[:axis] + (data.draw(st.integers(0, 3), label="along size"),) + shape[axis + 1 :]
    along = data.draw(
        hnp.arrays(np.intp, along_shape, elements=st.integers(0, side - 1)), label="along indices"
    )
    xp.check("take_along_axis", x, along, axis=axis)


@input_classes("indices", WRITE_BOUNDS)
@given(data=st.data())
def test_put_along_axis(xp, indices, data):
    """put_along_axis on a copy writes values at indices along an axis; the last of duplicate writes wins;
    an index beyond the axis raises IndexError."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1, max_side=MAX_SIDE), label="shape")
    x = data.draw(arrays("float32", shape, op="put_along_axis"), label="x")
    axis = data.draw(st.integers(0, len(shape) - 1), label="axis")
    side = shape[axis]
    along_shape = shape[:axis] + (data.draw(st.integers(1, 3), label="along size"),) + shape[axis + 1 :]
    along = data.draw(hnp.arrays(np.intp, along_shape, elements=st.integers(0, side - 1)), label="indices")
    if WRITE_BOUNDS[indices]:
        where = data.draw(
            st.tuples(*(st.integers(0, n - 1) for n in along_shape)), label="position out of bounds"
        )
        along[where] = data.draw(out_of_bounds(side), label="index out of bounds")
    values = data.draw(arrays("float32", along_shape, op="put_along_axis"), label="values")
    xp.check("put_along_axis", x, along, values, axis=axis)


SEED = np.arange(24).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "index",
    [
        (1, None, slice(1, 3), Ellipsis),
        (slice(None), (True, False, True)),
        (1, (0, 0, 1), backend_array([0, 1, 1])),
    ],
    ids=["x[1, newaxis, 1:3, ...]", "x[:, (True, False, True)]", "x[1, (0, 0, 1), asarray([0, 1, 1])]"],
)
def test_seed_examples(xp, index):
    """The indexing examples TensorFlow NumPy users start from, on arange(24).reshape(2, 3, 4)."""
    xp.check("getitem", SEED, index)


test_every_form_of_every_parameter = every_form("indexing")
