"""Whether a device's contract (compat.core.contracts) allows a difference: the step
``within_contract`` of compat.judge.steps, and the offline rematch of old records
(compat.results.rematch), judge by this one function."""

from __future__ import annotations

from compat.core import ops
from compat.core.case import Case
from compat.core.contracts import Clause, Contract
from compat.core.outcome import Outcome
from compat.judge import oracle


def allowing(
    contract: Contract, case: Case, mismatch: oracle.Mismatch, truth: Outcome | None, actual: Outcome
) -> Clause | None:
    """The clause of ``contract`` that allows a value ``mismatch`` of ``actual`` (the device's
    outcome of ``case``), or None: one whose subnormals clause the difference is (the judge's
    flush-to-zero step names it ``subnormal -> flushed``), or one whose ULPs the device's values
    are within, measured from the correctly rounded result, ``truth`` (NumPy's, in wider
    precision: compat.judge.accurate). A zero's sign, a NaN or an infinity is no matter of ULPs."""
    if mismatch.kind != "value" or mismatch.part is not None or case.program is not None:
        return None
    declared = ops.get(case.op)
    op = declared.computes or case.op
    by_number = any(type(a) in (int, float, complex) for a in case.args)  # x / 3.0, 3.0 / x
    flushed = (mismatch.expected, mismatch.actual) == ("subnormal", "flushed")
    for clause in contract.clauses:
        if not clause.covers(op, actual.dtype, by_number):
            continue
        if clause.flushed and flushed:
            return clause
        if clause.ulps is not None and comparable(truth, actual):
            bound = oracle.Bound(clause.ulps, rule=f"{clause.ulps:g} ULP, the contract's", signed_zeros=True)
            if not any(m.kind == "value" for m in oracle.compare(truth, actual, bound)):
                return clause
    return None


def comparable(truth: Outcome | None, actual: Outcome) -> bool:
    return (
        truth is not None
        and not truth.raised
        and truth.values is not None
        and actual.values is not None
        and truth.dtype == actual.dtype
        and truth.shape == actual.shape
    )
