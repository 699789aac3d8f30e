"""The checker behind the ``xp`` fixture: run a case on the reference and on
the backend, compare, and turn what differs into records.

A divergence that the registry knows is kept (the smallest example per
signature) and the test goes on. A new divergence inside a Hypothesis test
is raised at once, as an exception whose type is unique to its signature, so
Hypothesis shrinks each distinct new divergence to its own minimal example
and replays it last; the exceptions that escape ``@given`` are those minimal
examples. Outside Hypothesis (exhaustive tables) new divergences are kept too
and the loop goes on. ``records`` then writes one record per signature.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

import hypothesis

from compat import oracle
from compat.adapters import Adapter, Outcome
from compat.registry import Entry, Registry
from compat.reproducer import Case, reproducer


@dataclass
class Found:
    """A case on which the backend disagreed with the reference."""

    case: Case
    expected: Outcome
    actual: Outcome
    mismatches: list[oracle.Mismatch]
    known: list[Entry | None]

    def size(self) -> tuple[int, int]:
        """Smaller is simpler: fewer elements, then shorter source."""
        arrays = self.case.arrays().values()
        return sum(a.size for a in arrays), len(self.case.call()) + sum(len(s) for s in self.case.inputs_source().values())


class Divergence(AssertionError):
    """Raised inside Hypothesis tests; one subclass per signature (see module doc)."""

    found: Found


_divergence_types: dict[tuple, type[Divergence]] = {}


def divergence_type(key: tuple) -> type[Divergence]:
    if key not in _divergence_types:
        _divergence_types[key] = type("Divergence", (Divergence,), {"__module__": __name__})
    return _divergence_types[key]


class Checker:
    """What a spec talks to: ``xp.check("add", x, y)``."""

    def __init__(self, backend: Adapter, reference: Adapter, family: str, spec: str,
                 registry: Registry, device: str | None = None):
        self.backend = backend
        self.reference = reference
        self.family = family
        self.spec = spec
        self.registry = registry
        self.device = device
        self.backend_json = backend_json(backend)
        self.cases: Counter[str] = Counter()
        self.seen: Counter[tuple] = Counter()  # mismatch key -> examples that showed it
        self.kept: dict[tuple, Found] = {}  # mismatch key -> smallest example

    @property
    def reference_name(self) -> str:
        return self.reference.name

    seconds = 0.0  # wall time inside check(), framework calls included (for the benchmark)

    def check(self, op: str, *args, **kwargs) -> Outcome:
        """Run ``op(*args, **kwargs)`` on both sides; a divergence is raised
        (inside Hypothesis) or collected. Returns the backend's outcome."""
        start = time.perf_counter()
        try:
            return self._check(op, args, kwargs)
        finally:
            Checker.seconds += time.perf_counter() - start

    def _check(self, op: str, args: tuple, kwargs: dict) -> Outcome:
        case = Case(op, args, kwargs)
        expected = self.reference.run(op, args, kwargs)
        actual = self.backend.run(op, args, kwargs, device=self.device)
        self.cases[op] += 1
        ulps = oracle.tolerance_ulps(op, case.arrays().values())
        mismatches = self.without_consequences(case, actual, oracle.compare(expected, actual, ulps), ulps)
        if not mismatches:
            return actual
        keys = tuple(self.key(case, m) for m in mismatches)
        self.seen.update(keys)
        known = [self.registry.match(self.backend_json, self.divergence_fields(case, m)) for m in mismatches]
        found = Found(case, expected, actual, mismatches, known)
        if all(known) or not hypothesis.currently_in_test_context():
            for key in keys:
                if key not in self.kept or found.size() < self.kept[key].size():
                    self.kept[key] = found
            return actual
        error = divergence_type(keys)(describe(found, self.backend))
        error.found = found
        raise error

    def without_consequences(self, case: Case, actual: Outcome, mismatches: list, ulps: float) -> list:
        """Drop a value mismatch that follows from a dtype mismatch: if NumPy,
        made to compute in the backend's result dtype (``dtype=``), gives the
        backend's values, the values differ only because the dtype does, and
        the dtype divergence is the one to report."""
        kinds = {m.kind for m in mismatches}
        if not {"dtype", "value"} <= kinds:
            return mismatches
        in_actual_dtype = self.reference.run(case.op, case.args, {**case.kwargs, "dtype": actual.dtype})
        if in_actual_dtype.raised or in_actual_dtype.dtype != actual.dtype:
            return mismatches
        if oracle.compare(in_actual_dtype, actual, ulps):
            return mismatches
        return [m for m in mismatches if m.kind != "value"]

    def key(self, case: Case, mismatch: oracle.Mismatch) -> tuple:
        return (case.op, mismatch.kind, case.input_tags(), mismatch.expected, mismatch.actual)

    def divergence_fields(self, case: Case, mismatch: oracle.Mismatch) -> dict:
        """The fields the registry matches on."""
        return {
            "family": self.family, "op": case.op, "kind": mismatch.kind, "inputs": case.input_tags(),
            "expected": mismatch.expected, "actual": mismatch.actual,
            "device": self.device or "", "reference": self.reference_name,
        }

    def results(self, escaped: list[Found]) -> list[tuple[Found, int]]:
        """Every distinct divergence of this test once, shrunk ones first: (found, index of mismatch)."""
        distinct: dict[tuple, tuple[Found, int]] = {}
        for found in escaped + list(self.kept.values()):
            for index, mismatch in enumerate(found.mismatches):
                distinct.setdefault(self.key(found.case, mismatch), (found, index))
        return list(distinct.values())

    def records(self, escaped: list[Found], common: dict) -> list[dict]:
        out = []
        for found, index in self.results(escaped):
            mismatch, entry = found.mismatches[index], found.known[index]
            fields = self.divergence_fields(found.case, mismatch)
            out.append({
                **common,
                "record": "divergence",
                "op": found.case.op,
                "kind": mismatch.kind,
                "signature": {k: fields[k] for k in ("inputs", "expected", "actual")},
                "expected": found.expected.to_json(),
                "actual": found.actual.to_json(),
                "detail": mismatch.detail,
                "example": {"call": found.case.call(), "inputs": found.case.inputs_source()},
                "reproducer": reproducer(found.case, self.reference, self.backend, self.device),
                "count": max(self.seen[self.key(found.case, mismatch)], 1),
                "known": entry.id if entry else None,
                "status": "known" if entry else "new",
            })
        return out


def backend_json(adapter: Adapter) -> dict:
    return {"name": adapter.name, "id": adapter.id, "version": adapter.version(), "config": adapter.config,
            "adapter": f"{type(adapter).__module__}:{type(adapter).__qualname__}"}


def describe(found: Found, backend: Adapter) -> str:
    kinds = ", ".join(f"{m.kind}: {m.detail}" for m in found.mismatches)
    return f"{backend.id} diverges on {found.case.call()}: {kinds}"


def unwrap(error: BaseException | None) -> tuple[list[Found], list[BaseException]]:
    """Split what escaped a test into divergences and genuine errors."""
    if error is None:
        return [], []
    if isinstance(error, Divergence):
        return [error.found], []
    if isinstance(error, BaseExceptionGroup):
        found, others = [], []
        for inner in error.exceptions:
            f, o = unwrap(inner)
            found += f
            others += o
        return found, others
    return [], [error]
