"""The checker behind the ``xp`` fixture: what a spec calls. A check runs a case on the
backend (compat.harness.runner), has the judge compare it with each reference
(compat.judge), and enters what differs in the ledger (compat.harness.ledger), which the
pytest hooks write as records."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from compat import adapters
from compat.adapters import Adapter
from compat.core import contracts, dtypes, ops, programs, special_cases
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.core.programs import Program
from compat.core.source import Exported
from compat.harness import plan
from compat.harness.casualties import Casualty
from compat.harness.inflight import Note
from compat.harness.isolation import Isolation
from compat.harness.ledger import Ledger
from compat.harness.references import (
    ByFiniteDifferences,
    Framework,
    InMode,
    NumPy,
    OnDevice,
    OwnAnswer,
    Promised,
    SignatureAdmits,
    Standard,
)
from compat.harness.runner import Runner, timed
from compat.harness.surveys import Surveys
from compat.judge import judge, oracle
from compat.results import records
from compat.results.registry import Entry, Example, Registry


@dataclass
class Session:
    """What every checker of a test process shares."""

    reference: Adapter  # NumPy
    registry: Registry
    gradient_reference: Adapter | None = None
    isolation: Isolation = field(default_factory=Isolation)  # child processes outlive one spec
    note: Note | None = None  # the call in flight, for whoever watches this process
    seed: int = 0  # of faults and of exhaustive-table samples
    producers: tuple[str, ...] | None = None  # compat's built-in backends checked: whose arrays rows import
    writable_producers: tuple[str, ...] = ()  # those of them whose arrays are written in place (overwrite)


def own_answer(checker: Checker, op: str, *args, against: tuple) -> Outcome:
    """``xp.check_itself``: run ``op(*args)`` on the backend and compare its answer with the
    backend's own answer to the same question asked another way: the dtype of ``against`` (an
    operation and its arguments; reference ``itself:<operation>``), as ``result_type(A, B)``
    against ``add(a, b)``."""
    case, question = Case(op, args), Case(against[0], against[1:])
    ledger = checker.ledger
    unsupported = ledger.declared_unsupported(op, case) or ledger.declared_unsupported(question.op, question)
    if unsupported is not None:
        return unsupported
    ledger.count_example()
    actual = checker.runner.call(checker.backend, case, checker.device, checker.mode)
    itself = OwnAnswer(checker.backend, question, checker.runner, checker.device, checker.mode)
    ledger.cases[op] += 1
    ledger.enter(judge(itself, case, actual, ledger.note_once))
    return actual


def promised_answer(checker: Checker, fact: str, promised: np.ndarray, op: str, *args) -> Outcome:
    """``xp.check_promise``: run ``op(*args)`` on the backend; its result must be ``promised``
    bit for bit, the answer the backend promises by its adapter fact ``fact`` (reference
    ``promise:<fact>``); the dtype is NumPy's to judge elsewhere, not the promise's."""
    case, ledger = Case(op, args), checker.ledger
    unsupported = ledger.declared_unsupported(op, case)
    if unsupported is not None:
        return unsupported
    ledger.count_example()
    actual = checker.runner.call(checker.backend, case, checker.device, checker.mode)
    if actual.values is not None and not actual.raised:
        promised = promised.astype(actual.values.dtype)
    expected = Outcome(values=promised, dtype=promised.dtype.name, shape=promised.shape)
    ledger.cases[op] += 1
    ledger.enter(judge(Promised(fact, expected), case, actual, ledger.note_once))
    return actual


def stated_answer(checker: Checker, op: str, *args, clauses: list) -> None:
    """``xp.check_standard``: ``op(*args)``, element ``i`` of the operands meeting the standard's
    special-case clause ``clauses[i]`` (compat.core.special_cases; an operand may be a Python scalar,
    the same for every element). Against NumPy as ``check``; where the result differs from NumPy's,
    the differing elements are checked again, one call per kind of difference (``alike``), so that a
    record's signature holds for each of its elements. Those that hold the result the standard states
    where NumPy's does not are marked so: the record differs from NumPy and follows the standard
    (status ``standard``). NumPy's own row is judged against the standard instead (reference
    ``standard``): its departures, grouped alike. Every other row is judged against the standard too
    where it gives NumPy's result and NumPy departs: it departs as NumPy does (status ``departs``:
    reported per row, never failed)."""
    case, ledger, runner = Case(op, args), checker.ledger, checker.runner
    if ledger.declared_unsupported(op, case) is not None:
        return
    actual = runner.call(checker.backend, case, checker.device, checker.mode)
    values = None if actual.raised else actual.values
    # every operand as an array, element i of each meeting clause i (a Python scalar stands for all)
    elements = special_cases.elementwise(args)

    def part(where: np.ndarray) -> Case:
        return Case(op, tuple(a[where] if isinstance(a, np.ndarray) else a for a in args))

    def against_standard(want: np.ndarray, got: np.ndarray, where: np.ndarray, departs: bool) -> None:
        for group, _ in alike(want, got, where):
            again = runner.call(checker.backend, part(group), checker.device, checker.mode)
            standard = Standard([clauses[i] for i in group])
            ledger.enter(judge(standard, part(group), again, ledger.note_once), departs=departs)

    if checker.backend.name == checker.session.reference.name:
        ledger.count_example()
        ledger.cases[op] += 1
        ledger.saw(case)
        if values is not None:
            want, held = special_cases.stated(clauses, elements, values)
            against_standard(want, values, ~held, departs=False)
        return
    expected = checker.numpy.outcome(case)
    differs = None
    if values is not None and expected.values is not None and values.shape == expected.values.shape:
        differs = oracle.differing(expected.values, values, oracle.bound(op, args))
    if differs is not None and values is not None and expected.values is not None:
        # where the row gives NumPy's result and NumPy departs from the standard: departs as NumPy does
        want, numpy_held = special_cases.stated(clauses, elements, expected.values)
        as_numpy = ~differs & ~numpy_held
        if as_numpy.any():
            against_standard(want, values, as_numpy, departs=True)
    if differs is None or not differs.any():
        checker._judged(case, actual=actual)
        return
    # the standard explains a difference only where NumPy departs from what it states (not where
    # both hold a stated sign with different values)
    held = special_cases.stated(clauses, elements, values)[1]
    held &= ~special_cases.stated(clauses, elements, expected.values)[1]
    if not differs.all():  # the elements that agree with NumPy, together
        checker._judged(part(np.flatnonzero(~differs)))
    for where, follows in alike(expected.values, values, differs, held):
        said = dict.fromkeys(clauses[i].clause.replace("``", "") for i in where)
        checker._judged(part(where), follows="; ".join(said) if follows else None)


def outside_the_standard(backend: Adapter, case: Case) -> str:
    """Whether a namespace row (``array-api:<module>``) refused a case outside the standard's domain:
    an operand of a dtype the standard's category for the operation leaves out (``mask + 1`` of a
    bool mask, ``maximum`` of bools). NumPy computes those, and the specs check them against NumPy
    on every row (compat.core.domain.in_domain); a namespace need only support the standard's
    categories, so its refusal is counted (under '<operation> of <dtype>', which this returns; '' for
    any other case), not judged. A result it gives there is judged against NumPy's as any other."""
    from compat.adapters.namespace import NamespaceAdapter

    if not isinstance(backend, NamespaceAdapter):
        return ""
    declared = ops.OPS.get(case.op)
    category = dtypes.CATEGORIES.get(declared.takes if declared is not None else "any", dtypes.ALL)
    outside = sorted(name for name in case.dtype_names() if name not in category)
    return f"{case.op} of {', '.join(outside)}" if outside else ""


def alike(
    expected: np.ndarray, actual: np.ndarray, only: np.ndarray, marks: np.ndarray | None = None
) -> list[tuple[np.ndarray, bool]]:
    """``only``'s elements grouped by what each shows: the class of the expected and of the
    actual value (a record's signature) and its mark; (indices, mark) per group."""
    groups: dict[tuple, list[int]] = {}
    for i in np.flatnonzero(only):
        mark = bool(marks[i]) if marks is not None else False
        groups.setdefault((oracle.value_class(expected[i]), oracle.value_class(actual[i]), mark), []).append(
            i
        )
    return [(np.array(where), key[2]) for key, where in groups.items()]


def signature_answer(checker: Checker, op: str, *args, **kwargs) -> Outcome:
    """``xp.check_signature``: a call whose every argument is of a kind the standard's signature
    admits (compat.core.calls), against NumPy as ``check``. Where NumPy raises, the standard is the
    reference, for a result is due: NumPy's own row records its departure (reference ``standard``),
    a row that answers follows the standard (its divergence from NumPy has status ``standard``), a
    row that raises as NumPy does departs as NumPy does (status ``departs``: reported, never failed)."""
    case, ledger = Case(op, args, kwargs), checker.ledger
    if ledger.declared_unsupported(op, case) is not None:
        return ledger.declared_unsupported(op, case)  # type: ignore[return-value]
    expected = checker.numpy.outcome(case)
    if not expected.raised or expected.error_category in ("crash", "timeout"):
        return checker._judged(case)
    admitted = SignatureAdmits(case)
    if checker.backend.name == checker.session.reference.name:
        ledger.count_example()
        ledger.cases[op] += 1
        ledger.saw(case)
        ledger.enter(judge(admitted, case, expected, ledger.note_once))
        return expected
    actual = checker.runner.call(checker.backend, case, checker.device, checker.mode)
    if not actual.raised or actual.error_category in ("crash", "timeout"):
        return checker._judged(case, actual=actual, follows=admitted.clause)
    # both refuse a call the standard admits: what NumPy's departure is, not which error it raises
    ledger.count_example()
    ledger.cases[op] += 1
    ledger.saw(case)
    ledger.enter(judge(admitted, case, actual, ledger.note_once), departs=True)
    return actual


OWN_OPTIONS = {"ulps", "terms", "grad"}  # check_function's keywords; the rest are the function's


def function_answer(
    checker: Checker,
    function: Callable,
    *args,
    ulps: float = 4.0,
    terms: Callable | None = None,
    grad: bool = False,
    **kwargs,
) -> Outcome:
    """``xp.check_function``: a user's own function, written against the standard
    (``xp = array_namespace(x)``), run on the backend's arrays and compared with the same function
    run on NumPy's, within the ``ulps`` its author declares (and ``eps * terms``, where ``terms``
    gives an accumulation's sum of |terms| per result and their number: compat.core.operation.Op).
    With ``grad``, also its gradient (``function_gradient``)."""
    if checker.backend.no_array_namespace:  # a function written against the standard cannot run there
        pytest.skip(f"{checker.backend.id}: {checker.backend.no_array_namespace}")
    if clash := sorted(OWN_OPTIONS & inspect.signature(function).parameters.keys()):
        # its own keyword would be taken as check_function's, silently
        raise TypeError(
            f"{function.__qualname__} has a parameter named {clash[0]!r}, as check_function's option: check "
            f"a function of your module that calls it with that keyword instead"
        )
    case = Case(ops.declare_function(function, ulps, terms), args, kwargs)
    if not checker.ledger.cases[case.op]:  # the test's first check of it: the registry's examples first
        replay_function_examples(checker, case.op)
    answer = checker._judged(case)
    if grad:
        function_gradient(checker, case)
    return answer


def replay_function_examples(checker: Checker, op: str) -> None:
    """The registry's examples of a user's function (and of gradients of it) in this test's
    family, replayed on the row as ``replay_known`` replays the table's (it cannot: the function
    is known once the test declares it). A replay that diverges anew is kept for the test's end, not
    raised into the Hypothesis example being drawn."""
    checker.ledger.replaying = True
    try:
        replay_examples(checker, lambda case: op in operations_of(case))
    finally:
        checker.ledger.replaying = False


def wide(value):
    """A real floating array in long double, as the finite differences compute; anything else as it is."""
    return value.astype(np.longdouble) if isinstance(value, np.ndarray) and value.dtype.kind == "f" else value


def function_gradient(checker: Checker, case: Case) -> None:
    """The gradient of ``sum(function(*args, **kwargs) * c)`` with respect to the function's real
    floating array arguments, ``c`` a cotangent of NumPy's result (its shape and dtype, elements
    +-[0.5, 2] from the session's seed), checked as the gradient spec checks its programs
    (``Checker.check_gradient``: against finite differences on NumPy and the gradient reference
    framework, within their tolerance); a row without autodiff counts ``grad`` unsupported, with
    its reason, and so does one whose function refuses the long double arrays the finite differences
    compute on (LAPACK has none: np.linalg raises). Nothing is differentiated where NumPy's call
    raised (the value check judged that)."""
    if checker.ledger.declared_unsupported("grad") is not None:  # the row's own reason, counted
        return
    expected = checker.numpy.outcome(case)
    if expected.raised:
        return
    if expected.values is None or expected.parts is not None or expected.values.dtype.kind != "f":
        raise TypeError(
            f"{case.op}: a gradient needs a real floating array result, not {expected.describe()}"
        )
    try:
        ops.get(case.op).python(*(wide(a) for a in case.args), **case.kwargs)
    except Exception as error:  # whatever it raises is the reason
        checker.ledger.unsupported["grad"] = (
            f"the finite differences' {case.op} refuses long double arrays ({type(error).__name__}: {error})"
        )
        return
    rng = np.random.default_rng(checker.session.seed)
    shape = expected.values.shape
    cotangent = (rng.uniform(0.5, 2, shape) * rng.choice([-1.0, 1.0], shape)).astype(expected.values.dtype)
    program = programs.weighted_sum(case.op, case.args, case.kwargs, cotangent)
    checker.check_gradient("grad", program, *program.inputs)


def counted_outside(ledger: Ledger, op: str) -> bool:
    """Count a raise on a call outside the standard's dtype category for ``op`` (``""``: none) as a
    namespace row's unsupported case, which is not judged."""
    if op:
        ledger.unsupported[op] = "outside the standard's dtype category: a namespace need not support it"
        ledger.unsupported_cases[op] += 1
    return bool(op)


class Checker:
    """What a spec talks to: ``xp.check("add", x, y)``; ``xp.survey`` for survey cells."""

    def __init__(
        self,
        backend: Adapter,
        family: str,
        spec: str,
        session: Session,
        device: str | None = None,
        reference_device: str | None = None,
        mode: str = "eager",
        share: float = 1.0,
        fault: str | None = None,
        casualty: Casualty | None = None,
        table_share: float = 1.0,
    ):
        self.backend, self.spec, self.session, self.device, self.mode = backend, spec, session, device, mode
        # shares of exhaustive tables (see sample); table_share: a param checked beside the spec's own
        self.share, self.table_share, self.casualty = share, table_share, casualty
        self.runner = Runner(session, fault, casualty)
        self.numpy = NumPy(session.reference, self.runner)
        self.finite_differences = ByFiniteDifferences()
        # a device under test is also compared with the backend on its reference device
        on = reference_device or backend.reference_device
        self.on_reference_device = OnDevice(backend, on, self.runner, mode) if device else None
        # an execution mode besides eager is also compared with the same backend's eager result
        self.in_eager_mode = InMode(backend, "eager", self.runner, device) if mode != "eager" else None
        other = session.gradient_reference
        mine = other is None or other is backend  # a gradient reference is not compared with itself
        self.gradient_reference = None if mine else Framework(other, self.runner)
        # what the device promises about its results, its vendor's documented contract (CuPy's default
        # device is its GPU)
        self.contract = contracts.of(backend.name, device or backend.reference_device)
        self.backend_info = row_info(backend, fault, mode)
        self.ledger = Ledger(backend, self.backend_info, session.registry, family, device, mode)
        self.survey = Surveys(self)

    def sample(self, table, least: int = 5) -> list:
        """The rows of an exhaustive table this param checks: all, or with a share below 1 (device
        and mode params, a param checked beside the spec's own: its compat_beside mark) every k-th
        row, k = 1/share (at least ``least`` rows), from an offset the seed picks."""
        rows = list(table)
        k = plan.step(len(rows), self.share * self.table_share, least)
        return rows[self.session.seed % k :: k]

    def observe(self, table: str, row: str, value: str) -> None:
        self.ledger.observe(table, row, value)  # one cell of a survey table; the backend is the column

    @timed
    def check(self, op: str, *args, **kwargs) -> Outcome:
        """``op(*args, **kwargs)`` on both sides: a divergence is raised (in Hypothesis) or kept."""
        return self._judged(Case(op, args, kwargs))

    @timed
    def check_exact(self, op: str, *args, **kwargs) -> Outcome:
        """Like check, bit for bit (copies, conversions: -0.0, NaN payloads and subnormals must survive)."""
        return self._judged(Case(op, args, kwargs, exact=True))

    check_itself = timed(own_answer)  # op(*args) against the backend's own answer (see own_answer)
    check_promise = timed(promised_answer)  # op(*args) against what the backend promises
    check_standard = timed(stated_answer)  # a special case against NumPy and the standard's result
    check_function = timed(function_answer)  # a user's own function, against it on NumPy
    check_signature = timed(signature_answer)  # a call the standard's signature admits

    @timed
    def check_gradient(self, transform: str, program: Program, *args: np.ndarray) -> Outcome:
        """Run an autodiff ``transform`` (grad, jacobian, per_example_grad, hvp) of ``program`` on
        ``args``; compare it with the derivative by finite differences (reference ``numpy-fd``) and
        with the gradient reference framework (its id), each within the finite-difference tolerance."""
        # the transform, or an operation of the program, the backend declares it lacks (tnp's copysign),
        # or a dtype of its arguments
        case = Case(transform, args, program=program)
        for op in (transform, *sorted(program.root.ops())):
            unsupported = self.ledger.declared_unsupported(op, case)
            if unsupported is not None:
                return unsupported
        self.ledger.count_example()
        actual = self.runner.call(self.backend, case, self.device, self.mode)
        truth = self.finite_differences.outcome(case)
        self.ledger.cases[transform] += 1
        self._against_itself(case, actual, truth)
        note = self.ledger.note_once
        self.ledger.enter(
            judge(self.finite_differences, case, actual, note, expected=truth, device=self.device)
        )
        if self.gradient_reference is not None:
            self.ledger.enter(judge(self.gradient_reference, case, actual, note, truth=truth))
        return actual

    def _judged(self, case: Case, actual: Outcome | None = None, follows: str | None = None) -> Outcome:
        """A case (``actual``: its outcome, where called already) against NumPy (a value that
        ``follows`` a clause of the standard marked so), and against the backend elsewhere."""
        unsupported = self.ledger.declared_unsupported(case.op, case)
        if unsupported is not None:
            return unsupported
        self.ledger.count_example()
        expected = self.numpy.outcome(case)
        actual = actual or self.runner.call(self.backend, case, self.device, self.mode)
        if actual.raised and counted_outside(self.ledger, outside_the_standard(self.backend, case)):
            return actual  # counted, not judged
        moves_to = ops.get(case.op).moves_to
        verdict = judge(
            self.numpy,
            case,
            actual,
            self.ledger.note_once,
            expected=expected,
            again=lambda c: self.runner.call(self.backend, c, self.device, self.mode),
            device=self.device,
            target=case.args[moves_to] if moves_to is not None else None,
            contract=self.contract,
        )
        self.ledger.cases[case.op] += 1
        self.ledger.saw(case)
        self._against_itself(case, verdict.actual)
        self.ledger.enter(verdict, follows)
        return verdict.actual

    def _against_itself(self, case: Case, actual: Outcome, truth: Outcome | None = None) -> None:
        """The device under test against its reference device (what a device team asks), by the
        device's contract where it has one (its ULPs from NumPy's result), then the mode against
        eager (what a compiler team asks; a gradient within twice the tolerance each has against
        the ``truth``, as two frameworks' are)."""
        note, device = self.ledger.note_once, self.on_reference_device
        if device is not None:
            numpy = self.numpy.outcome
            self.ledger.enter(judge(device, case, actual, note, contract=self.contract, truth_of=numpy))
        if self.in_eager_mode is not None:
            self.ledger.enter(judge(self.in_eager_mode, case, actual, note, truth=truth))

    def replay_known(self, family: str) -> int:
        """Replay, as a spec of ``family``, every registry example for this backend and
        device; each one's outcome (reproduced, or fixed in this version) goes to the
        ledger's ``replays``. Returns how many examples ran."""
        self.ledger.family = family
        replay_examples(self, lambda case: True)
        return len(self.ledger.replays)

    def replay(self, case: Case | None, question: Case | None = None, signature: bool = False) -> None:
        """Check a case rebuilt from a record as its spec checked it (outside Hypothesis,
        so a divergence is kept, never raised): a casualty's, the case a previous run of this
        spec died in, first (its call in a child process now). See ``replayed``."""
        if case is not None:
            replayed(self, case, question, signature)


def replay_examples(checker: Checker, wanted: Callable[[Case], bool]) -> None:
    """Replay, as the spec of the ledger's family, every registry example of that family for the
    checker's backend and device whose case is ``wanted``; each one's outcome (reproduced, or
    fixed in this version) goes to the ledger's ``replays``."""
    ledger = checker.ledger
    if checker.backend.name == checker.session.reference.name:  # NumPy against itself
        return
    registry = checker.session.registry
    entries = registry.by_id()
    for entry, example in registry.examples_on(checker.backend_info, checker.device, ledger.family):
        if (case := replayable_case(example, checker)) is not None and wanted(case):
            ledger.replayed = []
            counted = ledger.unsupported_cases.total()
            try:
                # NumPy's refusal of a call the standard's signature admits: judged as its spec judged it
                signature = "error" in entry.kinds and entry.patterns.get("reference") == ("standard",)
                checker.replay(case, example.question(), signature)
            finally:
                shown, ledger.replayed = ledger.replayed, None
            status, by = replay_status(entry, shown, entries, checker.backend_info)
            if status == "fixed" and ledger.unsupported_cases.total() > counted:
                # counted, not checked (a dtype the row lacks, a call outside the standard's category
                # on a namespace row): no evidence of a fix
                status = "unjudged"
            ledger.replays.append((entry.id, case, status))
            if status == "shadowed":
                ledger.shadowing[entry.id] = by
            elif status == "overridden":
                ledger.overriding[entry.id] = by


def replay_status(
    entry: Entry, shown: list[tuple[dict, str | None]], entries: dict[str, Entry], backend: records.Backend
) -> tuple[str, list[str]]:
    """What a replay of one of ``entry``'s examples says of it, from the divergences the replay showed
    (``shown``: each one's fields and the entry that matched it first), and the entries that matched
    first what the entry matches too: reproduced (the entry matched one first); shadowed (another
    entry of its level, or a broader one, did: the registry to mend, not a fix); overridden (an
    entry more specific to this row did: its device's, mode's or config's, or one that names the
    wrapper a framework's entry reaches through, which describes how the row differs from where the
    example's entry holds: the order at work, not a fix either); fixed (the entry matches nothing
    the replay showed; ``replay_examples`` makes it unjudged where the row counted the case as
    unsupported instead of checking it)."""
    if any(first == entry.id for _, first in shown):
        return "reproduced", []
    hidden = sorted({first for fields, first in shown if first and entry.matches(backend, fields)})
    if not hidden:
        return "fixed", []
    overriding = all(entries[e].specificity(backend) < entry.specificity(backend) for e in hidden)
    return ("overridden" if overriding else "shadowed"), hidden


def replayable_case(example: Example, checker: Checker) -> Case | None:
    """The example's case where it replays: on the backends and device it names, where the backend
    has its operation (torch's examples of from_dlpack_onto do not replay on array_api_compat.torch,
    which has none: nothing there could reproduce them, nor show them fixed), every backend whose
    exported array it imports is installed, and any device it moves to is the row's; else None."""
    if not example.replays_on(checker.backend_info, checker.device):
        return None  # before the case is parsed: most examples are another backend's or device's
    case = example.case()
    if not all(declared(op) for op in operations_of(case)):
        return None  # a user's function, replayed by its own test once it declares it (xp.check_function)
    moves_to = ops.get(case.op).moves_to  # onto a device the row has not (cpu:0 where a namespace names cpu)
    if (
        moves_to is not None
        and len(case.args) > moves_to
        and case.args[moves_to] not in checker.backend.placement.devices()
    ):
        return None
    return case if checker.backend.unsupported(case.op) is None and producers_installed(case) else None


def operations_of(case: Case) -> set[str]:
    return {case.op} | (case.program.root.ops() if case.program is not None else set())


def declared(op: str) -> bool:
    try:
        ops.get(op)
    except ops.UnknownOperation:
        return False
    return True


def producers_installed(case: Case) -> bool:
    """Whether every backend whose exported array the case imports is installed (an example found
    where TensorFlow made the array cannot replay where it is not); a producer is named as
    ``--backends`` names it (a namespace's ``array-api:<module>`` too)."""
    return all(installed(a.producer) for a in case.args if isinstance(a, Exported))


def installed(backend: str) -> bool:
    try:
        adapters.resolve(backend)
    except (adapters.BackendMissing, adapters.AdapterError):
        return False
    return True


def replayed(checker: Checker, case: Case, question: Case | None, signature: bool = False) -> None:
    """A replayed case, checked as its record was: against the backend's own answer to
    ``question`` (check_itself), a gradient's program, a call the standard's ``signature`` admits
    (check_signature: where NumPy refuses it, the standard is the reference), or against NumPy."""
    if question is not None:
        checker.check_itself(case.op, *case.args, against=(question.op, *question.args))
    elif case.program is not None:
        checker.check_gradient(case.op, case.program, *case.args)
    elif signature:
        checker.check_signature(case.op, *case.args, **case.kwargs)
    else:
        checker._judged(case)


def backend_info(adapter: Adapter) -> records.Backend:
    """The backend as records name it; a namespace's with the framework it wraps, in its default config."""
    return records.Backend(
        adapter.name,
        adapter.id,
        adapter.version(),
        dict(adapter.config),
        f"{type(adapter).__module__}:{type(adapter).__qualname__}",
        backend_info(adapters.load_adapter(adapter.wraps)) if adapter.wraps else None,
    )


def row_info(adapter: Adapter, fault: str | None, mode: str) -> records.Backend:
    """The backend as its records name it: with the plug-in fault and the mode it runs in."""
    info = backend_info(adapter)
    if fault:
        info = replace(info, config={**info.config, "fault": fault})
    if mode != "eager":
        info = replace(info, config={**info.config, "mode": mode})
    return info
