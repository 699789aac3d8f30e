"""What one checker saw, kept, matched and replayed, for the pytest hooks (compat.harness.xp)
to write as records.

A divergence that the registry knows is kept (the smallest example per signature) and the
test goes on. A new divergence inside a Hypothesis test is raised at once
(``compat.harness.found``), so Hypothesis shrinks each distinct new divergence to its own
minimal example. Outside Hypothesis (exhaustive tables) new divergences are kept too and the
loop goes on. ``records`` then gives one record per signature.
"""

from __future__ import annotations

from collections import Counter

import hypothesis

from compat.adapters import Adapter
from compat.adapters.declared import UnsupportedOperation
from compat.core import calls, facts, ops
from compat.core.case import Case
from compat.core.errortypes import error_name
from compat.core.outcome import Outcome
from compat.harness.found import Found, describe, divergence_type
from compat.harness.reproducer import reproducer
from compat.judge import oracle
from compat.judge.reference import Reference
from compat.judge.steps import Verdict
from compat.results import records
from compat.results.registry import Registry


class Ledger:
    """The counts and findings of one checker (one spec on one row)."""

    def __init__(
        self,
        backend: Adapter,
        backend_info: records.Backend,
        registry: Registry,
        family: str,
        device: str | None,
        mode: str,
    ):
        self.backend, self.backend_info, self.registry = backend, backend_info, registry
        self.family, self.device, self.mode = family, device, mode
        self.cases: Counter[str] = Counter()
        self.observations: list[tuple[str, str, str]] = []  # survey cells: (table, row, value)
        self.noted: set[tuple] = set()  # keys of the cells added once (a reference lost, an unstable error)
        self.seen: Counter[records.Key] = Counter()  # divergence -> examples that showed it
        self.kept: dict[records.Key, Found] = {}  # divergence -> smallest example
        self.first_seen: dict[records.Key, int] = {}  # divergence -> cases checked when it first showed
        self.first_example: dict[records.Key, int] = {}  # divergence -> examples run when it first showed
        self.examples = 0  # Hypothesis examples that checked something (outside Hypothesis: cases)
        self._example = None  # the Hypothesis example being run (its ConjectureData)
        self.matched: Counter[str] = Counter()  # registry entry -> divergences it matched
        self.replays: list[tuple[str, Case, str]] = []  # registry examples replayed: (entry, case, status)
        self.shadowing: dict[str, list[str]] = {}  # entry -> the entries that matched its example first
        # entry -> the entries more specific to this row (its device's, mode's, config's, a wrapper's)
        # that matched first what its example showed and it matches too
        self.overriding: dict[str, list[str]] = {}
        self.replaying = False  # a replay inside a Hypothesis example: a new divergence is kept, not raised
        # while a registry example replays: each divergence's fields and the entry that matched it first
        self.replayed: list[tuple[dict, str | None]] | None = None
        # operation (or 'dtype <name>') -> the reason the backend's adapter declares, and the cases not checked
        self.unsupported: dict[str, str] = {}
        self.unsupported_cases: Counter[str] = Counter()
        # operation -> the standard's parameter -> the kind it was given as -> cases (compat.core.calls)
        self.forms: dict[str, dict[str, Counter[str]]] = {}
        # operation -> value fact (compat.core.facts) -> [cases whose operands meet it, cases it applies to]
        self.facts: dict[str, dict[str, list[int]]] = {}

    def saw(self, case: Case) -> None:
        """Count the kind each of the standard's parameters has in a case checked (Checks.forms), and
        whether its operands meet the operation's value facts (Checks.facts)."""
        if case.program is not None:
            return
        declared = ops.OPS.get(case.op)
        # the facts of drawn operands (an exhaustive table's are chosen, one by one)
        if declared is not None and declared.values and hypothesis.currently_in_test_context():
            of_op = self.facts.setdefault(case.op, {})
            for fact, holds in facts.met(declared.values, case.args).items():
                counts = of_op.setdefault(fact, [0, 0])
                counts[0] += holds
                counts[1] += 1
        try:
            kinds = calls.kinds_of(case.op, case.args, case.kwargs)
        except Exception:  # a call the signature does not describe (an operation of compat's own)
            return
        of_op = self.forms.setdefault(case.op, {})
        for parameter, kind in kinds:
            of_op.setdefault(parameter, Counter())[kind] += 1

    def observe(self, table: str, row: str, value: str) -> None:
        """One cell of a survey table; the backend is the column."""
        self.observations.append((table, row, value))

    def note_once(self, key: tuple, table: str, row: str, value: str) -> None:
        """A survey cell, the first time its ``key`` comes up."""
        if key not in self.noted:
            self.noted.add(key)
            self.observe(table, row, value)

    def declared_unsupported(self, op: str, case: Case | None = None) -> Outcome | None:
        """The outcome of an operation the backend declares unsupported, or of a ``case`` that
        holds or asks for a dtype it declares it has not (counted, under 'dtype <name>', not
        checked), or passes a keyword its function does not take (``Adapter.LACKS``: counted under
        '<operation>(<keyword>=)'); None where it has them all."""
        what, reason = op, self.backend.unsupported(op, self.mode)
        for name in sorted(case.dtype_names()) if case is not None and reason is None else ():
            what, reason = f"dtype {name}", self.backend.unsupported_dtype(name)
            if reason is not None:
                break
        for name in sorted(case.kwargs) if case is not None and reason is None else ():
            what, reason = f"{op}({name}=)", self.backend.unsupported_parameter(op, name)
            if reason is not None:
                break
        if reason is None:
            return None
        self.unsupported[what] = reason
        self.unsupported_cases[what] += 1
        error = UnsupportedOperation(f"{self.backend.id} has no {what}: {reason}")
        return Outcome(error=error, error_category="unsupported")

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

    def enter(self, verdict: Verdict | None, follows: str | None = None, departs: bool = False) -> None:
        """Count and keep what differs; raise a new divergence inside Hypothesis. None: the
        reference gave no answer. ``follows``: the clause of the standard whose stated result the
        differing values hold (compat.harness.checker.stated_answer). ``departs``: a verdict against
        the standard where the backend gives what NumPy gives (status departs: kept, never raised)."""
        if verdict is None or not verdict.mismatches:
            return
        case, reference, mismatches = verdict.case, verdict.reference, verdict.mismatches
        fields = [self.divergence_fields(case, m, reference, verdict.actual) for m in mismatches]
        keys = tuple(self.key(f) for f in fields)
        self.seen.update(keys)
        for key in keys:
            self.first_seen.setdefault(key, sum(self.cases.values()))
            self.first_example.setdefault(key, self.examples)
        # what the device's contract allows is no divergence: it is not matched, and never raised
        known = [
            None if m.within or departs else self.registry.match(self.backend_info, f)
            for m, f in zip(mismatches, fields)
        ]
        self.matched.update(entry.id for entry in known if entry)
        if self.replayed is not None and not departs:
            self.replayed += [
                (f, e.id if e else None) for f, e, m in zip(fields, known, mismatches) if not m.within
            ]
        found = Found(case, verdict.expected, verdict.actual, mismatches, known, reference, follows, departs)
        settled = departs or all(entry is not None or m.within for entry, m in zip(known, mismatches))
        if settled or self.replaying or not hypothesis.currently_in_test_context():
            for key in keys:
                if key not in self.kept or found.size() < self.kept[key].size():
                    self.kept[key] = found
            return
        error = divergence_type(keys)(describe(found, self.backend))
        error.found = found
        raise error

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

    def divergence_fields(
        self, case: Case, mismatch: oracle.Mismatch, reference: Reference, actual: Outcome | None = None
    ) -> dict:
        """The fields the registry matches on (a record's: records.Divergence.fields); ``raises``, the
        class of the error of the backend's ``actual`` outcome (of the part the mismatch is about)."""
        part = (
            (actual.parts or [actual])[mismatch.part]
            if actual is not None and mismatch.part is not None
            else actual
        )
        return {
            "family": self.family,
            "op": case.op,
            "kind": mismatch.kind,
            "inputs": case.input_tags(),
            "expected": mismatch.expected,
            "actual": mismatch.actual,
            "device": self.device or "",
            "reference": reference.id,
            "raises": error_name(part.error) if part is not None and part.error is not None else "",
        }

    def results(self, escaped: list[Found]) -> list[tuple[Found, int]]:
        """Every distinct divergence of this test once, shrunk ones first: (found, index of mismatch)."""
        distinct: dict[records.Key, tuple[Found, int]] = {}
        for found in escaped + list(self.kept.values()):
            for index, mismatch in enumerate(found.mismatches):
                distinct.setdefault(
                    self.key(self.divergence_fields(found.case, mismatch, found.reference)), (found, index)
                )  # (the key holds no raises: one signature, whatever class a release raises)
        return list(distinct.values())

    def records(self, escaped: list[Found], common: dict, tables: list[str]) -> list[records.Divergence]:
        out = []
        for found, index in self.results(escaped):
            mismatch, entry = found.mismatches[index], found.known[index]
            fields = self.divergence_fields(found.case, mismatch, found.reference)
            expected, actual = found.outcomes(mismatch)
            # a value that holds the standard's stated result, or a result where the signature admits the call
            follows = found.follows if mismatch.kind in ("value", "error") else None
            out.append(
                records.Divergence(
                    **{**common, "reference": found.reference.id},
                    op=found.case.op,
                    kind=mismatch.kind,
                    signature={k: fields[k] for k in ("inputs", "expected", "actual")},
                    expected=expected.to_json(),
                    actual=actual.to_json(),
                    detail=mismatch.detail,
                    example=example_of(found),
                    reproducer=reproducer(found.case, found.reference, self.backend, self.device, self.mode),
                    count=max(self.seen[self.key(fields)], 1),
                    first_seen_after=self.first_seen.get(self.key(fields), 0),
                    first_example=self.first_example.get(self.key(fields)),
                    known=entry.id if entry else None,
                    status=status_of(entry, follows, mismatch.within, found.departs),
                    follows=follows,
                    contract=mismatch.within or None,
                    tables=tables,
                )
            )
        return out


def status_of(entry, follows: str | None, within: str, departs: bool = False) -> str:
    """contract: a device's contract allows it; departs: the backend departs from the standard as NumPy
    does; standard: the values hold what the standard states (not NumPy's); known: a registry entry
    knows it; else new."""
    if within:
        return "contract"
    if departs:
        return "departs"
    return "standard" if follows else "known" if entry else "new"


def example_of(found: Found) -> dict:
    """What a record keeps of the case; against the backend's own answer, the question that
    answered it too (``against``: its call, its inputs beside the case's), so it replays."""
    example = found.case.example()
    question = getattr(found.reference, "question", None)
    if question is None:
        return example
    return {
        **example,
        "inputs": {**example["inputs"], **question.inputs_source()},
        "against": question.call(),
    }
