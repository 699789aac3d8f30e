"""The rules of judging beyond the oracle's comparison: what a dtype divergence explains,
where a result should be, a reference that gave no answer, an error that is not the call's own.
Each is used by a step of compat.judge.steps."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from compat.core import dtypes
from compat.core.case import Case
from compat.core.outcome import Outcome, error_type, first_line
from compat.judge import oracle

LOST = ("crash", "timeout")  # what a reference that gave no answer gave

# a survey cell to add once per key: note(key, table, row, value)
Note = Callable[[tuple, str, str, str], None]


def without_consequences(
    case: Case,
    actual: Outcome,
    mismatches: list,
    allowed: oracle.Bound,
    expected_of: Callable[[Case], Outcome],
) -> list:
    """Drop a value mismatch that follows from a dtype mismatch: if NumPy,
    made to compute in the backend's result dtype (``dtype=``, or, for an operation that
    takes none, its array operands in that dtype: ``x op= y`` kept in y's wider dtype),
    gives the backend's values, the values differ only because the dtype does, and
    the dtype divergence is the one to report."""
    kinds = {m.kind for m in mismatches}
    if not {"dtype", "value"} <= kinds:
        return mismatches
    in_actual_dtype = expected_of(replace(case, kwargs={**case.kwargs, "dtype": actual.dtype}))
    if in_actual_dtype.raised:  # it takes no dtype=: its operands in that dtype
        operands = in_dtype(case, actual.dtype)
        in_actual_dtype = expected_of(operands) if operands is not None else in_actual_dtype
    if in_actual_dtype.raised or in_actual_dtype.dtype != actual.dtype:
        return mismatches
    if oracle.compare(in_actual_dtype, actual, allowed):
        return mismatches
    return [m for m in mismatches if m.kind != "value"]


def in_dtype(case: Case, dtype: str | None) -> Case | None:
    """The case with every array operand in ``dtype`` (None where it has none, or no dtype is named)."""
    if dtype is None or not any(isinstance(a, np.ndarray) for a in case.args):
        return None
    try:
        target = dtypes.to_numpy(dtype)
    except LookupError:
        return None
    args = tuple(
        a.astype(target) if isinstance(a, np.ndarray) and a.dtype.kind in "biufc" else a for a in case.args
    )
    return replace(case, args=args)


def in_canonical_form(canonical: Callable, case: Case, outcome: Outcome) -> Outcome:
    """``outcome`` with its values (a tuple of its parts' values, for a call that returns several)
    in the operation's canonical form (``Op.canonical``), or as it is where it has none to put
    (raised, no values) or they do not fit the form."""
    parts = outcome.parts
    if outcome.raised or (outcome.values is None if parts is None else any(p.values is None for p in parts)):
        return outcome
    try:
        if parts is None:
            return replace(outcome, values=np.asarray(canonical(case.args, case.kwargs, outcome.values)))
        values = canonical(case.args, case.kwargs, tuple(p.values for p in parts))
    except (IndexError, ValueError, TypeError):
        return outcome
    return replace(outcome, parts=[replace(p, values=np.asarray(v)) for p, v in zip(parts, values)])


def misplaced(actual: Outcome, device: str | None, target: str | None = None) -> list:
    """A result that is not where it should be: on the ``device`` under test
    (soft placement, a wrong-device bug), or the ``target`` of a copy."""
    if device is None or actual.raised:
        return []
    target = target or device
    found = {p.device for p in (actual.parts or [actual]) if p.device is not None}
    wrong = sorted(d for d in found if d != target)
    if not wrong:
        return []
    return [oracle.Mismatch("device", target, wrong[0], f"result on {wrong[0]}, expected on {target}")]


def lost(case: Case, reference_id: str, outcome: Outcome, note: Note) -> bool:
    """Whether a second reference (reference device, eager, gradient reference) crashed or hung
    on ``case``: then it is no reference, the case is judged against NumPy alone, and a
    survey cell of the row under test (table "reference lost") says which reference was
    lost, how, and on which example."""
    if outcome.error is None or outcome.error_category not in LOST:
        return False
    what = f"{outcome.error_category}: {first_line(outcome.error)}"
    note(
        ("reference lost", case.op, reference_id, what),
        "reference lost",
        f"{case.op} vs {reference_id}",
        f"{what}; judged against NumPy alone; e.g. {case.call()}",
    )
    return True


def settled(
    case: Case, other: Outcome, outcome: Outcome, again: Callable[[Case], Outcome] | None, note: Note
) -> Outcome:
    """``outcome``, or where it raised in another category than the ``other`` side's, the
    outcome of calling once more (``again(case)``) if that differs: an error that the same
    call does not raise again is not the call's own (TensorFlow raises SystemError in the
    call after one that left an exception pending, tensorflow#75400), and is not judged.
    The survey table "unstable errors" shows it. A crash or hang is not called again, nor a
    call that cannot be made again (``again`` None)."""
    category = outcome.error_category
    if again is None or not outcome.raised or category in LOST or category == other.category:
        return outcome
    second = again(case)
    if second.error_category == category:
        return outcome
    cell = (f"{case.op} ({case.input_tags()})", f"{raised(outcome)}, then {raised(second)} once more")
    note(("unstable errors", *cell), "unstable errors", *cell)
    return second


def raised(outcome: Outcome) -> str:
    """What a call raised, without the message (which names the example): 'SystemError (other)'; 'ok'."""
    return (
        f"{error_type(outcome.error).rpartition('.')[2]} ({outcome.error_category})"
        if outcome.error is not None
        else "ok"
    )
