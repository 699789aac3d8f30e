"""The array object's operators: x + y, 2 ** x, x += y, -x, x @ y, bool(x), x.T, x[i] += v, ...

Users write operators, not functions, and a framework's operator path is not always its
function's (a tensor // a Python scalar, in-place promotion, comparisons with out-of-range
Python ints). Each operator form is an operation of group "operator" whose ``python`` is the
operator itself, the same Python for every backend, and whose ``spelling`` is how records'
reproducers write it (``{0} + {1}``: x0 + 1). Names follow Python's methods:

- ``__add__``: x + y, y an array or a Python scalar;
- ``__radd__``: y + x, y a Python scalar on the left (Python calls x.__radd__(y)); comparisons
  have no reflected methods (2 < x calls x.__gt__(2)) but are named the same way (``__rlt__``);
- ``__iadd__``: x += y, in place: x keeps its dtype, and a promotion that would change it is an
  error (NumPy's same_kind casting of the result back into x);
- ``__neg__``, ``__pos__``, ``__invert__``, ``__abs__``; ``__bool__``, ``__int__``,
  ``__float__``, ``__complex__``, ``__index__`` of a 0-d array;
- the attributes ``T``, ``mT``, ``shape``, ``ndim``, ``size``, ``dtype``, ``device``;
- ``__setitem_iadd__``, ``__setitem_isub__``: x[index] += values and x[index] -= values,
  buffered as NumPy does it (x[index] = x[index] + values: of duplicate indices the last write
  wins, so each adds once).

Facts come from the function each operator computes (``__pow__`` has power's published
accuracy, ``__matmul__`` matmul's accumulation) and the dtype category from the standard's
array object (src/array_api_stubs/_2025_12/array_object.py). ``@`` has no reflected form: the
standard's matmul takes no Python scalars (``2 @ x`` is an error everywhere).
"""

from __future__ import annotations

import operator

import numpy as np

from compat.core.operation import MATRIX, Op, X, Y, f32, i32
from compat.core.table import elementwise, linear_algebra

FUNCTIONS = {op.name: op for op in (*elementwise.TABLE, *linear_algebra.TABLE)}

# symbol, Python's method name (without underscores), the function it computes, what its operands take
BINARY = (
    ("+", "add", "add", "numeric"),
    ("-", "sub", "subtract", "numeric"),
    ("*", "mul", "multiply", "numeric"),
    ("/", "truediv", "true_divide", "numeric"),
    ("//", "floordiv", "floor_divide", "real-valued"),
    ("%", "mod", "remainder", "real-valued"),
    ("**", "pow", "power", "numeric"),
    ("&", "and", "bitwise_and", "integer or boolean"),
    ("|", "or", "bitwise_or", "integer or boolean"),
    ("^", "xor", "bitwise_xor", "integer or boolean"),
    ("<<", "lshift", "bitwise_left_shift", "integer"),
    (">>", "rshift", "bitwise_right_shift", "integer"),
)
COMPARISONS = (
    ("==", "eq", "equal", "any"),
    ("!=", "ne", "not_equal", "any"),
    ("<", "lt", "less", "real-valued"),
    ("<=", "le", "less_equal", "real-valued"),
    (">", "gt", "greater", "real-valued"),
    (">=", "ge", "greater_equal", "real-valued"),
)
IN_PLACE = {symbol: getattr(operator, f"i{name}") for symbol, name, _, _ in BINARY}
FORWARD = {
    symbol: getattr(operator, f"{name}_" if name in ("and", "or") else name) for symbol, name, *_ in BINARY
}
FORWARD.update({symbol: getattr(operator, name) for symbol, name, *_ in COMPARISONS})


def reflected(symbol: str):
    """y op x, for a Python scalar y: Python asks x's reflected method."""
    forward = FORWARD[symbol]

    def reflected_operator(x, y):
        return forward(y, x)

    reflected_operator.__name__ = reflected_operator.__qualname__ = f"reflected {symbol}"
    return reflected_operator


def setitem_iadd(x, index, values):
    x[index] += values
    return x


def setitem_isub(x, index, values):
    x[index] -= values
    return x


def transposed(x):
    return x.T


def matrix_transposed(x):
    return x.mT


def attribute(name: str):
    def read(x):
        return getattr(x, name)

    read.__name__ = read.__qualname__ = name
    return read


def size(x):
    return operator.index(x.size)  # an int, not a method (torch's Tensor.size)


def has_device(x):
    return x.device is not None


def operands(takes: str) -> tuple:
    """The example an operator of a category is shown and tested with."""
    if takes in ("integer", "integer or boolean"):
        return i32(0, 1, 6, 3), i32(1, 1, 5, 0)
    if takes == "real-valued":
        return f32(7.5, -7.5, 3.0, -2.0), f32(2.0, 2.0, -2.0, -3.0)  # signs of x1 and x2 mixed: // and %
    return X, Y


def facts(function: str) -> dict:
    op = FUNCTIONS[function]  # what the function's operands show, its operator's show too (values)
    return {"correctly_rounded": op.correctly_rounded, "ulps": op.ulps, "values": op.values}


def binary_forms(symbol: str, name: str, function: str, takes: str, in_place: bool) -> list[Op]:
    x, y = operands(takes)
    shared = dict(group="operator", elementwise=True, takes=takes, computes=function, **facts(function))
    forms = [
        Op(
            f"__{name}__",
            "(x1, x2)",
            about=f"x1 {symbol} x2",
            python=FORWARD[symbol],
            spelling=f"{{0}} {symbol} {{1}}",
            example=(x, y),
            **shared,
        ),
        Op(
            f"__r{name}__",
            "(x1, x2)",
            about=f"x2 {symbol} x1, x2 a Python scalar",
            python=reflected(symbol),
            spelling=f"{{1}} {symbol} {{0}}",
            example=(x, 2),
            **shared,
        ),
    ]
    if in_place:
        forms.append(
            Op(
                f"__i{name}__",
                "(x1, x2)",
                about=f"x1 {symbol}= x2, in place (x1 keeps its dtype)",
                python=IN_PLACE[symbol],
                spelling=f"{{0}} {symbol}= {{1}}",
                example=(x, y),
                **shared,
            )
        )
    return forms


def unary(name: str, spelling: str, function, takes: str, example, about: str, **facts) -> Op:
    return Op(
        name,
        "(x)",
        "operator",
        about,
        python=function,
        spelling=spelling,
        takes=takes,
        example=(example,),
        **facts,
    )


CONVERSIONS = (
    ("__bool__", bool, "any", np.array(True), "bool(x) of a 0-d array"),
    (
        "__int__",
        int,
        "real-valued or boolean",
        f32(-2.75).reshape(()),
        "int(x) of a 0-d array, toward zero (TypeError for complex)",
    ),
    (
        "__float__",
        float,
        "real-valued or boolean",
        i32(3).reshape(()),
        "float(x) of a 0-d array (TypeError for complex)",
    ),
    ("__complex__", complex, "any", f32(1.5).reshape(()), "complex(x) of a 0-d array"),
    (
        "__index__",
        operator.index,
        "integer",
        i32(3).reshape(()),
        "operator.index(x) of a 0-d integer array (TypeError for every other dtype)",
    ),
)
ATTRIBUTES = (
    ("T", transposed, "{0}.T", "x.T: a 2-d array's transpose"),
    ("mT", matrix_transposed, "{0}.mT", "x.mT: the last two axes swapped"),
    ("shape", attribute("shape"), "{0}.shape", "x.shape: a tuple of ints"),
    ("ndim", attribute("ndim"), "{0}.ndim", "x.ndim: the number of axes, an int"),
    ("size", size, "operator.index({0}.size)", "x.size: the number of elements, an int"),
    ("dtype", attribute("dtype"), "{0}.dtype", "x.dtype: the backend's dtype object"),
    ("device", has_device, "{0}.device is not None", "x.device: where the array lives (its presence)"),
)

TABLE: tuple[Op, ...] = (
    *(
        op
        for symbol, name, function, takes in BINARY
        for op in binary_forms(symbol, name, function, takes, True)
    ),
    *(
        op
        for symbol, name, function, takes in COMPARISONS
        for op in binary_forms(symbol, name, function, takes, False)
    ),
    Op(
        "__matmul__",
        "(x1, x2)",
        "operator",
        "x1 @ x2",
        python=operator.matmul,
        spelling="{0} @ {1}",
        takes="numeric",
        terms=linear_algebra.matrix_product,
        example=(MATRIX, MATRIX.T),
    ),
    Op(
        "__imatmul__",
        "(x1, x2)",
        "operator",
        "x1 @= x2, in place (x1 keeps its dtype and shape)",
        python=operator.imatmul,
        spelling="{0} @= {1}",
        takes="numeric",
        terms=linear_algebra.matrix_product,
        example=(MATRIX.T @ MATRIX, MATRIX.T @ MATRIX),
    ),
    unary("__neg__", "-{0}", operator.neg, "numeric", X, "-x", elementwise=True, correctly_rounded=True),
    unary("__pos__", "+{0}", operator.pos, "numeric", X, "+x", elementwise=True, correctly_rounded=True),
    unary(
        "__invert__",
        "~{0}",
        operator.invert,
        "integer or boolean",
        i32(0, 1, -6, 3),
        "~x, bitwise not",
        elementwise=True,
        correctly_rounded=True,
    ),
    unary(
        "__abs__",
        "abs({0})",
        operator.abs,
        "numeric",
        X,
        "abs(x)",
        elementwise=True,
        correctly_rounded=True,
        values=("imaginary",),
    ),
    *(
        unary(
            name,
            f"{function.__name__}({{0}})" if name != "__index__" else "operator.index({0})",
            function,
            takes,
            example,
            about,
            correctly_rounded=True,
        )
        for name, function, takes, example, about in CONVERSIONS
    ),
    *(
        unary(
            name,
            spelling,
            function,
            "any",
            MATRIX,
            about,
            correctly_rounded=True,
            values=("distinct",) if name in ("T", "mT") else (),
        )
        for name, function, spelling, about in ATTRIBUTES
    ),
    *(
        Op(
            name,
            "(x, index, values)",
            "operator",
            f"x[index] {symbol}= values, buffered: of duplicate indices each counts once (the last write wins)",
            python=function,
            spelling=f"{{0}}[{{1}}] {symbol}= {{2}}",
            index_arg=1,
            takes="numeric",
            correctly_rounded=True,
            example=(f32(1, 2, 3, 4), (i32(0, 2, 0),), f32(10, 20, 30)),
        )
        for name, symbol, function in (
            ("__setitem_iadd__", "+", setitem_iadd),
            ("__setitem_isub__", "-", setitem_isub),
        )
    ),
)
