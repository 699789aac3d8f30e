"""Broadcasting: NumPy's rule that shapes align from the right and size-1
dimensions stretch, for elementwise operations, where, broadcast_to,
broadcast_shapes, matmul's operand ranks and batch dimensions, the axes tensordot
and vecdot contract, and keepdims reductions.

Values are small integers stored in float32 (exact arithmetic), so any value
difference is a broadcasting difference, not rounding.
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes, ops
from compat.core.strategies import (
    MATMUL_CLASSES,
    RANK_RELATIONS,
    TENSORDOT_CLASSES,
    VECDOT_CLASSES,
    arrays,
    input_classes,
    matmul_shapes,
    operation_params,
    ranked_broadcastable_shapes,
    tensordot_operands,
    vecdot_operands,
)

ELEMENTWISE = ops.names("add", "multiply", "maximum", "less")  # one arithmetic, one selecting, one comparison
# every other elementwise function of two arrays, with a share of the examples
EVERY_OTHER = [op for op in ops.elementwise_functions(arity=2) if op not in ELEMENTWISE]
MAX_DIMS = 6
MAX_SIDE = 3


def exact_dtype(op: str) -> str:
    """The dtype op's operands are drawn in: float32 where its category holds it, else int32, else bool."""
    return next(d for d in ("float32", "int32", "bool") if d in dtypes.CATEGORIES[ops.get(op).takes])


def exact_arrays(shape, dtype: str = "float32", op: str | None = None):
    """Small integers (0 to 4 for ints: a shift's count is never negative), exact in any dtype, as
    the operation ``op`` wants them shown (compat.core.strategies.arrays)."""
    if dtype == "bool":
        return arrays("bool", shape, op=op)
    if dtype == "int32":
        return arrays("int32", shape, elements=st.integers(0, 4), op=op)
    moves = op is not None and "distinct" in ops.get(op).values  # its own distinct halves, exact too
    return arrays(dtype, shape, elements=None if moves else st.integers(-4, 4).map(float), op=op)


def broadcastable_shapes(num_shapes):
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes, max_dims=MAX_DIMS, min_side=0, max_side=MAX_SIDE
    )


@st.composite
def incompatible_shapes(draw, num_shapes=2):
    """Shapes that do not broadcast: one dimension made to conflict (sizes >= 2 that differ)."""
    shapes = [
        list(s)
        for s in draw(
            hnp.mutually_broadcastable_shapes(num_shapes=num_shapes, min_dims=1, max_dims=4, max_side=3)
        ).input_shapes
    ]
    which = draw(st.integers(0, num_shapes - 1), label="which operand")
    other = (which + 1) % num_shapes
    shapes[other] = shapes[other] or [1]
    shapes[which] = shapes[which] or [1]
    axis = draw(st.integers(1, min(len(shapes[which]), len(shapes[other]))), label="axis from the right")
    size = shapes[other][-axis]
    shapes[which][-axis] = draw(
        st.sampled_from([n for n in (2, 3, 4) if n != size]), label="conflicting size"
    )
    if shapes[other][-axis] == 1:
        shapes[other][-axis] = draw(st.sampled_from([n for n in (2, 3, 4) if n != shapes[which][-axis]]))
    return [tuple(s) for s in shapes]


def ranked_shapes(num_shapes, ranks):
    """Broadcastable shapes in a rank relation: one operand of lower rank than the others, or equal ranks."""
    return ranked_broadcastable_shapes(
        num_shapes, RANK_RELATIONS[num_shapes][ranks], max_dims=MAX_DIMS, max_side=MAX_SIDE
    )


def check_two_operands(xp, op: str, ranks: str, data) -> None:
    shapes = data.draw(ranked_shapes(2, ranks), label="shapes")
    dtype = exact_dtype(op)
    a, b = (data.draw(exact_arrays(s, dtype, op=op), label=f"operand {i}") for i, s in enumerate(shapes))
    xp.check(op, a, b)


@pytest.mark.parametrize("op", ELEMENTWISE)
@input_classes("ranks", RANK_RELATIONS[2])
@given(data=st.data())
def test_elementwise_operands_broadcast(xp, op, ranks, data):
    """op(a, b) has shape broadcast(a.shape, b.shape) and NumPy's values, whichever operand has the lower rank."""
    check_two_operands(xp, op, ranks, data)


@pytest.mark.parametrize("op", operation_params(EVERY_OTHER, ()))
@given(data=st.data())
def test_every_elementwise_function_broadcasts(xp, op, data):
    """The same for every other elementwise function of two arrays (shifts, logical and bitwise
    operations, atan2, hypot, ...), each drawing which operand has the lower rank."""
    check_two_operands(xp, op, data.draw(st.sampled_from(list(RANK_RELATIONS[2])), label="ranks"), data)


@pytest.mark.parametrize("op", ops.names("where", "clip"))
@input_classes("ranks", RANK_RELATIONS[3])
@given(data=st.data())
def test_three_operands_broadcast(xp, op, ranks, data):
    """where(cond, x, y) and clip(x, lo, hi) broadcast all three operands together, whichever has the lower rank."""
    first, second, third = data.draw(ranked_shapes(3, ranks), label="shapes")
    if op == "where":
        cond = data.draw(arrays("bool", first), label="condition")
        xp.check(
            "where",
            cond,
            data.draw(exact_arrays(second, op="where"), label="x"),
            data.draw(exact_arrays(third, op="where"), label="y"),
        )
    else:
        x = data.draw(exact_arrays(first), label="x")
        lo = data.draw(arrays("float32", second, elements=st.just(-2.0)), label="lo")
        hi = data.draw(arrays("float32", third, elements=st.just(2.0)), label="hi")
        xp.check("clip", x, lo, hi)


@given(shapes=st.integers(2, 4).flatmap(broadcastable_shapes))
def test_broadcast_shapes_of_compatible_shapes(xp, shapes):
    """broadcast_shapes(*shapes) is the NumPy result shape, for 2 to 4 shapes."""
    xp.check("broadcast_shapes", *shapes.input_shapes)


@given(shapes=incompatible_shapes())
def test_incompatible_shapes_raise(xp, shapes):
    """Elementwise operations on shapes that do not broadcast raise (error parity with NumPy)."""
    assume(all(n > 0 for s in shapes for n in s))
    xp.check("add", *(np.zeros(s, dtype=np.float32) for s in shapes))


@given(shapes=incompatible_shapes())
def test_broadcast_shapes_of_incompatible_shapes_raise(xp, shapes):
    """broadcast_shapes raises for shapes that do not broadcast."""
    xp.check("broadcast_shapes", *shapes)


@given(data=st.data())
def test_broadcast_to(xp, data):
    """broadcast_to(x, shape) works exactly when x's shape broadcasts to shape (NumPy's one-way rule)."""
    target = data.draw(
        hnp.array_shapes(min_dims=0, max_dims=MAX_DIMS, min_side=0, max_side=MAX_SIDE), label="target"
    )
    compatible = data.draw(st.booleans(), label="compatible")
    if compatible:
        shape = data.draw(
            hnp.broadcastable_shapes(target, max_dims=len(target), min_side=0, max_side=MAX_SIDE),
            label="shape",
        )
    else:
        shape = data.draw(
            hnp.array_shapes(min_dims=0, max_dims=MAX_DIMS, min_side=0, max_side=MAX_SIDE), label="shape"
        )
    xp.check("broadcast_to", data.draw(exact_arrays(shape, op="broadcast_to"), label="x"), target)


@input_classes("operands", MATMUL_CLASSES)
@given(data=st.data())
def test_matmul_operands_by_rank(xp, operands, data):
    """matmul: a 1-D first operand gets a dimension prepended, a 1-D second one a dimension appended
    (each removed again), two 1-D operands give their inner product, batch dimensions broadcast,
    and a size-0 dimension gives an empty result (or zeros, where it is the contracted one)."""
    shapes = data.draw(matmul_shapes(operands), label="shapes")
    a, b = (data.draw(exact_arrays(s), label=f"operand {i}") for i, s in enumerate(shapes))
    xp.check("matmul", a, b)


@input_classes("axes", TENSORDOT_CLASSES, share=0.5)
@given(data=st.data())
def test_tensordot_contracts_the_given_axes(xp, axes, data):
    """tensordot(x1, x2, axes=N) contracts the last N axes of x1 with the first N of x2;
    axes=(a1, a2) the axes named, negative ones counted from the end. The result's axes are
    x1's others, then x2's."""
    first, second, contracted = data.draw(tensordot_operands(axes), label="operands")
    a, b = data.draw(exact_arrays(first), label="x1"), data.draw(exact_arrays(second), label="x2")
    xp.check("tensordot", a, b, axes=contracted)


@input_classes("axis", VECDOT_CLASSES, share=0.5)
@given(data=st.data())
def test_vecdot_contracts_one_axis_and_broadcasts_the_others(xp, axis, data):
    """vecdot(x1, x2, axis) sums x1's conjugate times x2 along axis (counted from the end);
    the other dimensions broadcast."""
    first, second, along = data.draw(vecdot_operands(axis), label="operands")
    a, b = data.draw(exact_arrays(first), label="x1"), data.draw(exact_arrays(second), label="x2")
    xp.check("vecdot", a, b, axis=along)


@pytest.mark.parametrize("op", ops.names("sum", "max", "mean"))
@given(data=st.data())
def test_reduction_with_keepdims_broadcasts_back(xp, op, data):
    """op(x, axis, keepdims=True) keeps size-1 axes, so x - op(x, ...) broadcasts back to x.shape."""
    x = data.draw(
        exact_arrays(hnp.array_shapes(min_dims=1, max_dims=MAX_DIMS, min_side=1, max_side=MAX_SIDE)),
        label="x",
    )
    axis = data.draw(
        st.none()
        | st.integers(-x.ndim, x.ndim - 1)
        | st.lists(st.integers(0, x.ndim - 1), min_size=1, unique=True).map(tuple),
        label="axis",
    )
    reduced = xp.check(op, x, axis=axis, keepdims=True)
    if not reduced.raised:
        xp.check("subtract", x, np.asarray(getattr(np, op)(x, axis=axis, keepdims=True)))
