"""Runnable reproducer snippets.

A reproducer is plain Python that imports the framework and prints what the
reference and the backend return for the minimal example. For compat's own
adapters it calls the framework's API directly (each operation as the adapter
maps it: a dotted name, or the source of the function compat wrote for it); for a
third-party adapter, whose internals compat cannot know, it calls the adapter.
"""

from __future__ import annotations

import numpy as np

from compat.adapters import Adapter
from compat.adapters.interchange import producer
from compat.adapters.spelling import NAMED
from compat.core import ops
from compat.core.case import Case
from compat.core.dtypes import DType
from compat.core.source import BackendArray, Exported, array_source, backend_array, index_source, value_source
from compat.harness.references import InMode, NumPy, OnDevice, OwnAnswer, Promised, SignatureAdmits, Standard
from compat.judge.reference import Reference

SHOW = """
def show(name, compute):
    try:
        result = compute()
    except Exception as error:
        print(f"{name}: raised {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}")
        return
    value = result.numpy() if hasattr(result, "numpy") and not hasattr(result, "tolist") else result
    value = value.tolist() if hasattr(value, "tolist") else value
    print(f"{name}: {getattr(result, 'dtype', type(result).__name__)} {value}")
"""


def is_native(adapter: Adapter) -> bool:
    """compat's own adapters can be written out as framework calls, unless one changes what
    ``call`` does (compat.adapters.broken: then the reproducer calls the adapter too)."""
    return type(adapter).__module__.startswith("compat.adapters.") and type(adapter).call is Adapter.call


def device_lines(adapter: Adapter, device: str | None) -> list[str]:
    """The lines that make ``device`` exist (a reference plug-in loaded) in a reproducer."""
    return adapter.plugin.reproducer_lines(device) if device and adapter.plugin is not None else []


def reproducer(
    case: Case,
    reference: Adapter | Reference,
    backend: Adapter,
    device: str | None = None,
    mode: str = "eager",
) -> str:
    """A snippet printing both sides of a divergence. A call in an execution mode besides
    eager goes through compat's adapter (``call(..., mode=)``), which traces exactly the
    operands the harness traced; its eager side too, when that is the reference."""
    # another backend's array (interchange): compat's adapter of its producer makes and exports
    # it, and NumPy's answer is the values exported, printed
    handed = any(isinstance(a, Exported) for a in case.args)
    native = is_native(backend) and mode == "eager"
    if handed and isinstance(reference, NumPy):
        sides = []
    elif isinstance(reference, InMode) or (isinstance(reference, (OnDevice, OwnAnswer)) and not native):
        sides = []  # the reference side runs through compat's adapter too, in the same mode
    elif isinstance(reference, (Promised, Standard, SignatureAdmits)):
        sides = []  # a promise or the standard's clause has no call: its answer is printed
    elif isinstance(reference, OwnAnswer):  # the backend's answer to the question asked another way
        sides = [(backend, device, reference.question)]
    else:
        # NumPy or a gradient reference (its adapter), or the backend on its reference device
        on = reference.device if isinstance(reference, OnDevice) else None
        sides = [(reference if isinstance(reference, Adapter) else reference.adapter, on, case)]
    if native:
        sides.append((backend, device, case))
    lines = ["import numpy as np"]
    for adapter, on, _ in sides:
        lines += [line for line in adapter.spelling.imports() if line not in lines]
        lines += [line for line in device_lines(adapter, on) + adapter.spelling.setup() if line not in lines]
    if not native:
        lines += [
            line for line in device_lines(backend, device) if line not in lines
        ]  # a plug-in device exists
        lines.append("from compat.adapters import backend_array, load_adapter")
        if any(isinstance(a, DType) for a in case.args):  # how records write a dtype argument
            lines.append("from compat.core.dtypes import DType as dtype")
    if handed:  # how records write another backend's array, and its producer's adapter
        lines += [line for line in HANDED if line not in lines]
    lines.append("")
    for asked in [case] + ([reference.question] if isinstance(reference, OwnAnswer) else []):
        lines += [f"{name} = {source}" for name, source in asked.inputs_source().items()]
    lines.append(SHOW)
    if isinstance(reference, Promised):  # the reference's line first, as every side's order has it
        lines.append(f"print({'promised (' + reference.fact + '):'!r}, {reference.promised.describe()!r})")
    if isinstance(reference, (Standard, SignatureAdmits)):
        lines.append(f"print({'the standard (' + reference.stated(case) + ')'!r})")
    if handed and isinstance(reference, NumPy):
        lines.append(f"print('the values exported:', {reference.outcome(case).describe()!r})")
    for adapter, on, asked in sides:
        definition, expression = native_call(asked, adapter, on)
        lines += [d for d in definition if d not in lines]  # a module imported once
        name = label(adapter) + (f" {asked.op}" if asked is not case else "") + (f" on {on}" if on else "")
        show = f"show({name!r}, lambda: {expression})"
        scope = adapter.spelling.scope(on)
        lines += [f"with {scope}:", "    " + show] if scope else [show]
    if not native:
        lines.append(f"backend = load_adapter({backend.selector!r})")
        if mode != "eager":  # what a mode does to the operands (Dask's chunks)
            lines += [f"# {note}" for note in backend.spelling.mode_notes(case, mode)]
        if case.program is not None:
            lines.append(f"device = {device!r}")
            lines.append(case.program.source(None, "f"))
        args = ", ".join(case.arg_names())
        kwargs = "{" + ", ".join(f"{k!r}: {value_source(v)}" for k, v in case.kwargs.items()) + "}"

        def call(on: str | None, in_mode: str) -> str:
            return (
                f"backend.call({case.op!r}, ({args}{',' if len(case.args) == 1 else ''}), {kwargs}, device={on!r}"
                + (f", mode={in_mode!r}" if in_mode != "eager" else "")
                + ").describe()"
            )

        if isinstance(reference, OwnAnswer):
            asked = reference.question
            names = ", ".join(asked.arg_names()) + ("," if len(asked.args) == 1 else "")
            lines.append(
                f"print({label(backend) + ' ' + asked.op + ':'!r}, "
                f"backend.call({asked.op!r}, ({names}), {{}}, device={device!r}).describe())"
            )
        if isinstance(reference, InMode):
            lines.append(
                f"print({label(backend) + ' ' + reference.mode + ':'!r}, {call(device, reference.mode)})"
            )
        row = label(backend) + (" " + mode if mode != "eager" else "")
        if isinstance(reference, OnDevice):
            lines.append(f"print({row + ' on ' + reference.device + ':'!r}, {call(reference.device, mode)})")
        where = row + (" on " + device if device else "")
        lines.append(f"print({where + ':'!r}, {call(device, mode)})")
    return with_imports(lines)


def with_imports(lines: list[str]) -> str:
    """The reproducer, importing after NumPy each module of ``spelling.NAMED`` that its text names
    (NumPy's bfloat16 wherever the case holds it, the operator module of an operator's spelling)."""
    text = "\n".join(lines)
    needed = [
        f"import {module}" for module in NAMED if f"{module}." in text and f"import {module}" not in lines
    ]
    return "\n".join(lines[:1] + needed + lines[1:]) + "\n"


HANDED = ["from compat.adapters import load_adapter", "from compat.core.source import exported"]


def label(adapter: Adapter) -> str:
    return f"{adapter.id} {adapter.version()}"


def native_call(case: Case, adapter: Adapter, device: str | None = None) -> tuple[list[str], str]:
    """(definition lines, expression) computing the case with the adapter's framework on ``device``."""

    def convert(value, i=None):
        if isinstance(
            value, Exported
        ):  # made and exported by its producer's adapter, as Adapter.convert does
            return f"load_adapter({producer(adapter, value.producer).selector!r}).interchange.exported(x{i})"
        if isinstance(value, DType):
            return adapter.spelling.dtype(value)
        if isinstance(value, BackendArray):
            return adapter.spelling.array(array_source(np.asarray(value)), value.dtype.name, device)
        if isinstance(value, np.ndarray):
            return (
                adapter.spelling.array(f"x{i}", value.dtype.name, device)
                if i is not None
                else array_source(value)
            )
        if isinstance(value, tuple) and any(isinstance(v, np.ndarray) for v in value):
            return "(" + ", ".join(convert(v) for v in value) + ("," if len(value) == 1 else "") + ")"
        return value_source(value)

    if ops.get(case.op).subscript:
        array = adapter.spelling.array("x0", case.args[0].dtype.name, device)
        return [], f"{array}[{index_source(case.args[1], convert)}]"
    if ops.get(case.op).spelling and adapter.target(case.op) is ops.get(case.op).python:
        return operator_call(case, adapter, device, convert)
    args = [convert(a, i) for i, a in enumerate(case.args)]
    op = adapter.spelling.operation(case.op)
    definitions = [op.definitions] if op.definitions else []
    prepare = adapter.preparation(case.op, case.args, case.kwargs) if case.program is None else None
    if prepare is not None:  # the arguments go through it, as Adapter.call passes them
        target = adapter.function(case.op)
        source = adapter.spelling.compat_function(
            prepare, *[target] if op.definitions else []
        )  # shared helpers once
        definitions = [source.definitions]
        args = [f"*{source.expression}({', '.join(args)})"]
    if case.program is not None:
        function = f"f_{adapter.name.replace('-', '_')}"
        definitions.append(case.program.source(adapter, function, device))
        args.insert(0, function)

    def keyword(value) -> str:  # an array keyword argument is the backend's array, as Adapter.call makes it
        return convert(backend_array(value)) if isinstance(value, np.ndarray) else value_source(value)

    return definitions, f"{op.expression}({case.arguments(args, adapter.spelling.dtype, keyword)})"


def operator_call(case: Case, adapter: Adapter, device: str | None, convert) -> tuple[list[str], str]:
    """An operator as users write it: ``torch.asarray(x0) + 1``, ``2 ** jnp.asarray(x0)``; an
    in-place one (``x += y``, ``x[i] += v``) in a function of its own, on a copy of each input
    array, so that the side shown first does not change what the next one computes on."""
    declared = ops.get(case.op)

    def operand(i: int, value) -> str:
        if i == declared.index_arg:
            return index_source(value, convert)
        if isinstance(value, np.ndarray) and not isinstance(value, BackendArray):
            copy = ".copy()" if declared.in_place else ""
            return adapter.spelling.array(f"x{i}{copy}", value.dtype.name, device)
        text = convert(value, i)
        return f"({text})" if text.startswith("-") else text  # -2 ** x is -(2 ** x)

    args = [operand(i, a) for i, a in enumerate(case.args)]
    definitions, prepared = [], None
    prepare = adapter.preparation(case.op, case.args, case.kwargs)
    if prepare is not None:  # the operands go through it first, as Adapter.call passes them
        source = adapter.spelling.compat_function(prepare)
        definitions.append(source.definitions)
        prepared = f"{source.expression}({', '.join(args)})"
    if not declared.in_place:
        if prepared is None:
            return definitions, declared.spelling.format(*args)
        operands = [f"v[{i}]" for i in range(len(args))]
        return definitions, f"(lambda v: {declared.spelling.format(*operands)})({prepared})"
    names = ["x", "index", "values"] if declared.index_arg is not None else ["x", "y"]
    function = case.op.strip("_")
    definitions.append(
        f"def {function}({', '.join(names)}):\n    {declared.spelling.format(*names)}\n    return x\n"
    )
    if prepared is not None:
        return definitions, f"{function}(*{prepared})"
    call_args = [f"({a})" if i == declared.index_arg else a for i, a in enumerate(args)]
    return definitions, f"{function}({', '.join(call_args)})"
