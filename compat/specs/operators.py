"""The array object's operators, as users write them (``x + 1``, ``2 ** x``, ``x //= y``,
``-x``, ``x @ w``, ``bool(x)``, ``x.T``, ``x[i] += v``), each judged against NumPy's same
operator (compat/core/table/operators.py: one operation per operator form).

- every operator form once per run on fixed operands (the table spec below), then by class:
- ``x op y`` for two arrays, over dtype pairs the operator's category allows, broadcast (a 0-d
  array beside an n-d one is the promotion family's own class);
- ``x op y`` and ``y op x`` with a Python bool, int, float or complex ``y`` (weak, NEP 50):
  out-of-range Python ints included (NumPy compares them exactly and refuses them in arithmetic);
- ``x op= y``: the result is written back into x, in x's dtype. NumPy casts it back under
  ``same_kind`` casting: a result of x's dtype, or one that narrows within its kind (int8 += int64,
  float32 += float64), is written; one of another kind (int32 += 1.5, bool |= int8) raises.
  What is judged is x after the statement, as the user's name x reads it: a framework whose
  arrays are immutable (JAX, TensorFlow) rebinds x to the promoted result, which is a divergence
  in dtype or error of its own (registered with their documentation), not hidden here;
- ``bool``/``int``/``float``/``complex``/``operator.index`` of 0-d arrays, of one-element arrays of
  more dimensions (NumPy still converts those), and of larger arrays (NumPy raises);
- unary operators and the attributes (T, mT, shape, ndim, size, dtype, device) on ranks 0 to 4;
- ``x[i] += v`` with duplicate indices (buffered: each adds once, the last write wins) and
  out-of-bounds ones (IndexError). JAX and TensorFlow arrays refuse item assignment (TypeError).

Operators on bfloat16 are left to the families that check its functions: NumPy has no bfloat16
of its own (it is ml_dtypes'), so its operators there are not NumPy's reference.
"""

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes, ops
from compat.core.domain import in_domain
from compat.core.strategies import (
    arrays,
    one_example_on_modes_and_devices,
    operation_classes,
    python_scalars,
    shapes,
)
from compat.specs.indexing import WRITE_BOUNDS, updates

pytestmark = one_example_on_modes_and_devices()

OPERATORS = [op for op in ops.TABLE if op.group == "operator"]
FORWARD = [op for op in OPERATORS if op.spelling.startswith("{0} ") and op.elementwise and not op.in_place]
REFLECTED = [op for op in OPERATORS if op.spelling.startswith("{1} ")]
IN_PLACE = [op for op in OPERATORS if op.in_place and op.index_arg is None and op.elementwise]
UNARY = [op for op in OPERATORS if op.arity == 1 and op.elementwise]
CONVERSIONS = [
    op for op in OPERATORS if op.arity == 1 and op.spelling.endswith("({0})") and not op.elementwise
]
ATTRIBUTES = [op for op in OPERATORS if "{0}." in op.spelling]
# the specs without input classes draw a quarter of the profile's examples (the table meets every form)
FEWER = settings(max_examples=max(10, settings.default.max_examples // 4))
QUARTER = 0.25  # the same share, for a spec with a param per operator form (operation_classes)


def names(forms) -> list[str]:
    return [op.name for op in forms]


def takes(op) -> list[str]:
    """The dtypes an operator's array operands take here: NumPy's domain, the standard's category
    and what NumPy computes beside it (``mask + 1``, ``mask < 1``); bfloat16 left out."""
    return [d for d in in_domain(op.name) if d != "bfloat16"]


def symbol(op) -> str:
    """The operator's symbol without its '=': '//' for __floordiv__, __rfloordiv__ and __ifloordiv__."""
    return op.spelling.split()[1].removesuffix("=") if op.arity == 2 else ""


def safe(op, value):
    """The right-hand operand (an array or a Python int) kept inside the rule the spec checks: no
    integer division by zero (the numerics family surveys it), shifts by 0 to 7 bits (C leaves
    larger and negative ones undefined)."""
    if symbol(op) in ("//", "%"):
        if isinstance(value, np.ndarray):
            return np.where(value == 0, np.ones_like(value), value) if value.dtype.kind in "iub" else value
        return 1 if type(value) is int and value == 0 else value
    if symbol(op) in ("<<", ">>"):
        return np.asarray(np.abs(value) % 8, value.dtype) if isinstance(value, np.ndarray) else abs(value) % 8
    return value


def moderate_scalars(kind: type, dtype: str):
    """Python scalars of a kind beside an array of ``dtype``: moderate, and for ints the edges of
    the dtype's range and beyond (floats beyond a dtype's range, or tiny ones that a narrower float
    computes differently, are the promotion family's)."""
    quarters = st.integers(-32, 32).map(lambda n: n / 4)  # not the precision of a narrower float
    if kind is float:
        return quarters
    if kind is complex:
        return st.builds(complex, quarters, quarters)
    return python_scalars(kind, dtype)


# -- every form, every run ------------------------------------------------------------


def further_rows():
    """(operator, operands) beyond each form's example: each conversion of a 0-d bool, int, float
    and complex array and of a larger one; each in-place operator with a result of another kind."""
    zero_d = [
        np.array(v, dtype=d)
        for v, d in ((True, "bool"), (-3, "int16"), (-2.5, "float64"), (1 - 2j, "complex64"))
    ]
    rows = [(op.name, (x,)) for op in CONVERSIONS for x in (*zero_d, np.arange(3.0))]
    rows += [(op.name, (op.example[0], 1.5 if "int" in str(op.example[0].dtype) else 1j)) for op in IN_PLACE]
    return rows


def test_every_operator_form(xp):
    """Every operator form gives NumPy's result (or NumPy's kind of error) on fixed operands: x op y,
    y op x with a Python scalar, x op= y (of x's kind, and of another kind: an error), unary
    operators, conversions of 0-d arrays (and of larger ones: an error), attributes, x[i] += v.
    Each form on its example on every row, modes and devices included; the further operands on
    a row's share of them."""
    for name, args in [(op.name, op.example) for op in OPERATORS] + xp.sample(further_rows()):
        xp.check(name, *args)


# -- binary operators ------------------------------------------------------------------

PAIRS = {
    "array op array": "arrays",
    "array op Python scalar": "forward",
    "Python scalar op array": "reflected",
}
BINARY_FORMS = {
    operands: names(REFLECTED if how == "reflected" else FORWARD) for operands, how in PAIRS.items()
}


@operation_classes("operands", BINARY_FORMS)
@given(data=st.data())
def test_binary_operators(xp, operands, op, data):
    """x op y has NumPy's dtype and values: two arrays promote by dtype and broadcast; a Python
    scalar on either side is weak (it takes the array's dtype, and an int beyond it is an
    OverflowError in arithmetic but compares exactly). Each operator form of each class is a param
    of its own (on a mode or device row, the row's share of a class's forms), on operands drawn
    for it (its value facts: negative ones for // and %)."""
    binary_operator(xp, ops.get(op), PAIRS[operands], data)


def binary_operator(xp, op, operands: str, data) -> None:
    dtype = data.draw(st.sampled_from(takes(op)), label="x dtype")
    if operands == "arrays":
        shape_x, shape_y = data.draw(
            hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=3),
            label="shapes",
        ).input_shapes
        x = data.draw(arrays(dtype, shape_x, op=op.name), label="x")
        y_dtype = data.draw(st.sampled_from(takes(op)), label="y dtype")
        y = data.draw(arrays(y_dtype, shape_y, op=op.name), label="y")
        xp.check(op.name, x, safe(op, y))
        return
    x = data.draw(arrays(dtype, shapes(max_dims=2), op=op.name), label="x")
    kind = data.draw(st.sampled_from([bool, int, float, complex]), label="scalar kind")
    scalar = data.draw(moderate_scalars(kind, dtype), label="scalar")
    if operands == "reflected":  # the array is the divisor, the shift, the exponent
        xp.check(op.name, safe(op, x), scalar)
    else:
        xp.check(op.name, x, safe(op, scalar))


# -- in place ---------------------------------------------------------------------------

REPRESENTATIVE = {"py:bool": True, "py:int": 3, "py:float": 1.5, "py:complex": 1j}


def in_place_class(x: str, y: str) -> str:
    """What NumPy does when x op= y writes the result back into x (``same_kind`` casting)."""
    result = np.result_type(
        dtypes.to_numpy(x), REPRESENTATIVE[y] if y in REPRESENTATIVE else dtypes.to_numpy(y)
    )
    if result == dtypes.to_numpy(x):
        return "keeps x's dtype"
    return "narrows within its kind" if np.can_cast(result, x, "same_kind") else "changes the kind (an error)"


IN_PLACE_CLASSES = ("keeps x's dtype", "narrows within its kind", "changes the kind (an error)")


@functools.cache
def in_place_pairs(name: str, wanted: str) -> list[tuple[str, str]]:
    """The (x dtype, y dtype or Python kind) of an in-place operator in one class."""
    op = ops.get(name)
    return [
        (x, y) for x in takes(op) for y in (*takes(op), *REPRESENTATIVE) if in_place_class(x, y) == wanted
    ]


@operation_classes(
    "result",
    {result: [o.name for o in IN_PLACE if in_place_pairs(o.name, result)] for result in IN_PLACE_CLASSES},
)
@given(data=st.data())
def test_in_place_operators(xp, result, op, data):
    """x op= y leaves x with NumPy's values in x's dtype: written back when the result keeps x's
    dtype or narrows within its kind, a TypeError when it would change the kind (int32 += 1.5).
    Each in-place form of each class is a param of its own (a mode or device row, its share)."""
    in_place_operator(xp, ops.get(op), result, data)


def in_place_operator(xp, op, result: str, data) -> None:
    x_dtype, y_kind = data.draw(st.sampled_from(in_place_pairs(op.name, result)), label="dtypes")
    shape = data.draw(shapes(max_dims=2), label="shape")
    x = data.draw(arrays(x_dtype, shape, op=op.name), label="x")
    if y_kind in REPRESENTATIVE:
        kind = {"py:bool": bool, "py:int": int, "py:float": float, "py:complex": complex}[y_kind]
        y = data.draw(
            moderate_scalars(kind, x_dtype).filter(lambda v: not isinstance(v, int) or abs(v) <= 8),
            label="y",
        )
        y = safe(op, y)
    else:  # y broadcasts to x's shape (the result must keep x's shape)
        trailing = shape[data.draw(st.integers(0, len(shape)), label="y drops leading axes") :]
        y = safe(op, data.draw(arrays(y_kind, trailing, op=op.name), label="y"))
    xp.check(op.name, x, y)


# -- conversions, unary operators, attributes -----------------------------------------

SIZES = {"0-d": (0, 0, 1), "one element, 1-d or more": (1, 3, 1), "several elements": (1, 2, 3)}


@operation_classes("size", {size: names(CONVERSIONS) for size in SIZES})
@given(data=st.data())
def test_conversions_to_python_numbers(xp, size, op, data):
    """bool(x), int(x), float(x), complex(x) and operator.index(x) give NumPy's Python number for a
    0-d array (int toward zero; TypeError for complex to int or float, and for index of a non-integer
    dtype), still convert one-element arrays, and raise for arrays of several elements; each
    conversion of each size a param of its own."""
    min_dims, max_dims, side = SIZES[size]
    shape = data.draw(
        shapes(min_dims=min_dims, max_dims=max_dims, min_side=side, max_side=side), label="shape"
    )
    dtype = data.draw(st.sampled_from([d for d in dtypes.available() if d != "bfloat16"]), label="dtype")
    xp.check(op, data.draw(arrays(dtype, shape), label="x"))


@operation_classes(None, names(UNARY), share=QUARTER)
@given(data=st.data())
def test_unary_operators(xp, op, data):
    """-x, +x, ~x and abs(x) keep NumPy's dtype and values (abs of complex is real); each form a
    param of its own."""
    dtype = data.draw(st.sampled_from(takes(ops.get(op))), label="dtype")
    xp.check(op, data.draw(arrays(dtype, shapes(max_dims=3), op=op), label="x"))


@operation_classes(None, names(ATTRIBUTES), share=QUARTER)
@given(data=st.data())
def test_attributes(xp, op, data):
    """x.T reverses the axes, x.mT swaps the last two (an error below 2-d), x.shape is a tuple of
    ints, x.ndim and x.size ints, x.dtype the dtype, x.device present; on ranks 0 to 4; each
    attribute a param of its own."""
    dtype = data.draw(st.sampled_from([d for d in dtypes.available() if d != "bfloat16"]), label="dtype")
    shape = data.draw(shapes(min_dims=0, max_dims=4, min_side=0, max_side=3), label="shape")
    xp.check(op, data.draw(arrays(dtype, shape, op=op), label="x"))


@FEWER
@given(data=st.data())
def test_matmul_operator(xp, data):
    """x @ y: 1-d operands are promoted to matrices and the added axis removed, batch axes
    broadcast; x @= y where the result keeps x's shape (square matrices)."""
    dtype = data.draw(st.sampled_from(takes(ops.get("__matmul__"))), label="dtype")
    n, k, m = (data.draw(st.integers(0, 3), label=side) for side in "nkm")
    batch = data.draw(shapes(min_dims=0, max_dims=2, max_side=2), label="batch")
    left = data.draw(st.sampled_from([(k,), (*batch, n, k)]), label="x shape")
    right = data.draw(st.sampled_from([(k,), (*batch, k, m)]), label="y shape")
    xp.check(
        "__matmul__", data.draw(arrays(dtype, left), label="x"), data.draw(arrays(dtype, right), label="y")
    )
    square = data.draw(arrays(dtype, (*batch, k, k)), label="square")
    xp.check("__imatmul__", square, data.draw(arrays(dtype, (k, k)), label="w"))


# -- x[i] += v, x[i] -= v --------------------------------------------------------------

ITEM_UPDATES = ("__setitem_iadd__", "__setitem_isub__")


@operation_classes("indices", {bounds: list(ITEM_UPDATES) for bounds in WRITE_BOUNDS})
@given(data=st.data())
def test_item_in_place_add_and_subtract(xp, indices, op, data):
    """x[i] += v and x[i] -= v are NumPy's buffered x[i] = x[i] + v: of duplicate indices each
    counts once (the last write wins), an index beyond its axis raises IndexError; each form a
    param of its own."""
    x, index, values = data.draw(updates(WRITE_BOUNDS[indices], op), label="update")
    xp.check(op, x, index, values)
