"""Searching and sorting: the order the standard fixes where values tie or are not numbers.

- ``sort`` and ``argsort`` along any axis (negative ones too), ascending and descending: NaN
  after every number ascending and before every number descending (NaN counts as the largest,
  as NumPy's ascending sort read backwards gives it); equal elements, -0.0 and 0.0 among them,
  keep their order where ``stable=True``; with ``stable=False`` they may come in any order, so
  an unstable ``argsort`` is judged by what it must satisfy (``Op.canonical``: the indices sort
  x), not index by index;
- ``argmax`` and ``argmin``: the first of tied extremes, the first NaN where there is one,
  with ``axis`` None, an int or a negative int, and ``keepdims``;
- ``searchsorted`` with ``side=`` left and right (both in every example), a ``sorter``, values
  equal to elements of x1, and a Python scalar as x2;
- ``nonzero`` (0-d arrays raise) and ``count_nonzero`` with ``axis`` None, an int, a tuple and
  a negative int: -0.0 is zero, NaN is not.

Values come from a few small numbers, so that every lane has ties; the classes each rule
distinguishes are drawn in turn (``input_classes``) or checked in every example, so that a
default run meets each of them under every seed.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core.strategies import arrays, input_classes, one_example_on_modes_and_devices
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

# Every example of these specs meets the class it is drawn for (the value, order or axis its
# rule turns on is planted, not hoped for): half the profile's examples suffice, 5 a class at least
EVERY_EXAMPLE_MEETS_ITS_CLASS = 0.5

FLOATS = ("float32", "float64")  # few dtypes and shapes: JAX and XLA compile each anew
INTEGERS = ("int32", "uint8")
FEW = (-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0)  # few values: ties everywhere, and both zeros
LOWEST, HIGHEST = min(FEW), max(FEW)


def elements(dtype: str) -> st.SearchStrategy:
    if dtype in INTEGERS:
        return st.sampled_from([int(abs(v)) if dtype == "uint8" else int(v) for v in FEW])
    return st.sampled_from(FEW)


@st.composite
def with_lane(
    draw, dtype: str, axis_kind: str, op: str, min_dims: int = 1, max_dims: int = 2, least: int = 2
):
    """An array of ``dtype`` and an axis of the kind asked for ("none", "int", "negative"); the
    axis (the flattened array for "none") holds at least ``least`` elements. Returns (x, axis, lane):
    ``lane`` is a view of the array's first lane along the axis, for the caller to plant values in."""
    shape = list(draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=3)))
    if axis_kind == "none":
        axis = None
        shape[-1] = max(shape[-1], least)
    else:
        axis = draw(st.integers(0, len(shape) - 1), label="axis")
        shape[axis] = max(shape[axis], least)
        axis = axis - len(shape) if axis_kind == "negative" else axis
    x = draw(arrays(dtype, tuple(shape), elements=elements(dtype), op=op), label="x")
    lane = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)[(0,) * (x.ndim - 1)]
    return x, axis, lane


def plant(draw, lane: np.ndarray, *values) -> None:
    """Each of ``values`` at a different place of the lane (as many as it holds)."""
    places = draw(st.permutations(range(lane.size)), label="places")
    for place, value in zip(places, values):
        lane[place] = value


SORT_CLASSES = ("NaN, ascending", "NaN, descending", "numbers, ascending", "numbers, descending")


@input_classes("case", SORT_CLASSES, EVERY_EXAMPLE_MEETS_ITS_CLASS)
@given(data=st.data())
def test_sort_and_argsort_order_nan_and_ties(xp, case, data):
    """sort(x, axis, descending, stable) and argsort: NaN last ascending and first descending;
    ties (-0.0 and 0.0 too) in their order where stable; the indices sort x where not."""
    nan = case.startswith("NaN")
    dtype = data.draw(st.sampled_from(FLOATS if nan else FLOATS + INTEGERS), label="dtype")
    axis_kind = data.draw(st.sampled_from(["int", "negative"]))
    # a lane of three beside NaN: room for a NaN and a tie, or for tied NaNs and a number
    x, axis, lane = data.draw(with_lane(dtype, axis_kind, "sort", least=3 if nan else 2))
    if nan:
        plant(data.draw, lane, *[np.nan] * data.draw(st.integers(1, lane.size - 1), label="NaNs"))
        numbers = lane[~np.isnan(lane)]
        if numbers.size >= 2 and np.unique(numbers).size == numbers.size:  # a tie among the numbers too
            where = np.flatnonzero(~np.isnan(lane))
            lane[where[1]] = lane[where[0]]
    kwargs = dict(axis=axis, descending=case.endswith("descending"), stable=data.draw(st.booleans()))
    xp.check("sort", x, **kwargs)
    xp.check("argsort", x, **kwargs)


EXTREMA_CLASSES = ("ties, axis None", "ties, an axis", "NaN, a negative axis")


@input_classes("case", EXTREMA_CLASSES, EVERY_EXAMPLE_MEETS_ITS_CLASS)
@given(data=st.data())
def test_argmax_and_argmin_take_the_first_of_ties(xp, case, data):
    """argmax and argmin give the index of the first largest (smallest) element, the first NaN
    where there is one, for axis None (of the flattened x), an int and a negative int."""
    nan = case.startswith("NaN")
    dtype = data.draw(st.sampled_from(FLOATS if nan else FLOATS + INTEGERS), label="dtype")
    axis_kind = {"axis None": "none", "an axis": "int", "a negative axis": "negative"}[case.split(", ")[1]]
    x, axis, lane = data.draw(with_lane(dtype, axis_kind, "argmax"))
    if nan:
        plant(data.draw, lane, np.nan, np.nan)
    else:  # the largest twice in the first lane, and the smallest twice where it has room
        lowest = 0 if dtype == "uint8" else LOWEST
        plant(data.draw, lane, HIGHEST, HIGHEST, lowest, lowest)
    keepdims = data.draw(st.booleans(), label="keepdims")
    xp.check("argmax", x, axis=axis, keepdims=keepdims)
    xp.check("argmin", x, axis=axis, keepdims=keepdims)


@settings(max_examples=max(5, round(settings.default.max_examples * EVERY_EXAMPLE_MEETS_ITS_CLASS / 4)))
@given(data=st.data())
def test_searchsorted_with_side_and_sorter(xp, data):
    """searchsorted(x1, x2, side, sorter): where each x2 goes into sorted x1 (before equal
    elements for side='left', after them for 'right'; NaN after every number); x1 sorted by
    ``sorter`` where given; x2 an array or a Python scalar."""
    dtype = data.draw(st.sampled_from(FLOATS + INTEGERS[:1]), label="dtype")
    x1 = data.draw(
        arrays(dtype, st.sampled_from((2, 5)), elements=elements(dtype), op="searchsorted"), label="x1"
    )
    if dtype in FLOATS and data.draw(st.booleans(), label="NaN in x1"):
        x1[data.draw(st.integers(0, x1.size - 1))] = np.nan
    kwargs = {}
    if data.draw(st.booleans(), label="sorter"):
        kwargs["sorter"] = np.argsort(x1, stable=True)
    else:
        x1 = np.sort(x1)
    scalar = data.draw(st.booleans(), label="scalar x2")
    x2 = (
        data.draw(st.sampled_from(FEW).map(float if dtype in FLOATS else int), label="x2")
        if scalar
        else data.draw(arrays(dtype, st.sampled_from(((), (3,), (2, 2))), elements(dtype)), label="x2")
    )
    for side in ("left", "right"):  # both, in every example
        xp.check("searchsorted", x1, x2, side=side, **kwargs)


@input_classes("axis", ("None", "an int", "a tuple", "a negative int"), EVERY_EXAMPLE_MEETS_ITS_CLASS)
@given(data=st.data())
def test_nonzero_and_count_nonzero(xp, axis, data):
    """nonzero(x): one index array per axis (a 0-d x raises); count_nonzero(x, axis, keepdims)
    for axis None, an int, a tuple and a negative int. -0.0 is zero; NaN is not."""
    dtype = data.draw(st.sampled_from(("bool",) + FLOATS + INTEGERS), label="dtype")
    shape = data.draw(
        hnp.array_shapes(min_dims=0 if axis == "None" else 1, max_dims=2, min_side=0, max_side=3),
        label="shape",
    )
    values = st.booleans() if dtype == "bool" else elements(dtype)
    if dtype in FLOATS:
        values = values | st.just(np.nan)
    x = data.draw(arrays(dtype, shape, elements=values), label="x")
    if axis == "None":
        xp.check("nonzero", x)
        chosen = None
    elif axis == "a tuple":
        axes = st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True)
        chosen = tuple(data.draw(axes, label="axes"))
    else:
        chosen = data.draw(st.integers(0, x.ndim - 1), label="axis")
        chosen = chosen - x.ndim if axis == "a negative int" else chosen
    xp.check("count_nonzero", x, axis=chosen, keepdims=data.draw(st.booleans(), label="keepdims"))


test_every_form_of_every_parameter = every_form("sorting")
