"""The judge's one entry point, ``judge``: a backend's outcome of a case against one reference,
in small ordered steps. Each step reads and updates the ``Judgement``; the steps and their order
depend only on the reference's role (``STEPS``). A new comparison rule is a step here (its
logic, if long, in compat.judge.rules), added to the roles it applies to.

Against NumPy: settle the backend's error, bound the case, compare, drop value mismatches that
the dtype explains, name flush-to-zero, mark what a device's contract allows, check placement.
Against the backend itself (its reference device, eager): nothing where the backend's call
crashed or hung (NumPy's judgement has it), settle the reference's error, give up on a reference
that crashed or hung, widen gradients to the truth's tolerance, compare bit for bit or within the
bound, name flush-to-zero, mark what the device's contract allows. Against finite differences and
a gradient reference framework: compare within the derivative's tolerance, a dtype divergence
explaining the values. Against the backend's own answer to the same question asked another way
(result_type against the dtype of its add): compare.
Against the standard's special cases: each element's stated result.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from compat.core import ops, special_cases
from compat.core.case import Case
from compat.core.contracts import Contract
from compat.core.outcome import Outcome
from compat.judge import factorizations, flush, gradients, oracle, rules
from compat.judge.contract import allowing
from compat.judge.oracle import Exactness
from compat.judge.reference import Reference, Role


@dataclass
class Verdict:
    """What a judgement found: the mismatches of ``actual`` (settled) against ``expected``."""

    reference: Reference
    case: Case
    expected: Outcome
    actual: Outcome
    mismatches: list[oracle.Mismatch]


@dataclass
class Judgement:
    """One case against one reference, as the steps see and update it."""

    reference: Reference
    case: Case
    actual: Outcome
    note: rules.Note  # survey cells: a reference lost, an unstable error
    expected: Outcome | None = None  # the reference's outcome, where the caller has it already
    again: Callable[[Case], Outcome] | None = None  # the call under test once more (settle_actual)
    truth: Outcome | None = None  # finite differences, whose tolerances a gradient's comparison takes
    device: str | None = None  # under test, where the result belongs
    target: str | None = None  # where a copy's result belongs instead
    contract: Contract | None = None  # the device's, where a device row is judged (compat.core.contracts)
    # NumPy's outcome of a case: the correctly rounded truth a contract's ULPs are from (against NumPy: expected_of)
    truth_of: Callable[[Case], Outcome] | None = None
    allowed: oracle.Bound = oracle.APPROXIMATE
    exactness: Exactness = Exactness.WITHIN_BOUND
    mismatches: list[oracle.Mismatch] = field(default_factory=list)
    answers: dict = field(default_factory=dict)  # NumPy's outcomes by case (see expected_of)

    @property
    def reference_outcome(self) -> Outcome:
        """The reference's outcome, once ``expect`` (every role's first step) has it."""
        assert self.expected is not None, "expect comes first"
        return self.expected

    def expected_of(self, case: Case) -> Outcome:
        """The reference's outcome of ``case`` (this one in another dtype, its subnormals read
        as zero). NumPy is a pure function of the case: asked again for one it answered (the
        case read as zero is the case itself where no operand is subnormal), it is not called."""
        if self.reference.role is not Role.SEMANTIC:
            return self.reference.outcome(case)
        key = fingerprint(case)
        if key not in self.answers:
            self.answers[key] = self.reference.outcome(case)
        return self.answers[key]


STOP = False  # a step's answer that ends the judgement: the reference is no reference


def expect(j: Judgement) -> None:
    """The reference's outcome of the case, unless the caller has it already (NumPy's is asked
    before the backend is called: then it is remembered as the answer for this case)."""
    if j.expected is None:
        j.expected = j.expected_of(j.case)
    elif j.reference.role is Role.SEMANTIC:
        j.answers[fingerprint(j.case)] = j.expected


def settle_actual(j: Judgement) -> None:
    j.actual = rules.settled(j.case, j.reference_outcome, j.actual, j.again, j.note)


def settle_expected(j: Judgement) -> None:
    j.expected = rules.settled(j.case, j.actual, j.reference_outcome, j.reference.outcome, j.note)


def keep_unless_lost(j: Judgement) -> bool:
    return STOP if rules.lost(j.case, j.reference.id, j.reference_outcome, j.note) else True


def widen_to_truth(j: Judgement) -> None:
    """Two approximations of a derivative agree within twice the tolerance each has of the truth."""
    if j.truth is not None:
        gradients.widen(j.reference_outcome, j.truth, factor=2)


def bound_of_case(j: Judgement) -> None:
    """The operation's bound (compat.judge.oracle.bound); a copy (``check_exact``) bit for bit."""
    j.allowed = oracle.bound(j.case.op, j.case.args, j.case.kwargs)
    j.exactness = Exactness.BITS if j.case.exact else Exactness.WITHIN_BOUND


def bound_of_itself(j: Judgement) -> None:
    """The backend against itself elsewhere: bit for bit (a copy or an elementwise kernel has no
    excuse; NaN payloads aside), within the oracle's bound for operations whose rounding depends
    on summation order, and for programs (gradients; within the truth's tolerance where given)."""
    if j.case.program is not None:
        j.allowed, j.exactness = oracle.PROGRAM, Exactness.WITHIN_BOUND
        return
    j.allowed = oracle.bound(j.case.op, j.case.args, j.case.kwargs)
    accumulates = ops.get(j.case.op).accumulates
    j.exactness = Exactness.WITHIN_BOUND if accumulates else Exactness.COMPUTED


def bit_for_bit(j: Judgement) -> None:
    j.allowed, j.exactness = oracle.EXACT, Exactness.BITS


def bound_of_program(j: Judgement) -> None:
    j.allowed, j.exactness = oracle.PROGRAM, Exactness.WITHIN_BOUND


def in_canonical_form(j: Judgement) -> None:
    """A result that is not unique (``Op.canonical``: an unstable argsort where ties exist) is
    judged by what every right answer satisfies: both sides in the one form each right answer
    has. A result that cannot be put in that form (indices out of range) is judged as it is."""
    canonical = ops.get(j.case.op).canonical
    if canonical is None or j.case.program is not None:
        return
    j.expected = rules.in_canonical_form(canonical, j.case, j.reference_outcome)
    j.actual = rules.in_canonical_form(canonical, j.case, j.actual)


def compare(j: Judgement) -> None:
    """The outcomes compared; where the standard leaves the values open (``empty``), their dtype,
    shape and device only."""
    expected, actual = j.reference_outcome, j.actual
    declared = ops.get(j.case.op)
    if not declared.specified_values or (declared.satisfies and j.case.program is None):
        expected, actual = oracle.without_values(expected), oracle.without_values(actual)
    j.mismatches = oracle.compare(expected, actual, j.allowed, j.exactness)


def satisfied(j: Judgement) -> None:
    """A result that is not unique and has no canonical form (a factorization: ``Op.satisfies``),
    whose values ``compare`` left out: judged by the properties every right answer has
    (compat.judge.factorizations), each one it violates and the reference's result does not (a
    mode or a device changes nothing about which hold) a ``value`` mismatch that names it. Not
    where the shapes differ already (the factors are not the reference's kind)."""
    if not ops.get(j.case.op).satisfies or j.case.program is not None:
        return
    if any(m.kind in ("shape", "error", "crash", "timeout") for m in j.mismatches):
        return
    held = {m.expected for m in factorizations.violations(j.case, j.reference_outcome)}
    j.mismatches = j.mismatches + [
        m for m in factorizations.violations(j.case, j.actual) if m.expected not in held
    ]


def as_stated(j: Judgement) -> None:
    """Each element against the result the standard states for the clause it meets
    (compat.core.special_cases.stated; the reference holds the clauses): a ``value`` mismatch
    where it holds another. An error or a shape is compared as against NumPy (a result was due)."""
    actual = j.actual
    if actual.raised or actual.values is None or actual.shape != j.reference_outcome.shape:
        due = oracle.without_values(replace(j.reference_outcome, dtype=actual.dtype))
        j.mismatches = oracle.compare(due, oracle.without_values(actual))
        return
    clauses = j.reference.clauses  # type: ignore[attr-defined]  # a STANDARD reference's
    want, ok = special_cases.stated(clauses, special_cases.elementwise(j.case.args), actual.values)
    if not ok.all():
        clause = clauses[int(np.argmin(ok))].clause.replace("``", "")
        j.mismatches = [oracle.value_mismatch(want, actual.values, ~ok, f"the standard: {clause}")]


def admitted(j: Judgement) -> None:
    """A call whose every argument the standard's signature admits has a result: an error is an
    ``error`` mismatch that names what the signature admits (the reference's ``clause``)."""
    if not j.actual.raised:
        return
    clause = j.reference.clause  # type: ignore[attr-defined]  # a SIGNATURE reference's
    j.mismatches = [
        oracle.Mismatch(
            "error", "result", j.actual.category, f"{j.actual.describe()}; the standard: {clause}"
        )
    ]


def without_consequences(j: Judgement) -> None:
    j.mismatches = rules.without_consequences(j.case, j.actual, j.mismatches, j.allowed, j.expected_of)


def flush_to_zero(j: Judgement) -> None:
    if j.case.program is None:
        pure = j.reference.role is Role.SEMANTIC
        j.mismatches = flush.as_flush_to_zero(
            j.expected_of, j.case, j.reference_outcome, j.actual, j.mismatches, j.allowed, lazily=pure
        )


def within_contract(j: Judgement) -> None:
    """On a device with a contract (its vendor's documented accuracy and subnormal handling), a
    value mismatch a clause allows is marked with it: a record of status ``contract``, not a
    divergence (compat.judge.contract). Its ULPs are from NumPy's result (``truth_of``; against
    NumPy, the reference's own), not from the reference device's bits."""
    if j.contract is None or not any(m.kind == "value" for m in j.mismatches):
        return
    truth_of = j.truth_of or j.expected_of
    marked = []
    for m in j.mismatches:
        clause = allowing(j.contract, j.case, m, truth_of, j.actual)
        marked.append(replace(m, within=str(clause)) if clause is not None else m)
    j.mismatches = marked


def dtype_explains_values(j: Judgement) -> None:
    j.mismatches = gradients.dtype_explains_values(j.mismatches)


def misplaced(j: Judgement) -> None:
    j.mismatches = j.mismatches + rules.misplaced(j.actual, j.device, j.target)


def judged_once_if_it_crashed(j: Judgement) -> bool:
    """A call that crashed or hung (or left its device unusable) is a divergence from the row's
    first reference (NumPy, the finite differences), which judges the same outcome: against the
    backend elsewhere it would be the same record again, and the reference is not asked."""
    return STOP if j.actual.category in ("crash", "timeout") else True


AGAINST_ITSELF = (
    judged_once_if_it_crashed,
    expect,
    settle_expected,
    keep_unless_lost,
    widen_to_truth,
    bound_of_itself,
    in_canonical_form,
    compare,
    satisfied,
    flush_to_zero,
    within_contract,
)
STEPS: dict[Role, tuple[Callable[[Judgement], bool | None], ...]] = {
    Role.SEMANTIC: (
        expect,
        settle_actual,
        bound_of_case,
        in_canonical_form,
        compare,
        satisfied,
        without_consequences,
        flush_to_zero,
        within_contract,
        misplaced,
    ),
    Role.DEVICE: AGAINST_ITSELF,
    Role.MODE: AGAINST_ITSELF,
    Role.FINITE_DIFFERENCES: (expect, bound_of_program, compare, dtype_explains_values, misplaced),
    # a promise of the backend's own (an adapter fact): its answer, bit for bit
    Role.PROMISE: (expect, bit_for_bit, compare),
    # the standard's stated result, element by element (its dtype is NumPy's to judge)
    Role.STANDARD: (expect, as_stated),
    # the standard's signature: a result where it admits every argument
    Role.SIGNATURE: (expect, admitted),
    # one answer against another of the same backend: nothing to settle or bound, only to compare
    Role.ITSELF: (expect, keep_unless_lost, compare),
    Role.FRAMEWORK: (
        expect,
        keep_unless_lost,
        widen_to_truth,
        bound_of_program,
        compare,
        dtype_explains_values,
    ),
}


def judge(reference: Reference, case: Case, actual: Outcome, note: rules.Note, **context) -> Verdict | None:
    """The backend's ``actual`` outcome of ``case`` against ``reference``, by the steps of its
    role; ``context``: the other fields of a Judgement. None where the reference gave no answer
    (it crashed or hung: see compat.judge.rules.lost)."""
    judgement = Judgement(reference, case, actual, note, **context)
    for step in STEPS[reference.role]:
        if step(judgement) is STOP:
            return None
    return Verdict(reference, case, judgement.reference_outcome, judgement.actual, judgement.mismatches)


def fingerprint(case: Case) -> tuple:
    """What makes two cases the same question: the operation, every bit of every value."""
    return (case.op, key_of(case.args), key_of(sorted(case.kwargs.items())), case.exact, id(case.program))


def key_of(value) -> object:
    if isinstance(value, np.ndarray):
        return (type(value).__name__, value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.generic):
        return (type(value).__name__, value.tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, *map(key_of, value))
    if isinstance(value, float):
        return ("float", struct.pack("<d", value))  # -0.0 and a NaN's payload are their own
    if isinstance(value, complex):
        return ("complex", struct.pack("<dd", value.real, value.imag))
    return (type(value).__name__, repr(value))
