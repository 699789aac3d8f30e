"""A compiled call's operands and the call spelled out as a function of them: what an execution
mode (jax.jit, tf.function, torch.compile) traces."""

from __future__ import annotations

import types

import numpy as np

from compat.core import ops


def traced_call(
    fn, op: str, original: tuple, converted: list, kwargs: dict, original_kwargs: dict | None = None
) -> tuple[list, types.FunctionType]:
    """The operands a compiled call takes as its arguments, and the call of ``fn`` as a
    function of them. Operands are the backend arrays (converted from NumPy, at any depth
    of a tuple) and the Python numbers passed as operands of the operation (its positional
    parameters, the index excepted: ``x + 2`` traces the 2, as ``jax.jit(f)(x, 2)`` would);
    axes, shapes (tuples of ints), sizes and counts (``Op.static``), slices, index integers
    and dtypes stay what they are while the call is traced, as users write them.

    The function is spelled out, ``def traced(v0, v1): return fn((v0, 2), v1, axis=c1)``:
    a tracer that reads bytecode (torch.compile's dynamo) then reads those few
    instructions, not a loop that rebuilds the arguments (a third of each compilation)."""
    declared = ops.get(op)
    operands: list = []
    names = {"fn": fn}

    def spell(before, after, is_operand: bool) -> str:
        if (isinstance(before, np.ndarray) and not isinstance(after, np.ndarray)) or (
            is_operand and isinstance(before, (bool, int, float, complex))
        ):
            operands.append(after)
            return f"v{len(operands) - 1}"
        if isinstance(before, tuple) and isinstance(after, tuple) and len(before) == len(after):
            return (
                "(" + "".join(spell(b, a, False) + ", " for b, a in zip(before, after)) + ")"
            )  # a shape's ints stay static
        names[f"c{len(names)}"] = after
        return f"c{len(names) - 1}"

    arguments = [
        spell(b, a, n < declared.arity and n != declared.index_arg and n not in declared.static)
        for n, (b, a) in enumerate(zip(original, converted))
    ]
    for key, value in kwargs.items():  # an array keyword argument is an operand too
        arguments.append(f"{key}={spell((original_kwargs or {}).get(key), value, False)}")
    parameters = ", ".join(f"v{n}" for n in range(len(operands)))
    exec(f"def traced({parameters}):\n    return fn({', '.join(arguments)})", names)
    return operands, names["traced"]
