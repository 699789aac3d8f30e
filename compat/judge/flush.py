"""Whether a difference is a CPU's flush-to-zero mode (FTZ/DAZ) rather than a wrong result."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from compat.core import dtypes
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.judge import oracle


def has_subnormals(values: np.ndarray, like: str | None = None) -> bool:
    """Whether ``values`` holds a subnormal (of its dtype, or of the narrower ``like``)."""
    if values.dtype.kind not in "fcV":
        return False
    bits = np.dtype(f"V{values.dtype.itemsize}")  # -0.0 and NaN payloads count
    return not np.array_equal(
        np.atleast_1d(dtypes.flushed(values, like)).view(bits), np.atleast_1d(values).view(bits)
    )


def as_flush_to_zero(
    expected_of: Callable[[Case], Outcome],
    case: Case,
    expected: Outcome,
    actual: Outcome,
    mismatches: list,
    allowed: oracle.Bound,
    lazily: bool = False,
) -> list:
    """A value mismatch that goes away when both sides read every subnormal as zero
    (the reference's operands and result, the backend's result: a CPU's FTZ and DAZ
    modes) is that difference, whatever the operation: it gets its own signature,
    ``subnormal`` -> ``flushed``, so that one registry entry names it and nothing else.
    ``expected_of`` gives the reference's outcome of a case (compat.judge.steps.Judgement);
    ``lazily``, only until one explains the difference (a pure reference, NumPy: a backend's
    call is always made, as one call may change the next one's outcome, tensorflow#75400)."""
    if case.exact or not any(m.kind == "value" for m in mismatches) or expected.values is None:
        return mismatches
    # subnormal where the backend computes: in a narrower dtype than NumPy's, it flushes more
    like = actual.dtype if actual.dtype in dtypes.FLOATING and expected.dtype in dtypes.FLOATING else None
    operands = [a for a in case.args if isinstance(a, np.ndarray)]
    # a Python float or complex operand computes in the array operand's dtype (NEP 50): 1e-40 with
    # float32 is a float32 subnormal, which DAZ reads as zero even where the result is a bool
    weak = next((a.dtype.name for a in operands if a.dtype.name in dtypes.FLOATING), None)
    scalars = [np.asarray(a) for a in case.args if isinstance(a, (float, complex))] if weak else []
    if not any(has_subnormals(a, like) for a in operands + [expected.values]) and not any(
        has_subnormals(s, like or weak) for s in scalars
    ):
        return mismatches

    def read_as_zero(value):
        if isinstance(value, np.ndarray):
            return dtypes.flushed(value, like)
        if weak and isinstance(value, (float, complex)):
            return type(value)(dtypes.flushed(np.asarray(value), like or weak).item())
        return value

    daz = replace(case, args=tuple(read_as_zero(a) for a in case.args))
    # a comparison under DAZ sees a subnormal as zero but may pass it on (min, remainder's sign fix-up):
    # so the two sides agree modulo subnormals, each read as a zero
    actual_read = (
        replace(actual, values=dtypes.flushed(actual.values, like)) if actual.values is not None else actual
    )
    candidates = [daz]
    if (
        actual.dtype != expected.dtype and actual.dtype in dtypes.FLOATING
    ):  # its dtype divergence, and a flush
        candidates.append(replace(daz, kwargs={**daz.kwargs, "dtype": actual.dtype}))
    # a zero read from a subnormal keeps its sign, but what the kernel then does with it (a sign
    # fix-up, a branch on x < 0) need not: under the flush, zeros of either sign are one value.
    # Where only zeros' signs differ, no flush explains it: that is the divergence.
    allowed = replace(allowed, signed_zeros=False)
    if not any(m.kind == "value" for m in oracle.compare(expected, actual, allowed)):
        return mismatches
    flushed_references = []
    asked = [expected_of(c) for c in candidates] if not lazily else map(expected_of, candidates)
    for result in itertools.chain([expected], asked):
        if result.raised or result.values is None:
            continue
        ftz = replace(result, values=dtypes.flushed(result.values, like))
        if not any(m.kind == "value" for m in oracle.compare(ftz, actual_read, allowed)):
            return [
                replace(
                    m,
                    expected="subnormal",
                    actual="flushed",
                    detail=f"{m.detail}; as the reference with subnormals flushed to zero (FTZ/DAZ)",
                )
                if m.kind == "value"
                else m
                for m in mismatches
            ]
        flushed_references.append(ftz)
    return beyond_flush_to_zero(expected, actual, actual_read, flushed_references, mismatches, allowed)


def beyond_flush_to_zero(
    expected: Outcome,
    actual: Outcome,
    actual_read: Outcome,
    flushed_references: list,
    mismatches: list,
    allowed: oracle.Bound,
) -> list:
    """Where flushing subnormals explains some of the differing elements but not all, the
    others are the divergence: judged alone, they get their own signature (and Hypothesis
    its own minimal example), instead of the first flushed element's."""
    if expected.shape != actual.shape or actual.values is None or expected.values is None:
        return mismatches
    differing = oracle.differing(expected.values, actual.values, allowed)
    for ftz in flushed_references:
        if ftz.shape != actual.shape or ftz.values is None or actual_read.values is None:
            continue
        rest = oracle.differing(ftz.values, actual_read.values, allowed)
        if rest.any() and rest.sum() < differing.sum() and not (rest & ~differing).any():
            beyond = oracle.compare_values(
                expected.values, actual.values, allowed, expected.tolerance, only=rest
            )
            if beyond is None:  # cannot be: the rest differ
                continue
            note = f"; {int(differing.sum() - rest.sum())} other values differ only as subnormals flushed to zero"
            return [
                replace(beyond, detail=beyond.detail + note) if m.kind == "value" else m for m in mismatches
            ]
    return mismatches
