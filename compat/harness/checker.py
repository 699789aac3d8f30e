"""The checker behind the ``xp`` fixture: run a case on the reference and on
the backend, compare, and turn what differs into records.

A divergence that the registry knows is kept (the smallest example per
signature) and the test goes on. A new divergence inside a Hypothesis test
is raised at once (``compat.harness.found``), so Hypothesis shrinks each
distinct new divergence to its own minimal example. Outside Hypothesis
(exhaustive tables) new divergences are kept too and the loop goes on.
``records`` then writes one record per signature.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace

import hypothesis
import numpy as np
import pytest

from compat.adapters import Adapter
from compat.adapters.base import UnsupportedOperation
from compat.adapters.numpy_fd import FiniteDifferences
from compat.core import ops
from compat.core.case import Case
from compat.core.outcome import Outcome, error_type, first_line
from compat.core.programs import Program
from compat.harness.casualties import Casualty
from compat.harness.found import Found, describe, divergence_type
from compat.harness.inflight import Note
from compat.harness.isolation import HUNG_AGAIN, Isolation
from compat.harness.reproducer import InMode, OnDevice, reproducer
from compat.harness.surveys import Surveys, timed
from compat.judge import oracle
from compat.judge.accurate import accurate
from compat.judge.flush import as_flush_to_zero
from compat.judge.gradients import dtype_explains_values, gradient_tolerance, widen
from compat.results import records
from compat.results.registry import Registry

LOST = ("crash", "timeout")  # what a reference that gave no answer gave


@dataclass
class Session:
    """What every checker of a test process shares."""

    reference: Adapter  # NumPy
    registry: Registry
    gradient_reference: Adapter | None = None
    isolation: Isolation = field(default_factory=Isolation)  # child processes outlive one spec
    note: Note | None = None  # the call in flight, for whoever watches this process
    seed: int = 0  # of faults and of exhaustive-table samples


class Checker(Surveys):
    """What a spec talks to: ``xp.check("add", x, y)``."""

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
    ):
        self.backend = backend
        self.session = session
        self.reference = session.reference
        self.registry = session.registry
        # a device under test is also compared with the backend on its reference device
        self.on_reference_device = (
            OnDevice(backend, reference_device or backend.reference_device) if device else None
        )
        # an execution mode besides eager is also compared with the same backend's eager result
        self.mode = mode
        self.in_eager_mode = InMode(backend, "eager") if mode != "eager" else None
        self.gradient_reference = (
            session.gradient_reference if session.gradient_reference is not backend else None
        )
        self.finite_differences = FiniteDifferences()
        self.family = family
        self.share = share  # of exhaustive tables: see sample()
        self.spec = spec
        self.device = device
        self.fault = fault  # the plug-in fault switched on for this param (selftest)
        # a spec that killed its process before runs again with every backend call in a child process
        self.casualty = casualty
        self.backend_info = backend_info(backend)
        if fault:
            self.backend_info = replace(
                self.backend_info, config={**self.backend_info.config, "fault": fault}
            )
        if mode != "eager":
            self.backend_info = replace(self.backend_info, config={**self.backend_info.config, "mode": mode})
        self.cases: Counter[str] = Counter()
        self.observations: list[tuple[str, str, str]] = []  # survey cells: (table, row, value)
        self.seen: Counter[records.Key] = Counter()  # divergence -> examples that showed it
        self.kept: dict[records.Key, Found] = {}  # divergence -> smallest example
        self.first_seen: dict[records.Key, int] = {}  # divergence -> cases checked when it first showed
        self.first_example: dict[records.Key, int] = {}  # divergence -> examples run when it first showed
        self.examples = 0  # Hypothesis examples that checked something (outside Hypothesis: cases)
        self._example = None  # the Hypothesis example being run (its ConjectureData)
        self.matched: Counter[str] = Counter()  # registry entry -> divergences it matched
        self.replays: list[tuple[str, Case, str]] = []  # registry examples replayed: (entry, case, status)
        self.unsupported: dict[str, str] = {}  # operation -> the reason the backend's adapter declares
        self.references_lost: set[tuple[str, str, str]] = set()  # (operation, reference, how): noted once
        self.unstable: set[tuple[str, str]] = (
            set()
        )  # survey cells of errors a second call did not raise again
        self.hung: set[tuple[str, str]] = (
            set()
        )  # (adapter, operation) that hung in a child: it gets less time now
        self.seconds = 0.0  # wall time in the @timed methods, framework calls included (for the benchmark)
        self.framework_seconds = 0.0  # of which inside adapter calls

    def sample(self, table) -> list:
        """The rows of an exhaustive table this param checks: all of them, or
        with a share below 1 (device and mode params) every k-th row, k = 1/share
        (but at least 5 rows), from an offset the seed picks, so that other seeds
        check the other rows."""
        rows = list(table)
        step = max(1, min(round(1 / self.share), len(rows) // 5))
        return rows[self.session.seed % step :: step]

    @property
    def reference_name(self) -> str:
        return self.reference.name

    def call(self, adapter: Adapter, case: Case, device: str | None = None, mode: str = "eager") -> Outcome:
        """One framework call: in this process, noted as the call in flight, or in a
        child process where it can kill its process: calls the adapter knows to be
        dangerous (``Adapter.isolate``), and every call of a spec that killed its
        process before (its casualty is being re-run). The child's time counts too."""
        start = time.perf_counter()
        try:
            isolated = self.casualty is not None and adapter is not self.reference
            if isolated or adapter.isolate(case.op, case.args, mode):
                hung = (adapter.spec, case.op) in self.hung
                outcome = self.session.isolation.run(
                    adapter,
                    case,
                    device,
                    (self.fault, self.session.seed),
                    mode,
                    limit=min(HUNG_AGAIN, self.session.isolation.call_limit) if hung else None,
                )
                if outcome.error_category == "timeout":
                    self.hung.add((adapter.spec, case.op))
                return outcome
            args = case.args if case.program is None else (case.program.bind(adapter, device), *case.args)
            note = self.session.note
            if note is not None:
                note.begin(case, adapter.spec, device)
            try:
                # eager as the protocol had it before modes (adapters that override call keep working)
                return adapter.call(
                    case.op, args, case.kwargs, device, **({"mode": mode} if mode != "eager" else {})
                )
            finally:
                if note is not None:
                    note.end()
        finally:
            self.framework_seconds += time.perf_counter() - start

    def expected_of(self, case: Case) -> Outcome:
        """The reference's outcome of ``case``: NumPy's, its math functions' values computed
        in wider precision (compat.judge.accurate)."""
        return accurate(self.reference, case, self.call(self.reference, case))

    def replay_casualty(self) -> None:
        """The case a previous run of this spec died in, first: with its call in a
        child process now, its crash or hang is a divergence with this example."""
        if self.casualty is not None and self.casualty.case is not None:
            self.replay(self.casualty.case)

    def replay_known(self, family: str) -> int:
        """Replay, as a spec of ``family``, every registry example for this backend and
        device; each one's outcome (reproduced, or fixed in this version) goes to
        ``replays``. Returns how many examples ran."""
        self.family = family
        if self.backend.name == self.reference.name:  # NumPy against itself
            return 0
        for entry in self.registry.entries:
            if not entry.applies_to(self.backend_info):
                continue
            for example in entry.examples:
                if example.family == family and example.replays_on(self.backend_info, self.device):
                    before = self.matched[entry.id]
                    case = example.case()
                    self.replay(case)
                    status = "reproduced" if self.matched[entry.id] > before else "fixed"
                    self.replays.append((entry.id, case, status))
        return len(self.replays)

    def replay(self, case: Case) -> None:
        """Check a case rebuilt from a record as its spec checked it (outside Hypothesis,
        so a divergence is kept, never raised)."""
        if case.program is not None:
            self.check_gradient(case.op, case.program, *case.args)
        else:
            self._check(case.op, case.args, case.kwargs, case.exact)

    def declared_unsupported(self, op: str) -> Outcome | None:
        """The outcome of an operation the backend declares unsupported (counted, not
        checked), or None if it has the operation."""
        reason = self.backend.unsupported(op, self.mode)
        if reason is None:
            return None
        self.unsupported[op] = reason
        return Outcome(
            error=UnsupportedOperation(f"{self.backend.id} has no {op}: {reason}"),
            error_category="unsupported",
        )

    def requires(self, op: str) -> None:
        """Skip the spec (the operation counted as unsupported) where the backend declares ``op`` unsupported."""
        if self.declared_unsupported(op) is not None:
            pytest.skip(f"{self.backend.id} has no {op}: {self.unsupported[op]}")

    def count_example(self) -> None:
        """Count the example a check belongs to: a new Hypothesis example (whatever number of
        checks it makes), or, outside Hypothesis (exhaustive tables), each case."""
        if not hypothesis.currently_in_test_context():
            self.examples += 1
            return
        from hypothesis.control import current_build_context

        data = current_build_context().data
        if data is not self._example:
            self._example = data
            self.examples += 1

    @timed
    def check(self, op: str, *args, **kwargs) -> Outcome:
        """Run ``op(*args, **kwargs)`` on both sides; a divergence is raised
        (inside Hypothesis) or collected. Returns the backend's outcome."""
        return self._check(op, args, kwargs)

    @timed
    def check_exact(self, op: str, *args, **kwargs) -> Outcome:
        """Like check, bit for bit (copies, conversions: -0.0, NaN payloads and subnormals must survive)."""
        return self._check(op, args, kwargs, exact=True)

    def _check(self, op: str, args: tuple, kwargs: dict, exact: bool = False) -> Outcome:
        unsupported = self.declared_unsupported(op)
        if unsupported is not None:
            return unsupported
        case = Case(op, args, kwargs, exact=exact)
        self.count_example()
        expected = self.expected_of(case)
        actual = self.settled(
            case,
            expected,
            self.call(self.backend, case, self.device, self.mode),
            lambda c: self.call(self.backend, c, self.device, self.mode),
        )
        self.cases[op] += 1
        allowed = oracle.bound(op, args, kwargs)
        mismatches = self.without_consequences(
            case,
            actual,
            oracle.compare(
                expected,
                actual,
                allowed,
                oracle.Exactness.BITS if case.exact else oracle.Exactness.WITHIN_BOUND,
            ),
            allowed,
        )
        mismatches = as_flush_to_zero(self.expected_of, case, expected, actual, mismatches, allowed)
        if self.on_reference_device is not None:  # first: what a device team asks
            self.compare_devices(case, actual)
        if self.in_eager_mode is not None:  # first: what a compiler team asks
            self.compare_modes(case, actual)
        moves_to = ops.get(op).moves_to
        target = args[moves_to] if moves_to is not None else self.device
        self.judge(case, self.reference, expected, actual, mismatches + self.misplaced(actual, target))
        return actual

    def compare_devices(self, case: Case, actual: Outcome) -> None:
        """The device under test against the reference device, in the same execution mode (what a
        mode changes is compare_modes' to judge)."""
        placement = self.backend.placement_on(self.on_reference_device.device)
        self.judge_against_itself(
            case, self.on_reference_device, actual, lambda c: self.call(self.backend, c, placement, self.mode)
        )

    def compare_modes(self, case: Case, actual: Outcome, truth: Outcome | None = None) -> None:
        """The execution mode against the same backend's eager result. A compiler may fuse and
        reassociate a program: its gradients then agree with eager within twice the tolerance
        each has against the ``truth`` (finite differences), as two frameworks' do."""
        self.judge_against_itself(
            case, self.in_eager_mode, actual, lambda c: self.call(self.backend, c, self.device), truth
        )

    def judge_against_itself(
        self,
        case: Case,
        reference: OnDevice | InMode,
        actual: Outcome,
        outcome_of,
        truth: Outcome | None = None,
    ) -> None:
        """The backend against itself elsewhere (another device, eager; ``outcome_of`` runs a
        case there): bit for bit (a copy or an elementwise kernel has no excuse; NaN payloads
        aside), within the oracle's bound for operations whose rounding depends on summation
        order and for programs (gradients; within the ``truth``'s tolerance where given). A
        difference that only subnormals read as zero make is flush-to-zero, as against NumPy.
        A reference that crashed or hung is no reference (``lost``)."""
        expected = self.settled(case, actual, outcome_of(case), outcome_of)
        if self.lost(case, reference, expected):
            return
        if truth is not None:
            widen(expected, truth, factor=2)
        exact = (
            oracle.Exactness.COMPUTED
            if not ops.get(case.op).accumulates and case.program is None
            else oracle.Exactness.WITHIN_BOUND
        )
        allowed = oracle.bound(case.op, case.args, case.kwargs) if case.program is None else oracle.PROGRAM
        mismatches = oracle.compare(expected, actual, allowed, exact)
        if case.program is None:
            mismatches = as_flush_to_zero(outcome_of, case, expected, actual, mismatches, allowed)
        self.judge(case, reference, expected, actual, mismatches)

    def lost(self, case: Case, reference: Adapter | OnDevice | InMode, outcome: Outcome) -> bool:
        """Whether a second reference (reference device, eager, gradient reference) crashed or hung
        on ``case``: then it is no reference, the case is judged against NumPy alone, and a
        survey cell of the row under test (table "reference lost") says which reference was
        lost, how, and on which example."""
        if outcome.error_category not in LOST:
            return False
        what = f"{outcome.error_category}: {first_line(outcome.error)}"
        if (case.op, reference.id, what) not in self.references_lost:
            self.references_lost.add((case.op, reference.id, what))
            self.observations.append(
                (
                    "reference lost",
                    f"{case.op} vs {reference.id}",
                    f"{what}; judged against NumPy alone; e.g. {case.call()}",
                )
            )
        return True

    def settled(self, case: Case, other: Outcome, outcome: Outcome, again) -> Outcome:
        """``outcome``, or where it raised in another category than the ``other`` side's, the
        outcome of calling once more (``again(case)``) if that differs: an error that the same
        call does not raise again is not the call's own (TensorFlow raises SystemError in the
        call after one that left an exception pending, tensorflow#75400), and is not judged.
        The survey table "unstable errors" shows it. A crash or hang is not called again."""
        category = outcome.error_category
        if (
            not outcome.raised
            or category in LOST
            or category == (other.error_category if other.raised else "ok")
        ):
            return outcome
        second = again(case)
        if second.error_category == category:
            return outcome
        cell = (f"{case.op} ({case.input_tags()})", f"{raised(outcome)}, then {raised(second)} once more")
        if cell not in self.unstable:
            self.unstable.add(cell)
            self.observations.append(("unstable errors", *cell))
        return second

    def misplaced(self, actual: Outcome, target: str | None = None) -> list:
        """A result that is not where it should be: on the device under test
        (soft placement, a wrong-device bug), or the ``target`` of a copy."""
        target = target or self.device
        if self.device is None or actual.raised:
            return []
        found = {p.device for p in (actual.parts or [actual]) if p.device is not None}
        wrong = sorted(d for d in found if d != target)
        if not wrong:
            return []
        return [oracle.Mismatch("device", target, wrong[0], f"result on {wrong[0]}, expected on {target}")]

    @timed
    def check_gradient(self, transform: str, program: Program, *args: np.ndarray) -> Outcome:
        """Run an autodiff ``transform`` (grad, jacobian, per_example_grad, hvp)
        of ``program`` on ``args`` and compare it with the derivative by finite
        differences (reference ``numpy-fd``) and with the gradient reference
        framework (reference: its id), each within the finite-difference tolerance."""
        unsupported = self.declared_unsupported(transform)
        if unsupported is not None:
            return unsupported
        case = Case(transform, args, program=program)
        self.count_example()
        actual = self.call(self.backend, case, self.device, self.mode)
        expected = gradient_tolerance(self.finite_differences, transform, program, args)
        self.cases[transform] += 1
        if self.on_reference_device is not None:
            self.compare_devices(case, actual)
        if self.in_eager_mode is not None:
            self.compare_modes(case, actual, truth=expected)
        self.judge(
            case,
            self.finite_differences,
            expected,
            actual,
            dtype_explains_values(oracle.compare(expected, actual, oracle.PROGRAM)) + self.misplaced(actual),
        )
        if self.gradient_reference is not None:
            other = self.gradient_reference
            theirs = self.call(other, case)
            if self.lost(case, other, theirs):
                return actual
            widen(theirs, expected, factor=2)  # two approximations, each within tolerance of the truth
            self.judge(
                case,
                other,
                theirs,
                actual,
                dtype_explains_values(oracle.compare(theirs, actual, oracle.PROGRAM)),
            )
        return actual

    def judge(
        self, case: Case, reference: Adapter, expected: Outcome, actual: Outcome, mismatches: list
    ) -> None:
        """Count and keep what differs; raise a new divergence inside Hypothesis."""
        if not mismatches:
            return
        fields = [self.divergence_fields(case, m, reference) for m in mismatches]
        keys = tuple(self.key(f) for f in fields)
        self.seen.update(keys)
        for key in keys:
            self.first_seen.setdefault(key, sum(self.cases.values()))
            self.first_example.setdefault(key, self.examples)
        known = [self.registry.match(self.backend_info, f) for f in fields]
        self.matched.update(entry.id for entry in known if entry)
        found = Found(case, expected, actual, mismatches, known, reference)
        if all(known) or not hypothesis.currently_in_test_context():
            for key in keys:
                if key not in self.kept or found.size() < self.kept[key].size():
                    self.kept[key] = found
            return
        error = divergence_type(keys)(describe(found, self.backend))
        error.found = found
        raise error

    def without_consequences(
        self, case: Case, actual: Outcome, mismatches: list, allowed: oracle.Bound
    ) -> list:
        """Drop a value mismatch that follows from a dtype mismatch: if NumPy,
        made to compute in the backend's result dtype (``dtype=``), gives the
        backend's values, the values differ only because the dtype does, and
        the dtype divergence is the one to report."""
        kinds = {m.kind for m in mismatches}
        if not {"dtype", "value"} <= kinds:
            return mismatches
        in_actual_dtype = self.expected_of(replace(case, kwargs={**case.kwargs, "dtype": actual.dtype}))
        if in_actual_dtype.raised or in_actual_dtype.dtype != actual.dtype:
            return mismatches
        if oracle.compare(in_actual_dtype, actual, allowed):
            return mismatches
        return [m for m in mismatches if m.kind != "value"]

    def key(self, fields: dict) -> records.Key:
        return records.Key(
            self.backend_info.row,
            self.device,
            fields["reference"],
            self.family,
            fields["op"],
            fields["kind"],
            fields["inputs"],
            fields["expected"],
            fields["actual"],
        )

    def divergence_fields(self, case: Case, mismatch: oracle.Mismatch, reference: Adapter | OnDevice) -> dict:
        """The fields the registry matches on."""
        return {
            "family": self.family,
            "op": case.op,
            "kind": mismatch.kind,
            "inputs": case.input_tags(),
            "expected": mismatch.expected,
            "actual": mismatch.actual,
            "device": self.device or "",
            "reference": reference.id,
        }

    def results(self, escaped: list[Found]) -> list[tuple[Found, int]]:
        """Every distinct divergence of this test once, shrunk ones first: (found, index of mismatch)."""
        distinct: dict[records.Key, tuple[Found, int]] = {}
        for found in escaped + list(self.kept.values()):
            for index, mismatch in enumerate(found.mismatches):
                distinct.setdefault(
                    self.key(self.divergence_fields(found.case, mismatch, found.reference)), (found, index)
                )
        return list(distinct.values())

    def records(self, escaped: list[Found], common: dict, tables: list[str]) -> list[records.Divergence]:
        out = []
        for found, index in self.results(escaped):
            mismatch, entry = found.mismatches[index], found.known[index]
            fields = self.divergence_fields(found.case, mismatch, found.reference)
            expected, actual = found.outcomes(mismatch)
            out.append(
                records.Divergence(
                    **{**common, "reference": found.reference.id},
                    op=found.case.op,
                    kind=mismatch.kind,
                    signature={k: fields[k] for k in ("inputs", "expected", "actual")},
                    expected=expected.to_json(),
                    actual=actual.to_json(),
                    detail=mismatch.detail,
                    example=found.case.example(),
                    reproducer=reproducer(found.case, found.reference, self.backend, self.device, self.mode),
                    count=max(self.seen[self.key(fields)], 1),
                    first_seen_after=self.first_seen.get(self.key(fields), 0),
                    first_example=self.first_example.get(self.key(fields)),
                    known=entry.id if entry else None,
                    status="known" if entry else "new",
                    tables=tables,
                )
            )
        return out


def backend_info(adapter: Adapter) -> records.Backend:
    return records.Backend(
        adapter.name,
        adapter.id,
        adapter.version(),
        dict(adapter.config),
        f"{type(adapter).__module__}:{type(adapter).__qualname__}",
    )


def raised(outcome: Outcome) -> str:
    """What a call raised, without the message (which names the example): 'SystemError (other)'; 'ok'."""
    return (
        f"{error_type(outcome.error).rpartition('.')[2]} ({outcome.error_category})"
        if outcome.raised
        else "ok"
    )
