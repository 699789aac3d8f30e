"""The calls of each function of the standard, made from its signature (compat.core.signatures)
and the operands the table holds for it (``Op.example``): every parameter absent where it has a
default, ``None`` where the standard allows it, each kind of value its type admits (a Python bool,
int, float or complex, an array, a tuple or list, a negative axis, each value of a ``Literal``),
keyword-only parameters by their name, positional ones by position. Array-API-tests' ``hh.kwargs``
and PyTorch's OpInfo ``sample_inputs_func`` are the models: the signature says which forms exist,
the operands say what each form is called on.

- ``forms(op)``: the operation's minimal call (every parameter with a default absent), then one call
  per parameter and kind, the others as the table's example gives them (``Form``). A kind that has
  no value on these operands (a device object: compat names devices, it does not make them) is left
  out, and ``python -m compat ops --view parameters`` shows it unchecked.
- ``kinds_of(case)``: which kind each of the standard's parameters has in a case, whichever spec
  made it (the records' ``Checks.forms``: what each row checked).

A value of a kind is made from the example's by the parameter's role (``ROLES``): an axis is
normalized into the example array's axes (``negative`` counts it from the end, ``tuple`` takes
it with the next one), an operand typed ``Union[array, int, float]`` becomes a Python scalar of
one of its elements and the other operands a dtype that kind goes with (a complex scalar beside
complex arrays: the standard's rule for Python scalars), a length grows past the axis, a flag
flips. Calls stay inside the standard's domain: where it requires an axis for arrays of several
dimensions (``cumulative_sum``, ``take``), a form without one is made on the flattened array.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from compat.core import dtypes, ops, signatures
from compat.core.binding import ABSENT, Binding, bind, kind_of, kinds_of, signature_of, table_operation
from compat.core.operation import Op
from compat.core.signatures import SCALARS, Parameter, Signature
from compat.core.source import BackendArray

__all__ = ["ABSENT", "Binding", "Form", "forms", "functions", "kinds_of", "signature_of"]

# parameters by role: how a value of each kind is made for them
AXES = {"axis", "source", "destination"}  # one axis of the first array (or a tuple of them)
OFFSETS = {"k", "offset", "shift"}  # a diagonal or a shift: 1, and -1 for negative
FLAT_WITHOUT_AXIS = {"take", "cumulative_sum", "cumulative_prod"}  # the standard requires an axis above 1-d
NEW_AXIS = {"expand_dims", "stack"}  # the axis is one of the result's: the array's rank plus one
COUPLED = {  # a tuple takes its partner along
    ("roll", "shift"): "axis",
    ("moveaxis", "source"): "destination",
    ("moveaxis", "destination"): "source",
}
# functions whose forms other specs check: from_dlpack of another backend's array (interchange); the
# array's methods and operators are the operators family's
ELSEWHERE = {"from_dlpack"}


# -- making a value of each kind ------------------------------------------------------------------


def first_array(binding: Binding) -> np.ndarray | None:
    for p in binding.signature.parameters:
        value = binding.get(p.name)
        if isinstance(value, np.ndarray):
            return value
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], np.ndarray):
            return value[0]
    return None


def rank(binding: Binding) -> int:
    x = first_array(binding)
    extra = 1 if binding.signature.name in NEW_AXIS else 0
    return (x.ndim if x is not None else 0) + extra


def an_axis(binding: Binding, parameter: Parameter) -> int | None:
    """The example's axis (or the default's) as a non-negative int, or 0."""
    r = rank(binding)
    if r == 0:
        return None
    value = binding.get(parameter.name)
    if isinstance(value, tuple) and value:
        value = value[0]
    if not isinstance(value, int) or isinstance(value, bool):
        default = ast.literal_eval(parameter.default) if parameter.default not in (None, "None") else 0
        value = default if isinstance(default, int) else 0
    return value % r


def with_dtype(value, name: str):
    """An operand (array or tuple of arrays) in another dtype: ints rounded, unsigned made
    non-negative, bools from nonzero, complex given an imaginary part."""
    if isinstance(value, (tuple, list)):
        return type(value)(with_dtype(v, name) for v in value)
    if not isinstance(value, np.ndarray):
        return value
    real = np.asarray(value).real if value.dtype.kind == "c" else np.asarray(value)
    if name == "bool":
        converted = real != 0
    elif name in dtypes.INTEGER:
        rounded = np.round(real.astype(np.float64))
        converted = (np.abs(rounded) if name in dtypes.UNSIGNED else rounded).astype(name)
    elif name in dtypes.COMPLEX:
        converted = (real.astype(np.float64) + 0.5j * np.arange(real.size).reshape(real.shape)).astype(name)
    else:
        converted = real.astype(dtypes.to_numpy(name))
    return converted.view(BackendArray) if isinstance(value, BackendArray) else converted


SCALAR_DTYPE = {"bool": "bool", "int": "int32", "float": "float32", "complex": "complex64"}
HOLDS = {  # the array dtypes a Python scalar of each kind goes with (the standard's rule)
    "bool": dtypes.BOOL,
    "int": dtypes.INTEGER + dtypes.FLOATING,
    "float": dtypes.FLOATING,
    "complex": dtypes.COMPLEX,
}


def as_scalar(array: np.ndarray, kind: str, parameter: str, function: str):
    """A Python scalar of ``kind`` from an operand's first element."""
    element = np.asarray(array).reshape(-1)[0] if np.size(array) else 1
    real = float(np.real(element))
    if kind == "bool":
        return bool(real)
    if kind == "int":
        value = round(real)
        if function.startswith("bitwise_") and "shift" in function and parameter == "x2":
            value = abs(value) % 8  # a shift's count: between 0 and the width
        return value
    if kind == "float":
        return real if real != int(real) else real + 0.5
    return complex(real, 0.5)


def operand_form(binding: Binding, parameter: Parameter, kind: str) -> Binding | None:
    """An operand typed ``Union[array, <scalars>]`` given as a Python scalar of ``kind``; the other
    array operands in a dtype that kind goes with (kept where they are one already)."""
    value = binding.get(parameter.name)
    if not isinstance(value, np.ndarray):
        return None
    others = {
        p.name: binding.get(p.name)
        for p in binding.signature.parameters
        if p.name != parameter.name and isinstance(binding.get(p.name), np.ndarray) and p.name != "condition"
    }
    if not others and binding.signature.name not in ("clip",):
        return None  # at least one operand must stay an array
    changed: dict = {}
    for name, other in others.items():
        held = other.dtype.name
        if held not in HOLDS[kind]:
            changed[name] = with_dtype(other, SCALAR_DTYPE[kind])
    target = binding.get("x") if binding.signature.name == "clip" else None
    if target is not None and target.dtype.name not in HOLDS[kind]:
        changed["x"] = with_dtype(target, SCALAR_DTYPE[kind])
    scalar = as_scalar(value, kind, parameter.name, binding.signature.name)
    return binding.with_(**changed, **{parameter.name: scalar})


def dtype_for(binding: Binding) -> str:
    """A dtype to ask for: the widest of the first array's kind, or float32 where none is given."""
    x = first_array(binding)
    if x is None:
        return "float32"
    kind = x.dtype.kind
    return {"b": "int64", "i": "int64", "u": "uint64", "f": "float64", "c": "complex128"}.get(kind, "float64")


def axis_form(binding: Binding, parameter: Parameter, kind: str) -> Binding | None:
    name = parameter.name
    axis = an_axis(binding, parameter)
    if kind == "None":
        return binding.with_(**{name: None})
    if axis is None:
        return None
    r = rank(binding)
    value: int | tuple = axis if kind == "int" else axis - r if kind == "negative" else (axis,)
    changed = {name: value}
    partner = COUPLED.get((binding.signature.name, name))
    if partner is not None and kind == "tuple":
        other = binding.get(partner)
        if isinstance(other, int) and not isinstance(other, bool):
            changed[partner] = (other,)
    if binding.signature.name == "roll" and name == "axis" and kind == "tuple":
        shift = binding.get("shift")
        if isinstance(shift, tuple):
            changed["shift"] = shift[:1]
    return binding.with_(**changed)


def offset_form(binding: Binding, parameter: Parameter, kind: str) -> Binding | None:
    name = parameter.name
    if kind == "int":
        return binding.with_(**{name: 1})
    if kind == "negative":
        return binding.with_(**{name: -1})
    if kind == "tuple":  # roll's shift of several axes takes as many axes
        axis = binding.get("axis")
        axis = axis if isinstance(axis, int) and not isinstance(axis, bool) else 0
        return binding.with_(**{name: (1,), "axis": (axis,)})
    return None


def length_form(binding: Binding, parameter: Parameter, kind: str) -> Binding | None:
    """A length (fft's n and s, diff's n, eye's n_cols): longer than the axis, so it pads."""
    x = first_array(binding)
    if kind == "None":
        return binding.with_(**{parameter.name: None})
    if parameter.name == "s":
        return binding.with_(s=(x.shape[-1] + 2,)) if x is not None and x.ndim else None
    if parameter.name == "n" and binding.signature.name.startswith("fft."):
        axis = binding.get("axis")
        axis = axis if isinstance(axis, int) else -1
        return binding.with_(n=x.shape[axis] + 2) if x is not None and x.ndim else None
    if parameter.name == "n" and binding.signature.name == "diff":
        return binding.with_(n=2)
    if parameter.name == "n_cols":
        return binding.with_(n_cols=(binding.get("n_rows") or 2) + 1)
    return None


def reductions_tuple(binding: Binding, parameter: Parameter) -> Binding | None:
    """A tuple of the first two axes: several axes at once."""
    r = rank(binding)
    return binding.with_(**{parameter.name: tuple(range(min(r, 2)))}) if r else None


def value_form(binding: Binding, parameter: Parameter, kind: str) -> Binding | None:
    """The call with ``parameter`` given as a value of ``kind`` (None where these operands have none)."""
    function, name = binding.signature.name, parameter.name
    current = binding.get(name)
    if kind == "absent":
        return binding.with_(**{name: ABSENT})
    if name == "copy" and function == "asarray" and kind == "False":
        # never a copy: of an array (a Python list needs one, and the standard says to raise then)
        obj = binding.get("obj")
        return binding.with_(
            obj=np.asarray(obj, dtype=np.float32) if not isinstance(obj, np.ndarray) else obj, copy=False
        )
    if kind in ("True", "False"):
        return binding.with_(**{name: kind == "True"})
    if kind.startswith("'"):
        return binding.with_(**{name: ast.literal_eval(kind)})
    if kind in ("inf", "-inf"):
        return binding.with_(**{name: float(kind)})
    if kind == "device":
        return None  # compat names devices; the namespace's own objects are the interchange family's
    if name == "dtype" and kind == "dtype" and function not in ("astype", "isdtype"):
        return binding.with_(dtype=dtype_for(binding))
    if name in ("n", "s", "n_cols") and function not in ("linalg.matrix_power",):
        return length_form(binding, parameter, kind)
    if kind == "None":
        return binding.with_(**{name: None})
    if name in AXES or (name == "axes" and function not in ("tensordot", "linalg.tensordot", "permute_dims")):
        if kind == "tuple" and function not in ("squeeze", "expand_dims", "moveaxis", "roll"):
            return reductions_tuple(binding, parameter)
        return axis_form(binding, parameter, kind)
    if name in OFFSETS:
        return offset_form(binding, parameter, kind)
    if name == "axes" and kind in ("int", "pair", "negative"):  # tensordot: k, or the axes it contracts
        x1, x2 = binding.get("x1"), binding.get("x2")
        k = current if isinstance(current, int) else 1
        pair = (tuple(range(x1.ndim - k, x1.ndim)), tuple(range(k)))
        if kind == "int":
            return binding.with_(axes=k)
        if kind == "negative":
            pair = (tuple(a - x1.ndim for a in pair[0]), tuple(a - x2.ndim for a in pair[1]))
        return binding.with_(axes=pair)
    if kind in SCALARS and isinstance(current, np.ndarray):
        return operand_form(binding, parameter, kind)
    if kind in SCALARS and current is ABSENT and function == "clip":  # clip's bound: one below the middle
        x = binding.get("x")
        return operand_form(
            binding.with_(**{name: np.asarray(np.median(x)).astype(x.dtype)}), parameter, kind
        )
    return special_form(binding, parameter, kind, current)


PYTHON_NUMBERS = {"bool": True, "int": 2, "float": 2.5, "complex": 2.5 + 1j}  # one of each kind


def special_form(binding: Binding, parameter: Parameter, kind: str, current) -> Binding | None:
    """Kinds of parameters whose value is their function's own: a count, a spacing, a norm's order,
    a start or stop, a fill value, a sorter, arrays to prepend."""
    function, name = binding.signature.name, parameter.name
    if name in ("correction", "d", "rtol") or (name == "ord" and kind in ("int", "float")):
        made = {
            ("correction", "int"): 1,
            ("correction", "float"): 0.5,
            ("d", "float"): 0.5,
            ("rtol", "float"): 1e-3,
            ("ord", "int"): 1,
            ("ord", "float"): 1.0 if function == "linalg.matrix_norm" else 2.5,
        }.get((name, kind))
        if name == "rtol" and kind == "array":
            x = binding.get("x")
            return binding.with_(rtol=np.asarray(1e-3, dtype=x.dtype if x.dtype.kind == "f" else "float64"))
        return None if made is None else binding.with_(**{name: made})
    if name in ("start", "stop", "step") and kind in ("int", "float", "complex", "negative"):
        value = current if current is not ABSENT and current is not None else 1
        if kind == "negative":  # a range downwards: the bounds swapped
            start, stop = binding.get("start"), binding.get("stop")
            if stop is ABSENT or stop is None:
                return None
            return binding.with_(start=stop, stop=start, step=-abs(value))
        number: complex = (
            round(float(np.real(value)))
            if kind == "int"
            else float(np.real(value))
            if kind == "float"
            else complex(value)
        )
        return binding.with_(**{name: 1 if name == "step" and number == 0 else number})
    if name == "obj" and kind in (*SCALARS, "array"):  # asarray of a Python number, or of an array
        obj = np.asarray(current, dtype=np.float32) if kind == "array" else PYTHON_NUMBERS[kind]
        return binding.with_(obj=obj)
    if name == "fill_value" and kind in SCALARS:
        return binding.with_(fill_value=PYTHON_NUMBERS[kind])
    if name == "shape" and kind == "int":
        return binding.with_(shape=3)
    if name == "repeats" and kind == "array":
        x, axis = binding.get("x"), binding.get("axis")
        length = x.size if axis is ABSENT or axis is None else x.shape[axis]
        return binding.with_(repeats=np.arange(1, length + 1) % 3)
    if name == "sorter" and kind == "array":
        x1 = binding.get("x1")
        shuffled = x1[::-1].copy()
        return binding.with_(x1=shuffled, sorter=np.argsort(shuffled, stable=True))
    if name in ("prepend", "append") and kind == "array":
        x = binding.get("x")
        axis = binding.get("axis")
        axis = -1 if axis is ABSENT else axis
        return binding.with_(**{name: np.take(x, [0], axis=axis)})
    if name in ("arrays", "obj") and kind in ("list", "tuple") and isinstance(current, (tuple, list)):
        return binding.with_(**{name: list(current) if kind == "list" else tuple(current)})
    if name in ("x1", "x2") and function == "isin" and kind == "int":
        return operand_form(binding, parameter, "int")
    if name in ("type", "from_") and kind == "array" and isinstance(current, str):
        return binding.with_(**{name: np.zeros(2, dtype=dtypes.to_numpy(str(current)))})
    if name == "kind" and function == "isdtype":
        asked: dict[str, object] = {
            "str": "signed integer",
            "tuple": ("signed integer", "real floating"),
            "dtype": dtypes.DType("int8"),
        }
        return binding.with_(kind=asked[kind]) if kind in asked else None
    if name == "copy" and kind == "None":
        return binding.with_(copy=None)
    return None


def var_forms(binding: Binding, parameter: Parameter) -> Iterator[tuple[str, Binding]]:
    """result_type's arguments of each kind: dtypes, arrays, and an array with a Python scalar."""
    if binding.signature.name != "result_type":
        return
    yield "dtype", binding.with_(arrays_and_dtypes=(dtypes.DType("int8"), dtypes.DType("uint8")))
    yield "array", binding.with_(arrays_and_dtypes=(np.zeros(2, np.int8), np.zeros(2, np.uint8)))
    for kind, (dtype, scalar) in {
        "bool": ("bool", True),
        "int": ("int8", 1),
        "float": ("float32", 2.5),
        "complex": ("float32", 1j),
    }.items():
        yield kind, binding.with_(arrays_and_dtypes=(np.zeros(2, dtypes.to_numpy(dtype)), scalar))


def within_standard(binding: Binding) -> Binding:
    """The call inside the standard's domain: a function that requires an axis for arrays of several
    dimensions gets the flattened array where it has none (NumPy flattens; the standard leaves it);
    tensordot at its default (the last two axes of x1 with the first two of x2) gets an x2 that fits."""
    if binding.signature.name in ("tensordot", "linalg.tensordot") and binding.get("axes") is ABSENT:
        x1 = binding.get("x1")
        return binding.with_(x2=x1.copy()) if isinstance(x1, np.ndarray) and x1.ndim >= 2 else binding
    if binding.signature.name in FLAT_WITHOUT_AXIS and binding.get("axis") in (ABSENT, None):
        x = binding.get("x")
        if isinstance(x, np.ndarray) and x.ndim > 1:
            return binding.with_(x=x.reshape(-1))
    return binding


@dataclass(frozen=True)
class Form:
    """One call of a form: ``parameter`` given as ``kind`` (``parameter`` "": the minimal call)."""

    op: str
    parameter: str
    kind: str
    args: tuple
    kwargs: dict = field(hash=False)

    @property
    def label(self) -> str:
        return f"{self.op}: {self.parameter}={self.kind}" if self.parameter else f"{self.op}: minimal"


# the dtype an operand outside its category takes instead (the first of the category, by kind)
IN_CATEGORY = {
    "boolean": "bool",
    "integer": "int32",
    "integer or boolean": "int32",
    "real-valued floating-point": "float32",
    "floating-point": "float32",
    "complex floating-point": "complex64",
    "numeric": "float32",
    "real-valued": "float32",
}


def example_binding(op: Op, signature: Signature) -> Binding:
    """The table's example as the standard's parameters, each array operand in the dtype category
    the standard's signature names for it (logical_and's of bools, not the example's int32), and a
    dtype passed by position as a dtype object."""
    binding = bind(op, signature, tuple(op.example), dict(op.example_kwargs))
    for p in signature.parameters:
        value = binding.get(p.name)
        category = dtypes.CATEGORIES.get(p.category or "", dtypes.ALL)
        if isinstance(value, np.ndarray) and value.dtype.name not in category:
            binding = binding.with_(**{p.name: with_dtype(value, IN_CATEGORY[str(p.category)])})
        if p.name == "dtype" and p.positional and isinstance(value, str):
            binding = binding.with_(dtype=dtypes.DType(value))
    return binding


def forms(name: str) -> list[Form]:
    """The calls of the table's operation ``name``: its minimal call (every parameter with a
    default absent), then each parameter in each kind its type admits, the others as the table's
    example gives them (where the example leaves a parameter out, it stays out)."""
    op = ops.get(name)
    signature = signature_of(op)
    if signature is None:
        return []
    example = example_binding(op, signature)
    found: list[Form] = []

    def add(parameter: str, kind: str, binding: Binding | None) -> None:
        if binding is not None:
            args, kwargs = within_standard(binding).call()
            found.append(Form(name, parameter, kind, args, kwargs))

    minimal = example.with_(**{p.name: ABSENT for p in signature.parameters if p.has_default})
    add("", "minimal", minimal)
    for parameter in signature.parameters:
        if parameter.kind == "var-positional":
            for kind, binding in var_forms(example, parameter):
                add(parameter.name, kind, binding)
            continue
        for kind in parameter.kinds:
            if kind_of(parameter, example.get(parameter.name)) == kind and kind != "absent":
                add(parameter.name, kind, example)  # the example's own value is this kind
                continue
            add(parameter.name, kind, value_form(example, parameter, kind))
    return found


def functions() -> list[str]:
    """The table's operations whose calls the families' every-form specs make: one per function of the
    standard (main namespace and extensions) that the table has."""
    names = [*signatures.load()]
    found = []
    for standard_name in names:
        if standard_name.startswith("array.") or standard_name in ELSEWHERE:
            continue
        op = table_operation(standard_name)
        if op is not None and op.name not in found:
            found.append(op.name)
    return found
