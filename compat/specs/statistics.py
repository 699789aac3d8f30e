"""Statistics: ``var`` and ``std`` with ``correction``, reductions of empty arrays, cumulative
sums and products with ``include_initial``, ``all`` and ``any``, and ``diff``.

- ``var(x, axis, correction, keepdims)`` is the sum of squared deviations from the mean over
  ``n - correction`` (an int or a float correction), ``std`` its square root; both judged by
  their accumulation bound (compat.core.table.statistical: n * eps * sum(x**2), whichever way
  a backend computes them);
- empty reductions: ``sum`` is 0, ``prod`` 1, ``mean``, ``var`` and ``std`` NaN, ``all`` True,
  ``any`` False, ``count_nonzero`` 0;
- ``cumsum`` and ``cumprod`` (the standard's ``cumulative_sum`` and ``cumulative_prod``)
  with ``include_initial``: the empty sum (0) or product (1) first, one element longer;
- ``all`` and ``any``: NaN is true, -0.0 is false;
- ``diff(x, axis, n, prepend, append)``: n-th differences after prepend and before append;
- the NaN-ignoring reductions the frameworks have beside the standard (``nansum``, ``nanmean``,
  ``nanmax``, ``nanargmin``, ``nanvar``, ``nancumsum``, ...): the plain reduction over the
  elements that are not NaN, and NumPy's answer for a lane that is all NaN.

Reductions take ``axis`` None, an int, a tuple and a negative int: each spec checks every
kind in every example, or draws them in turn (``input_classes``).
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from compat.core import ops
from compat.core.strategies import arrays, input_classes, one_example_on_modes_and_devices
from compat.specs._forms import every_form

pytestmark = one_example_on_modes_and_devices()

# Every example of these specs meets the class it is drawn for (the value, order or axis its
# rule turns on is planted, not hoped for): half the profile's examples suffice, 5 a class at least
EVERY_EXAMPLE_MEETS_ITS_CLASS = 0.5

FLOATS = ("float32", "float64")
FEW = (-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, 3.0)


def axes(x: np.ndarray, kind: str):
    """An axis of the kind named, for x (which has a dimension wherever the kind needs one)."""
    if kind == "None":
        return st.none()
    if kind == "a tuple":
        return st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True).map(tuple)
    if kind == "a negative int":
        return st.integers(-x.ndim, -1)
    return st.integers(0, x.ndim - 1)


AXES = ("None", "an int", "a tuple", "a negative int")
CORRECTIONS = {"None": 0, "an int": 1, "a tuple": 0.5, "a negative int": 1.5}  # integer and float each twice


# var and std, all and any: both on each example (every row meets both), half the examples
@input_classes("axis", AXES, EVERY_EXAMPLE_MEETS_ITS_CLASS / 2)
@given(data=st.data())
def test_var_and_std_with_correction(xp, axis, data):
    """var(x, axis, correction, keepdims) and std: squared deviations from the mean over
    n - correction, for an int and a float correction and axis None, an int, a tuple and a
    negative int; NaN anywhere in a reduced lane makes its result NaN."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    values = st.sampled_from(FEW) | st.floats(-8, 8, width=32)
    x = data.draw(arrays(dtype, st.sampled_from(((3,), (2, 3), (3, 2, 2))), values), label="x")
    if data.draw(st.booleans(), label="a NaN"):
        x.reshape(-1)[data.draw(st.integers(0, x.size - 1), label="where")] = np.nan
    kwargs = dict(
        axis=data.draw(axes(x, axis), label="axis"),
        correction=CORRECTIONS[axis],
        keepdims=data.draw(st.booleans(), label="keepdims"),
    )
    for op in ("var", "std"):
        xp.check(op, x, **kwargs)


# (operation, shape, axis): each reduction of an empty array, over every axis and over one
EMPTY = [
    (op, shape, axis)
    for op in ("sum", "prod", "mean", "var", "std", "all", "any", "count_nonzero")
    for shape, axis in (((0,), None), ((2, 0), 1), ((0, 3), -1))
]


def test_reductions_of_empty_arrays(xp):
    """Of nothing, sum is 0, prod 1, mean, var and std NaN, all True, any False and
    count_nonzero 0. A reduction over a non-empty axis of an empty
    array is an empty array."""
    for op, shape, axis in xp.sample(EMPTY):
        xp.check(op, np.zeros(shape, dtype=np.float32), axis=axis)


@input_classes("axis", ("None", "an int", "a negative int"), EVERY_EXAMPLE_MEETS_ITS_CLASS)
@given(data=st.data())
def test_cumulative_sum_and_product_with_include_initial(xp, axis, data):
    """cumsum(x, axis, include_initial) and cumprod: the running sum (product) along the axis
    (axis None: of the flattened x), with the empty sum 0 (product 1) first where
    include_initial, one element longer along the axis; of an empty axis, that one element."""
    dtype = data.draw(st.sampled_from((*FLOATS, "int32")), label="dtype")
    elements = st.sampled_from(FEW) if dtype in FLOATS else st.integers(-3, 3)
    x = data.draw(arrays(dtype, st.sampled_from(((3,), (0,), (2, 3), (2, 0))), elements=elements), label="x")
    chosen = data.draw(axes(x, axis), label="axis")
    xp.check("cumsum", x, axis=chosen, include_initial=True)  # and cumprod, with or without its 1
    xp.check("cumprod", x, axis=chosen, include_initial=data.draw(st.booleans(), label="include_initial"))


@input_classes("axis", AXES, EVERY_EXAMPLE_MEETS_ITS_CLASS / 2)
@given(data=st.data())
def test_all_and_any(xp, axis, data):
    """all(x, axis, keepdims) and any: whether every (some) element is true along the axis;
    NaN is true, -0.0 false, and empty lanes give True (False)."""
    dtype = data.draw(st.sampled_from(("bool", *FLOATS, "int32")), label="dtype")
    elements = {"bool": st.booleans(), "int32": st.sampled_from((0, 0, 1, -2))}.get(
        dtype, st.sampled_from((*FEW, np.nan, 0.0, -0.0))
    )
    x = data.draw(arrays(dtype, st.sampled_from(((3,), (2, 3), (2, 0), (2, 1, 2))), elements), label="x")
    kwargs = dict(axis=data.draw(axes(x, axis), label="axis"), keepdims=data.draw(st.booleans()))
    for op in ("all", "any"):
        xp.check(op, x, **kwargs)


@input_classes(
    "case", ("n 1, a negative axis", "n 2 or more, prepend and append"), EVERY_EXAMPLE_MEETS_ITS_CLASS / 2
)
@given(data=st.data())
def test_diff_with_prepend_and_append(xp, case, data):
    """diff(x, axis, n, prepend, append): the n-th differences along the axis of prepend, x and
    append joined there (each the shape of x but along the axis); n beyond the length gives an
    empty axis."""
    dtype = data.draw(st.sampled_from((*FLOATS, "int32")), label="dtype")
    elements = st.sampled_from(FEW) if dtype in FLOATS else st.integers(-8, 8)
    x = data.draw(arrays(dtype, st.sampled_from(((4,), (2, 3))), elements), label="x")
    if case.startswith("n 1"):
        xp.check("diff", x, axis=data.draw(st.integers(-x.ndim, -1), label="axis"), n=1)
        return
    axis = data.draw(st.integers(0, x.ndim - 1), label="axis")
    around = {}
    for name in ("prepend", "append"):
        shape = list(x.shape)
        shape[axis] = data.draw(st.integers(1, 2), label=f"{name} length")
        around[name] = data.draw(arrays(dtype, tuple(shape), elements), label=name)
    xp.check("diff", x, axis=axis, n=data.draw(st.integers(2, 4), label="n"), **around)


NAN_REDUCTIONS = ops.select(group="nan reduction")
NAN_LANES = ("some NaNs", "an all-NaN lane")


def nan_kwargs(op: str, x: np.ndarray, data) -> dict:
    """The arguments ``op`` takes, drawn: axis None, an int or (where its plain reduction takes one)
    a tuple; keepdims; ddof 0 or 1."""
    one_axis = op.startswith(("nancum", "nanarg"))  # as cumsum and argmax: no tuple of axes
    kinds = ("None", "an int", "a negative int") if one_axis else AXES
    kwargs = {"axis": data.draw(axes(x, data.draw(st.sampled_from(kinds), label="axis kind")), label="axis")}
    if "keepdims" in ops.get(op).params:
        kwargs["keepdims"] = data.draw(st.booleans(), label="keepdims")
    if "ddof" in ops.get(op).params:
        kwargs["ddof"] = data.draw(st.integers(0, 1), label="ddof")
    return kwargs


@input_classes("nans", NAN_LANES, EVERY_EXAMPLE_MEETS_ITS_CLASS / 2)
@given(data=st.data())
def test_nan_ignoring_reductions(xp, nans, data):
    """nansum, nanprod, nanmean, nanmax, nanmin, nanargmax, nanargmin, nanvar, nanstd, nancumsum
    and nancumprod reduce as their plain reductions over the elements that are not NaN (a sum
    counts a NaN as 0, a product as 1; a mean divides by the number of the others); of a lane that
    is all NaN, NumPy's answer: nansum 0, nanprod 1, nanmean, nanmax, nanvar NaN, nanargmax
    ValueError. Each example checks every one the row has."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    x = data.draw(arrays(dtype, st.sampled_from(((4,), (2, 3), (3, 2, 2))), st.sampled_from(FEW)), label="x")
    lanes = x.reshape(-1, x.shape[-1])
    lanes[
        data.draw(st.integers(0, lanes.shape[0] - 1), label="lane"),
        data.draw(st.integers(0, x.shape[-1] - 1), label="where"),
    ] = np.nan
    if nans == "an all-NaN lane":
        lanes[data.draw(st.integers(0, lanes.shape[0] - 1), label="all-NaN lane")] = np.nan
    for op in NAN_REDUCTIONS:
        xp.check(op, x, **nan_kwargs(op, x, data))


# the extremes a reduction's rule distinguishes, each planted in a lane: an infinity (the sum, the
# mean, the largest are it), both infinities (their sum is NaN), a NaN (every reduction of its lane
# is NaN, argmax and argmin its index: the first), a zero among factors with an infinity (the
# product is NaN in any order) and factors of magnitude 1 or more that overflow (infinite in any order)
EXTREMES = {
    "an infinity": (np.inf,),
    "both infinities": (np.inf, -np.inf),
    "a NaN beside an infinity": (np.nan, np.inf, -np.inf),
    "zero times an infinity": (0.0, np.inf),
    "factors that overflow": ("huge", "huge"),
}
REDUCTIONS = ("sum", "prod", "mean", "max", "min", "cumsum", "cumprod")
ARG_REDUCTIONS = ("argmax", "argmin")


@input_classes("extremes", EXTREMES, EVERY_EXAMPLE_MEETS_ITS_CLASS / 2)
@given(data=st.data())
def test_reductions_of_infinities_nan_and_overflow(xp, extremes, data):
    """The reductions (sum, prod, mean, max, min, cumsum, cumprod) and arg-reductions (argmax,
    argmin) of a lane holding the class's extremes, over axis None and an int: inf + -inf is NaN,
    a NaN wins, 0 * inf is NaN, factors beyond the largest finite value overflow to inf; argmax and
    argmin give the first NaN, else the first infinity."""
    dtype = data.draw(st.sampled_from(FLOATS), label="dtype")
    shape = data.draw(st.sampled_from(((4,), (2, 3), (3, 2))), label="shape")
    x = data.draw(arrays(dtype, shape, st.sampled_from(FEW[4:] + (2.0, 4.0))), label="x")
    huge = float(np.sqrt(np.finfo(x.dtype).max)) * 2  # two of them overflow
    lane = x.reshape(-1) if x.ndim == 1 else x[0]
    places = data.draw(st.permutations(range(lane.size)), label="places")
    for place, value in zip(places, EXTREMES[extremes]):
        lane[place] = huge if value == "huge" else value
    if extremes == "factors that overflow":  # every factor at least 1: any order overflows
        x[...] = np.where(np.abs(x) < 1, 1.0, x)
    axis = data.draw(st.sampled_from([None, x.ndim - 1]), label="axis")
    for op in xp.sample(REDUCTIONS + ARG_REDUCTIONS, least=3):
        xp.check(op, x, axis=axis)


test_every_form_of_every_parameter = every_form("statistics")
