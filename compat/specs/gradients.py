"""Gradients: autodiff against the derivative itself and across frameworks.

Random differentiable programs (``compat.core.strategies.programs``: expression
trees of depth up to 4 over elementwise, broadcasting, reduction, matmul,
where, indexing and reshaping operations, kept inside each operation's smooth
domain) run in every autodiff backend. A gradient has its input's shape
(broadcast inputs get reduced gradients) and dtype, and the values of the
float64 finite-difference derivative (reference ``numpy-fd``) within its
error estimate; each framework is also compared with the gradient reference
framework (reference: its id), so a user sees whether a framework is wrong
or merely different.

At non-smooth and special points there is no right answer, only a
convention: those cases are surveyed (``observation`` records, shown as a
table in the report), not judged.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from compat.core.programs import Node, Program
from compat.core.strategies import arrays, linalg_programs, program_elements, programs, smooth_at

FLOATS = ["float32", "float64"]
# the transforms beyond grad cost several gradients per example; they get a quarter of the examples
FEWER = settings(max_examples=max(10, settings.default.max_examples // 4))


small_shapes = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)


@pytest.mark.compat_requires("grad")
@pytest.mark.parametrize("dtype", FLOATS)
@given(data=st.data())
def test_gradient_of_random_programs(xp, dtype, data):
    """grad(f)(x0, x1, ...) has each input's shape and dtype and the derivative's values."""
    program = data.draw(programs(dtype), label="program")
    xp.check_gradient("grad", program, *program.inputs)


@pytest.mark.compat_requires("grad")
@pytest.mark.parametrize("dtype", FLOATS)
@settings(max_examples=max(20, settings.default.max_examples // 2))  # JAX traces each program anew
@given(data=st.data())
def test_gradient_of_linear_algebra(xp, dtype, data):
    """grad of sum(w * f(x)) has the derivative's values for each linalg function f that is smooth
    where it is defined (det, slogdet's log|det|, inv, solve, cholesky, eigh's eigenvalues, eigvalsh,
    svdvals, the norms), x drawn there: well-conditioned, (symmetric) positive definite, separated
    eigenvalues or singular values, away from zero (compat.core.strategies.linalg_programs)."""
    program = data.draw(linalg_programs(dtype), label="program")
    xp.check_gradient("grad", program, *program.inputs)


@pytest.mark.compat_requires("jacobian")
@pytest.mark.parametrize("dtype", FLOATS)
@FEWER
@given(data=st.data())
def test_jacobian_of_random_programs(xp, dtype, data):
    """jacobian(f)(x) of an array-valued f has shape f(x).shape + x.shape and the derivative's values."""
    shape = data.draw(small_shapes, label="shape")
    program = data.draw(
        programs(dtype, max_depth=3, max_inputs=1, scalar=False, shapes=[shape]), label="program"
    )
    xp.check_gradient("jacobian", program, *program.inputs)


@pytest.mark.compat_requires("per_example_grad")
@pytest.mark.parametrize("dtype", FLOATS)
@FEWER
@given(data=st.data())
def test_per_example_gradients(xp, dtype, data):
    """A batched per-example gradient (vmap(grad), vectorized_map) equals the gradient of each example."""
    params_shape, example_shape = (
        data.draw(small_shapes, label="params shape"),
        data.draw(small_shapes, label="example shape"),
    )
    program = data.draw(
        programs(dtype, max_depth=3, max_inputs=2, shapes=[params_shape, example_shape]), label="program"
    )
    params, example = program.inputs
    more = data.draw(
        st.lists(arrays(dtype, example_shape, elements=program_elements(dtype)), max_size=3),
        label="more examples",
    )
    batch = np.stack(
        [example] + [e for e in more if smooth_at(program, (params, e))]
    )  # the program was built smooth at the first
    xp.check_gradient("per_example_grad", program, params, batch)


@pytest.mark.compat_requires("hvp")
@pytest.mark.parametrize("dtype", FLOATS)
@FEWER
@given(data=st.data())
def test_hessian_vector_products(xp, dtype, data):
    """hvp(f)(x, v) is the derivative of grad(f) along v."""
    shape = data.draw(small_shapes, label="shape")
    program = data.draw(programs(dtype, max_depth=3, max_inputs=1, shapes=[shape]), label="program")
    v = data.draw(arrays(dtype, shape, elements=program_elements(dtype)), label="v")
    xp.check_gradient("hvp", program, program.inputs[0], v)


# -- conventions at non-smooth and special points (a survey) ----------------


def x(slot=0):
    return Node("input", slot=slot)


def c(slot):
    return Node("const", slot=slot)


def call(op, *args, params=(), **kwargs):
    return Node(op, tuple(args), tuple(params), tuple(kwargs.items()))


def total(node):
    return call("sum", node)


def f32(*values):
    return np.array(values, dtype=np.float32)


# row -> (program, which input's gradient is shown)
CONVENTIONS = {
    "abs(x) at x=0": (Program(total(call("abs", x())), (f32(0.0),)), 0),
    "maximum(x, 0) (relu) at x=0": (Program(total(call("maximum", x(), c(0))), (f32(0.0),), (f32(0.0),)), 0),
    "minimum(x, 0) at x=0": (Program(total(call("minimum", x(), c(0))), (f32(0.0),), (f32(0.0),)), 0),
    "maximum(x, y) at x=y: d/dx": (Program(total(call("maximum", x(0), x(1))), (f32(1.0), f32(1.0))), 0),
    "max(x) with ties x=[1, 1, 0]": (Program(call("max", x()), (f32(1.0, 1.0, 0.0),)), 0),
    "min(x) with ties x=[0, 0, 1]": (Program(call("min", x()), (f32(0.0, 0.0, 1.0),)), 0),
    "max(x, axis=0) with ties x=[[1, 2], [1, 0]]": (
        Program(total(call("max", x(), axis=0)), (f32(1, 2, 1, 0).reshape(2, 2),)),
        0,
    ),
    "sqrt(x) at x=0": (Program(total(call("sqrt", x())), (f32(0.0),)), 0),
    "norm(x) at x=0": (Program(call("norm", x()), (f32(0.0, 0.0),)), 0),
    "clip(x, 0, 1) at x=0": (
        Program(total(call("clip", x(), c(0), c(1))), (f32(0.0),), (f32(0.0), f32(1.0))),
        0,
    ),
    "clip(x, 0, 1) at x=1": (
        Program(total(call("clip", x(), c(0), c(1))), (f32(1.0),), (f32(0.0), f32(1.0))),
        0,
    ),
    "floor(x) at x=0.5": (Program(total(call("floor", x())), (f32(0.5),)), 0),
    "round(x) at x=0.3": (Program(total(call("round", x())), (f32(0.3),)), 0),
    "sign(x) at x=0.5": (Program(total(call("sign", x())), (f32(0.5),)), 0),
    "where(x > 0, sqrt(x), 0) at x=-1 (NaN in the untaken branch)": (
        Program(
            total(call("where", call("greater", x(), c(0)), call("sqrt", x()), c(0))),
            (f32(-1.0),),
            (f32(0.0),),
        ),
        0,
    ),
    "where(x > 0, log(x), 0) at x=0 (-inf in the untaken branch)": (
        Program(
            total(call("where", call("greater", x(), c(0)), call("log", x()), c(0))), (f32(0.0),), (f32(0.0),)
        ),
        0,
    ),
    "power(x, y) at x=0, y=2: d/dy": (Program(total(call("power", x(0), x(1))), (f32(0.0), f32(2.0))), 1),
    "power(x, 0.5) at x=0": (Program(total(call("power", x(), c(0))), (f32(0.0),), (f32(0.5),)), 0),
    "log(x) at x=0": (Program(total(call("log", x())), (f32(0.0),)), 0),
}

NON_DIFFERENTIABLE = {
    "int32 input": (Program(total(call("multiply", x(), x())), (np.array([1, 2], np.int32),)), 0),
    "bool input": (Program(total(call("logical_not", x())), (np.array([True], np.bool_),)), 0),
    "complex64: d/dz of |z|^2 at z=1+2j": (
        Program(
            total(call("real", call("multiply", x(), call("conj", x())))), (np.array([1 + 2j], np.complex64),)
        ),
        0,
    ),
    "complex64: d/dz of real(w*z), w=3+4j, at z=1+2j": (
        Program(
            total(call("real", call("multiply", c(0), x()))),
            (np.array([1 + 2j], np.complex64),),
            (np.array([3 + 4j], np.complex64),),
        ),
        0,
    ),
}


# where NumPy raises IndexError, JAX clamps a read to the last (first) element and drops an
# out-of-bounds update: its gradient flows to the clamped element, and none to the dropped values
OUT_OF_BOUNDS = {
    "x[3] of x = [1, 2, 3] (a read beyond the end)": (
        Program(total(call("getitem", x(), params=(3,))), (f32(1, 2, 3),)),
        0,
    ),
    "x[-4] of x = [1, 2, 3] (a read before the start)": (
        Program(total(call("getitem", x(), params=(-4,))), (f32(1, 2, 3),)),
        0,
    ),
    "x[[0, 5]] of x = [1, 2, 3] (a gather with an index beyond the end)": (
        Program(total(call("getitem", x(), params=(np.array([0, 5]),))), (f32(1, 2, 3),)),
        0,
    ),
    "add_at(x, [0, 5], y): d/dy (an update with an index beyond the end)": (
        Program(total(call("add_at", x(0), c(0), x(1))), (f32(1, 2, 3), f32(10, 20)), (np.array([0, 5]),)),
        1,
    ),
}


@pytest.mark.compat_requires("grad")
@pytest.mark.parametrize(
    "table, cases",
    [
        ("gradient conventions", CONVENTIONS),
        ("gradients of non-float inputs", NON_DIFFERENTIABLE),
        ("gradients where an index leaves the array", OUT_OF_BOUNDS),
    ],
    ids=["conventions", "non-float", "out of bounds"],
)
def test_gradient_conventions_survey(xp, table, cases):
    """Survey, not judgement: what each framework's gradient is where the derivative is undefined,
    the input is not a real float (int, bool, complex), or an index leaves the array (NumPy
    raises; JAX clamps reads and drops updates)."""
    for row, (program, shown) in cases.items():
        xp.observe(table, row, xp.survey.gradient_of(program, shown))
