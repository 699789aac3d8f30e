"""Whether a device's contract (compat.core.contracts) allows a difference: the step
``within_contract`` of compat.judge.steps, and the offline rematch of old records
(compat.results.rematch), judge by this one function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from compat.core import ops
from compat.core.case import Case
from compat.core.contracts import Clause, Contract
from compat.core.outcome import Outcome
from compat.judge import flush, oracle


def allowing(
    contract: Contract,
    case: Case,
    mismatch: oracle.Mismatch,
    truth_of: Callable[[Case], Outcome],
    actual: Outcome,
) -> Clause | None:
    """The clause of ``contract`` that allows a value ``mismatch`` of ``actual`` (the device's
    outcome of ``case``), or None: one whose subnormals clause the difference is (the judge's
    flush-to-zero step names it ``subnormal -> flushed``), one that keeps subnormals where its
    reference device flushes them, whose result of subnormal operands is NumPy's (within the
    oracle's bound), or one whose ULPs the device's values
    are within, measured from the correctly rounded result: NumPy's (``truth_of`` a case, in wider
    precision: compat.judge.accurate), in the device's result dtype where that is not NumPy's (a
    dtype divergence of its own). A zero's sign, a NaN or an infinity is no matter of ULPs."""
    if mismatch.kind != "value" or mismatch.part is not None or case.program is not None:
        return None
    declared = ops.get(case.op)
    op = declared.computes or case.op
    by_number = any(type(a) in (int, float, complex) for a in case.args)  # x / 3.0, 3.0 / x
    flushed = (mismatch.expected, mismatch.actual) == ("subnormal", "flushed")
    payload = (mismatch.expected, mismatch.actual) == ("nan", "nan")  # a NaN's bits, where judged bit for bit
    truth = None
    for clause in contract.clauses:
        if (
            clause.flushed
            and flushed
            and any(clause.covers(op, d) for d in {actual.dtype, *case.dtype_names()})
        ):
            return clause  # a flush of an operand too: equal and astype(bool) read a subnormal as zero
        if clause.nan_bits and payload and clause.covers(op, actual.dtype):
            return clause
        if not clause.covers(op, actual.dtype, by_number):
            continue
        truth = truth or truth_in(actual.dtype, case, truth_of)
        if clause.ulps is not None and comparable(truth, actual):
            bound = oracle.Bound(clause.ulps, rule=f"{clause.ulps:g} ULP, the contract's", signed_zeros=True)
            if not any(m.kind == "value" for m in oracle.compare(truth, actual, bound)):
                return clause
        if clause.keeps_subnormals and comparable(truth, actual) and of_subnormals(case, truth):
            bound = oracle.bound(case.op, case.args, case.kwargs)
            if not any(m.kind == "value" for m in oracle.compare(truth, actual, bound)):
                return clause
    return None


def of_subnormals(case: Case, truth: Outcome) -> bool:
    """Whether a subnormal is among the case's float operands or NumPy's result."""
    arrays = [a for a in (*case.args, truth.values) if isinstance(a, np.ndarray)]
    return any(flush.has_subnormals(a) for a in arrays)


def truth_in(dtype: str | None, case: Case, truth_of: Callable[[Case], Outcome]) -> Outcome:
    """NumPy's outcome of the case, asked for a result of ``dtype`` where its own is another."""
    truth = truth_of(case)
    if dtype is None or truth.raised or truth.dtype == dtype or "dtype" in case.kwargs:
        return truth
    return truth_of(replace(case, kwargs={**case.kwargs, "dtype": dtype}))


def comparable(truth: Outcome | None, actual: Outcome) -> bool:
    return (
        truth is not None
        and not truth.raised
        and truth.values is not None
        and actual.values is not None
        and truth.dtype == actual.dtype
        and truth.shape == actual.shape
    )
