"""Hypothesis strategies shared by the specs, built on hypothesis.extra.numpy.

Values are drawn from a *moderate* domain by default (small integers, finite
normal floats of modest size) so that a promotion or broadcasting spec sees
type and shape behaviour, not overflow noise; specs that are about edges
(scalars out of range, NaN) ask for them explicitly. Subnormals are left out
of the moderate domain: whether they are flushed to zero is a property of the
device and compiler (XLA on CPU flushes them), not of promotion rules.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core import dtypes, facts, ops
from compat.core.params import (  # noqa: F401  (the specs' params, imported from here too)
    examples,
    input_classes,
    one_example_on_modes_and_devices,
    operation_classes,
    operation_params,
)

SMALL = 8  # moderate values lie in [-SMALL, SMALL]


def dtype_names(names=None) -> st.SearchStrategy[str]:
    """Canonical dtype names NumPy can hold here (bfloat16 only with ml_dtypes)."""
    available = dtypes.available()
    return st.sampled_from([n for n in (names or dtypes.ALL) if n in available])


def moderate_elements(name: str) -> st.SearchStrategy:
    if name == "bool":
        return st.booleans()
    if name in dtypes.UNSIGNED:
        return st.integers(0, SMALL)
    if name in dtypes.SIGNED:
        return st.integers(-SMALL, SMALL)
    if name in dtypes.COMPLEX:
        part = st.floats(-SMALL, SMALL, width=32, allow_subnormal=False)
        return st.builds(complex, part, part)
    # bfloat16 values are drawn as float16 (both hold small floats), then rounded on cast
    return st.floats(
        -SMALL, SMALL, width=16 if name in ("float16", "bfloat16") else 32, allow_subnormal=False
    )


def arrays(
    name: str, shape, elements: st.SearchStrategy | None = None, op: str | None = None
) -> st.SearchStrategy[np.ndarray]:
    """NumPy arrays of a canonical dtype (bfloat16 included) and a shape (or shape strategy); for the
    operation ``op``, arrays that show what it does (its value facts, ``Op.values``:
    compat.core.facts), in every example the dtype and shape allow."""
    shown = ops.get(op).values if op is not None else ()
    if shown:
        return facts.showing(name, shape, elements, shown, moderate_elements(name), SMALL)
    elements = elements if elements is not None else moderate_elements(name)
    if name == "bfloat16":
        return hnp.arrays(np.float32, shape, elements=elements).map(
            lambda a: a.astype(dtypes.to_numpy("bfloat16"))
        )
    return hnp.arrays(dtypes.to_numpy(name), shape, elements=elements)


def shapes(min_dims=0, max_dims=3, min_side=1, max_side=3) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


# A few shapes of each rank, for specs whose rule is the dtypes' (promotion): a backend that
# compiles each operation per shape (JAX, XLA) then compiles it for a few, not for every shape
# drawn. 0-d, a single element and more than one, and a trailing axis of 1 are the cases a dtype
# rule has been seen to depend on (0-d arrays promote as arrays, not as scalars).
FEW_SHAPES = ((), (1,), (3,), (2, 3), (2, 1, 3))


def few_shapes(min_dims: int = 0, max_dims: int = 2) -> st.SearchStrategy[tuple[int, ...]]:
    return st.sampled_from([s for s in FEW_SHAPES if min_dims <= len(s) <= max_dims])


def dtype_range(name: str) -> tuple[int, int]:
    info = np.iinfo(dtypes.to_numpy(name))
    return int(info.min), int(info.max)


def python_scalars(kind: type, array_dtype: str) -> st.SearchStrategy:
    """Python scalars of one kind to combine with an array of ``array_dtype``:
    moderate values, plus (for int) values just outside the array dtype's range,
    negative values for unsigned arrays, and values beyond int32/int64."""
    if kind is bool:
        return st.booleans()
    if kind is int:
        edges = [-1, 2**31, -(2**31) - 1, 2**63 - 1, 2**63]
        if array_dtype in dtypes.INTEGER:
            low, high = dtype_range(array_dtype)
            edges += [low - 1, high + 1, low, high]
        return st.integers(-SMALL, SMALL) | st.sampled_from(sorted(set(edges)))
    if kind is float:
        return st.floats(-SMALL, SMALL, allow_subnormal=False) | st.sampled_from([1e10, -1e10, 1e300])
    part = st.floats(-SMALL, SMALL, allow_subnormal=False)
    return st.builds(complex, part, part)


def in_category(takes: str, names=None) -> list[str]:
    """The dtypes (of ``names``, default all NumPy holds here) in the standard's category ``takes``."""
    return [
        n for n in (names or dtypes.available()) if n in dtypes.CATEGORIES[takes] and n in dtypes.available()
    ]


RANK_RELATIONS = {
    2: {"first lower": 0, "second lower": 1, "equal ranks": None},
    3: {"first lower": 0, "second lower": 1, "third lower": 2, "equal ranks": None},
}


@st.composite
def ranked_broadcastable_shapes(
    draw, num_shapes: int, lowest: int | None, max_dims: int = 6, min_side: int = 0, max_side: int = 3
):
    """Mutually broadcastable shapes in which operand ``lowest`` has a lower rank than
    every other operand (None: all ranks equal). Drawn by hypothesis'
    mutually_broadcastable_shapes, then the other operands get leading dimensions
    (the result's size there, or 1) until the relation holds."""
    drawn = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=num_shapes, max_dims=max_dims - 1, min_side=min_side, max_side=max_side
        ),
        label="shapes",
    )
    shapes = [list(s) for s in drawn.input_shapes]
    result = list(drawn.result_shape)
    new_side = draw(st.integers(min_side, max_side), label="new leading size")

    def pad(shape: list, rank: int) -> list:
        while len(shape) < rank:
            from_right = len(shape)
            size = result[-1 - from_right] if from_right < len(result) else new_side
            shape.insert(0, draw(st.sampled_from([size, 1]), label="leading size"))
        return shape

    if lowest is None:
        rank = max(len(s) for s in shapes)
        shapes = [pad(s, rank) for s in shapes]
    else:
        rank = len(shapes[lowest]) + 1
        shapes = [s if n == lowest else pad(s, rank) for n, s in enumerate(shapes)]
    return [tuple(s) for s in shapes]


def dtype_pairs(names=None) -> list[tuple[str, str]]:
    names = [n for n in (names or dtypes.ALL) if n in dtypes.available()]
    return list(itertools.product(names, repeat=2))


# -- contractions by class ------------------------------------------------------------
#
# matmul's rule (PEP 465, the standard's matmul) has cases of its own: a 1-d first operand gets a
# dimension prepended and a 1-d second one a dimension appended (each removed again), two 1-d
# operands give their inner product, batch dimensions broadcast, and any dimension may be 0.
# tensordot contracts the last N axes of x1 with the first N of x2 (axes=N), or the axes it is
# given (a pair of sequences, negative ones counting from the end); vecdot contracts one axis,
# counted from the end, and broadcasts the others.

MATMUL_CLASSES = ("1-d first", "1-d second", "both 1-d", "batch dimensions broadcast", "size-0 dimension")
TENSORDOT_CLASSES = ("axes int", "axes pair")
VECDOT_CLASSES = ("last axis", "another axis", "1-d operands")


@st.composite
def matmul_shapes(draw, operands: str, max_side: int = 3) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shapes of matmul's two operands, in one class of MATMUL_CLASSES."""
    m, k, n = (draw(st.integers(1, max_side), label=label) for label in ("m", "k", "n"))
    batch = tuple(draw(st.lists(st.integers(1, max_side), max_size=2), label="batch"))
    if operands == "1-d first":
        return (k,), batch + (k, n)
    if operands == "1-d second":
        return batch + (m, k), (k,)
    if operands == "both 1-d":
        return (k,), (k,)
    if operands == "batch dimensions broadcast":
        first, second = draw(
            hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=3, max_side=max_side).filter(
                lambda drawn: drawn.input_shapes[0] != drawn.input_shapes[1]
            ),
            label="batch shapes",
        ).input_shapes
        return first + (m, k), second + (k, n)
    left, right = list(batch + (m, k)), list(batch + (k, n))
    empty = draw(st.sampled_from(["m", "k", "n"] + ["batch"] * bool(batch)), label="size-0 dimension")
    if empty == "batch":  # 0 in the first operand's batch dimension, 0 or 1 (stretched to 0) in the second's
        at = draw(st.integers(0, len(batch) - 1), label="batch axis")
        left[at], right[at] = 0, draw(st.sampled_from([0, 1]), label="second's size there")
    elif empty == "m":
        left[-2] = 0
    elif empty == "k":
        left[-1] = right[-2] = 0
    else:
        right[-1] = 0
    return tuple(left), tuple(right)


@st.composite
def tensordot_operands(draw, axes_class: str, max_side: int = 3):
    """(shape of x1, shape of x2, axes) for tensordot in one class of TENSORDOT_CLASSES; sizes may be 0."""
    sides = st.lists(st.integers(0, max_side), max_size=2)
    contracted = draw(sides, label="contracted sizes")
    free1, free2 = draw(sides, label="x1's other sizes"), draw(sides, label="x2's other sizes")
    if axes_class == "axes int":
        return tuple(free1 + contracted), tuple(contracted + free2), len(contracted)
    shapes, pairs = [], []
    for free in (free1, free2):
        rank = len(free) + len(contracted)
        where = draw(st.permutations(range(rank)), label="axis positions")[: len(contracted)]
        shape = list(free)
        for position, size in sorted(zip(where, contracted)):
            shape.insert(position, size)
        negative = draw(st.lists(st.booleans(), min_size=len(where), max_size=len(where)), label="negative")
        pairs.append(tuple(p - rank if minus else p for p, minus in zip(where, negative)))
        shapes.append(tuple(shape))
    return shapes[0], shapes[1], (pairs[0], pairs[1])


@st.composite
def vecdot_operands(draw, axis_class: str, max_side: int = 3):
    """(shape of x1, shape of x2, axis) for vecdot in one class of VECDOT_CLASSES: the contracted
    axis (size 0 included) has one size in both, the others broadcast."""
    k = draw(st.integers(0, max_side), label="contracted size")
    if axis_class == "1-d operands":
        return (k,), (k,), -1
    min_dims = 1 if axis_class == "another axis" else 0
    first, second = draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=2, min_dims=min_dims, max_dims=3, min_side=0, max_side=max_side
        ),
        label="other dimensions",
    ).input_shapes
    axis = -1
    if axis_class == "another axis":
        axis = -draw(st.integers(2, min(len(first), len(second)) + 1), label="axis from the end")

    def with_axis(shape):
        at = len(shape) + axis + 1
        return shape[:at] + (k,) + shape[at:]

    return with_axis(first), with_axis(second), axis


# -- differentiable programs (the gradient spec) -----------------------------
#
# A program is built bottom-up on concrete inputs: every node's value is
# computed in float64 as the tree grows, so each operation is only placed
# where it is smooth with a margin (log of values > 0.1, no ties in max, no
# kinks of abs or maximum near the point) and values stay moderate. Where a
# drawn operation does not fit, a safe one (tanh, add, sum) takes its place,
# so Hypothesis never has to reject an example and shrinks towards tanh.

BOUND = 100.0  # |values| stay below this, so float32 rounding stays small against the margins
UNARY = ops.smooth("unary")  # op -> where it is smooth (compat.core.ops), simplest first
BINARY = ops.smooth("binary")
REDUCTIONS = ops.smooth("reduction")
KINDS = ("leaf", "unary", "binary", "reduction", "structure", "matmul", "where")


def evaluate(op: str, *args, **kwargs):
    """``op`` in NumPy: the operation's shared Python (getitem) or NumPy's function."""
    return (ops.get(op).python or getattr(np, op))(*args, **kwargs)


class _Builder:
    """Grows one program; ``values`` of nodes are float64 NumPy results."""

    def __init__(self, draw, dtype: str, inputs: list[np.ndarray], max_inputs: int):
        from compat.core.programs import Node

        self.Node, self.draw, self.dtype = Node, draw, dtype
        self.inputs, self.max_inputs = inputs, max_inputs
        self.constants: list[np.ndarray] = []

    def constant(self, array: np.ndarray):
        self.constants.append(array)
        return self.Node("const", slot=len(self.constants) - 1)

    def leaf(self):
        slot = self.draw(st.integers(0, len(self.inputs) - 1), label="input")
        return self.Node("input", slot=slot), self.inputs[slot].astype(np.float64)

    def apply(self, op, children, values, params=(), kwargs=()):
        with np.errstate(all="ignore"):
            value = np.asarray(evaluate(op, *values, *params, **dict(kwargs)), dtype=np.float64)
        return self.Node(op, tuple(children), tuple(params), tuple(kwargs)), value

    def moderate(self, value) -> bool:
        return bool(np.all(np.isfinite(value)) and np.all(np.abs(value) < BOUND))

    def node(self, depth: int):
        kind = self.draw(st.sampled_from(KINDS), label="node") if depth > 0 else "leaf"
        if kind == "leaf":
            return self.leaf()
        child, value = self.node(depth - 1)
        made = getattr(self, kind)(child, value, depth)
        if made is not None and self.moderate(made[1]):
            return made
        return self.apply("tanh", [child], [value])

    def unary(self, child, value, depth):
        op = self.draw(st.sampled_from(list(UNARY)), label="unary op")
        return self.apply(op if UNARY[op](value) else "tanh", [child], [value])

    def binary(self, child, value, depth):
        other, other_value = self.node(depth - 1)
        try:
            np.broadcast_shapes(value.shape, other_value.shape)
        except ValueError:  # operands that do not broadcast meet through a sum of the second
            other, other_value = self.apply("sum", [other], [other_value])
        op = self.draw(st.sampled_from(list(BINARY)), label="binary op")
        a, b = np.broadcast_arrays(value, other_value)
        return self.apply(op if BINARY[op](a, b) else "add", [child, other], [value, other_value])

    def reduction(self, child, value, depth):
        op = self.draw(st.sampled_from(list(REDUCTIONS)), label="reduction")
        axis = self.draw(st.none() | st.integers(0, value.ndim - 1), label="axis") if value.ndim else None
        keepdims = self.draw(st.booleans(), label="keepdims")
        if not REDUCTIONS[op](value, axis):
            op = "sum"
        return self.apply(op, [child], [value], kwargs=(("axis", axis), ("keepdims", keepdims)))

    def structure(self, child, value, depth):
        how = self.draw(
            st.sampled_from(["getitem", "reshape", "transpose", "broadcast_to"]), label="structure"
        )
        if how == "reshape":
            return self.apply("reshape", [child], [value], params=(tuple(reversed(value.shape)),))
        if how == "transpose":
            if (
                value.ndim < 2
            ):  # tnp.transpose(x, ()) fails in graph mode (vectorized_map): a tf.function matter, noted
                return None
            axes = tuple(self.draw(st.permutations(range(value.ndim)), label="axes"))
            return self.apply("transpose", [child], [value], params=(axes,))
        if how == "broadcast_to":
            shape = (self.draw(st.integers(1, 2), label="new leading size"),) + value.shape
            return self.apply("broadcast_to", [child], [value], params=(shape,))
        if value.ndim == 0:
            return None
        # slices step forward: negative steps are torch's indexing divergence, the indexing family's business
        indices = [
            hnp.basic_indices(value.shape, allow_newaxis=True, allow_ellipsis=True).filter(_forward_steps)
        ]
        if value.shape[0]:  # integer arrays need a first axis to point into (a slice can leave it empty)
            indices.append(
                st.lists(st.integers(-value.shape[0], value.shape[0] - 1), min_size=1, max_size=4).map(
                    np.array
                )
            )
        index = self.draw(st.one_of(*indices), label="index")
        return self.Node("getitem", (child,), params=(index,)), value[index]

    def matmul(self, child, value, depth):
        """child @ W with a new input W (a layer's weights), or a constant W."""
        if value.ndim == 0:
            return None
        shape = (value.shape[-1], self.draw(st.integers(1, 3), label="matmul columns"))
        weights = self.draw(arrays(self.dtype, shape, elements=program_elements(self.dtype)), label="weights")
        if len(self.inputs) < self.max_inputs:
            self.inputs.append(weights)
            w = self.Node("input", slot=len(self.inputs) - 1)
        else:  # the program's inputs are fixed (per-example gradients, jacobians): constant weights
            w = self.constant(weights)
        return self.apply("matmul", [child, w], [value, weights.astype(np.float64)])

    def where(self, child, value, depth):
        other, other_value = self.node(depth - 1)
        try:
            shape = np.broadcast_shapes(value.shape, other_value.shape)
        except ValueError:
            return None
        mask = self.draw(hnp.arrays(np.bool_, shape), label="where mask")
        return self.apply("where", [self.constant(mask), child, other], [mask, value, other_value])


def _forward_steps(index) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(not isinstance(i, slice) or i.step is None or i.step > 0 for i in items)


def _inputs_of(node) -> set[int]:
    return {node.slot} if node.op == "input" else set().union(*(_inputs_of(a) for a in node.args))


def program_elements(dtype: str) -> st.SearchStrategy[float]:
    return st.floats(-2, 2, width=32 if dtype == "float32" else 64, allow_subnormal=False)


@st.composite
def programs(draw, dtype: str, max_depth: int = 4, max_inputs: int = 3, scalar: bool = True, shapes=None):
    """A random differentiable program of float inputs (``compat.core.programs.Program``).

    ``scalar``: the result is reduced to one number as ``sum(tree * weights)``
    with constant random weights (so a gradient is a vector-Jacobian product
    with a generic cotangent, not just ones). ``shapes`` fixes the input
    shapes (default: 1-2 mutually broadcastable shapes of up to 3 dims).
    """
    from compat.core.programs import Node, Program

    if shapes is None:
        count = draw(st.integers(1, 2), label="inputs")
        shapes = draw(
            hnp.mutually_broadcastable_shapes(num_shapes=count, max_dims=3, max_side=3), label="shapes"
        ).input_shapes
    inputs = [
        draw(arrays(dtype, s, elements=program_elements(dtype)), label=f"x{i}") for i, s in enumerate(shapes)
    ]
    builder = _Builder(draw, dtype, inputs, max_inputs)
    root, value = builder.node(draw(st.integers(1, max_depth), label="depth"))
    for slot in sorted(set(range(len(builder.inputs))) - _inputs_of(root)):  # every input takes part
        unused = builder.apply("sum", [Node("input", slot=slot)], [builder.inputs[slot].astype(np.float64)])
        root, value = builder.apply("add", [root, unused[0]], [value, unused[1]])
    if scalar:
        weights = draw(arrays(dtype, value.shape, elements=program_elements(dtype)), label="cotangent")
        root, value = builder.apply("multiply", [root, builder.constant(weights)], [value, weights])
        root, value = builder.apply("sum", [root], [value])
    return Program(root, tuple(builder.inputs), tuple(builder.constants))


LINALG = ops.smooth("linalg")  # linalg function -> where it is smooth (compat.core.table.linalg)


def smooth_operand(shape: tuple, dtype: str, noise: np.ndarray) -> np.ndarray:
    """A matrix (batch) where every linalg function is smooth: distinct diagonal entries 2, 4, 6, ...
    plus a tenth of ``noise`` (|noise| <= 2), far from the perturbation's size (a vector: 2, 4, ...)."""
    diagonal = np.zeros(shape)
    if len(shape) < 2:
        diagonal = 2.0 * np.arange(1, diagonal.size + 1).reshape(shape)
    else:
        k = np.arange(min(shape[-2:]))
        diagonal[..., k, k] = 2.0 * (k + 1)
    return (diagonal + 0.1 * noise).astype(dtype)


def symmetrized(node, value):
    """(x + x^T) / 2: the Hermitian matrix a function on Hermitian matrices is given, so that its
    gradient is the same whichever triangle (or both) a framework reads."""
    from compat.core.programs import Node

    return Node(
        "multiply",
        (Node("add", (node, Node("matrix_transpose", (node,)))), Node("const", slot=0)),
    ), (value + np.swapaxes(value, -1, -2)) / 2


@st.composite
def linalg_programs(draw, dtype: str):
    """``sum(weights * f(x0[, x1]))`` for a linalg function ``f`` smooth where it is defined
    (``Op.smooth``; its smooth part where it returns a tuple, ``Op.smooth_part``), its operand drawn
    in that domain: a (batch of) 1-3 x 1-3 matrix of elements in [-2, 2], or, where ``f`` is not smooth
    there, the diagonal matrix of ``smooth_operand`` with a tenth of it. A function of Hermitian
    matrices (``Op.hermitian``) gets ``(x0 + x0^T) / 2``; solve's right-hand side is drawn freely."""
    from compat.core.programs import Node, Program

    name = draw(st.sampled_from(sorted(LINALG)), label="linalg function")
    op, smooth = ops.get(name), LINALG[name]
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2), label="batch")
    n = draw(st.integers(1, 3), label="n")
    shapes = [batch + (n, n), batch + (draw(st.integers(1, 3), label="m"), n), (n,)]
    # the shapes it is defined on: square matrices, any matrices, vectors
    defined = [s for s in shapes if smooth(smooth_operand(s, "float64", np.zeros(s)))]
    shape = draw(st.sampled_from(defined), label="shape")
    x = draw(arrays(dtype, shape, elements=program_elements(dtype)), label="x0")
    operand, constants = Node("input", slot=0), []
    if op.hermitian:
        constants.append(np.array(0.5, dtype=dtype))

    def prepared(x):
        return symmetrized(operand, x.astype(np.float64)) if op.hermitian else (operand, x.astype(np.float64))

    node, value = prepared(x)
    if not smooth(value):
        x = smooth_operand(shape, dtype, x.astype(np.float64))
        node, value = prepared(x)
    inputs, args = [x], [node]
    if op.arity == 2:  # solve: A X = B, B of the batch's shape and 1-2 columns
        b_shape = shape[:-1] + (draw(st.integers(1, 2), label="columns"),)
        inputs.append(draw(arrays(dtype, b_shape, elements=program_elements(dtype)), label="x1"))
        args.append(Node("input", slot=1))
    root = Node(name, tuple(args))
    assert smooth(value), f"{name} is smooth on its fallback operand"
    result = getattr(np.linalg, name)(value, *[i.astype(np.float64) for i in inputs[1:]])
    if op.smooth_part is not None:
        root, result = Node("getitem", (root,), params=(op.smooth_part,)), result[op.smooth_part]
    weights = draw(arrays(dtype, np.shape(result), elements=program_elements(dtype)), label="cotangent")
    constants.append(weights)
    root = Node("sum", (Node("multiply", (root, Node("const", slot=len(constants) - 1))),))
    return Program(root, tuple(inputs), tuple(constants))


def smooth_at(program, inputs) -> bool:
    """Whether ``program`` at ``inputs`` keeps every operation inside the
    domain the builder placed it in (for reusing a program on new inputs)."""
    constants = [np.asarray(k) for k in program.constants]

    def value(node):
        if node.op == "input":
            return np.asarray(inputs[node.slot], dtype=np.float64)
        if node.op == "const":
            return constants[node.slot]
        args = [value(a) for a in node.args]
        kwargs = dict(node.kwargs)
        if node.op in UNARY and not UNARY[node.op](args[0]):
            raise ArithmeticError
        if node.op in BINARY and not BINARY[node.op](*np.broadcast_arrays(*args)):
            raise ArithmeticError
        if node.op in REDUCTIONS and not REDUCTIONS[node.op](args[0], kwargs.get("axis")):
            raise ArithmeticError
        with np.errstate(all="ignore"):
            result = np.asarray(evaluate(node.op, *args, *node.params, **kwargs))
        if result.dtype.kind == "f" and not (np.all(np.isfinite(result)) and np.all(np.abs(result) < BOUND)):
            raise ArithmeticError
        return result

    try:
        value(program.root)
    except ArithmeticError:
        return False
    return True
