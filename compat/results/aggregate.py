"""The one aggregation of records that the report and the dashboard share: distinct
divergences, the summary matrix, known divergences by registry entry, registry entries
not reproduced, the promotion tables, surveys and kernel coverage.

Everything here takes typed records (``compat.results.records``) from a results
directory, or the store's summaries of them (any object with the divergence's
``key``, ``count``, ``status``, ``known`` and ``tables``), and returns plain values;
nothing here reads files or the store."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from compat.results.records import Backend, Checks, Coverage, Divergence, Observation, Replay, Run
from compat.results.registry import Registry, globs_match

PROMOTION_GRID = "promotion-grid"  # the exhaustive promotion specs: every pair of dtypes
INVALID_INDICES = "invalid-indices"  # the specs of out-of-bounds and invalid indices


def distinct(divergences: Iterable) -> list:
    """One record per distinct divergence (``Key``) across specs and workers; counts add up,
    the tables their specs feed unite, the first record seen keeps its example."""
    merged: dict = {}
    for record in divergences:
        key = record.key
        if key in merged:
            first = merged[key]
            tables = type(first.tables)(sorted(set(first.tables) | set(record.tables)))
            merged[key] = replace(first, count=first.count + record.count, tables=tables)
        else:
            merged[key] = record
    return sorted(merged.values(), key=lambda r: r.key.sort_key())


def unsupported_by_operation(found: dict[str, tuple[str, int]]) -> list[tuple[str, str, int]]:
    """What a row has not, one line per operation or dtype: the signatures of one operation
    ('logical_and of complex128, int16' and 29 others) are one line, its first signatures named.
    ``found``: what -> (reason, cases not checked); returns (what, reason, cases), sorted."""
    groups: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for what, (reason, cases) in found.items():
        operation, of, signature = what.partition(" of ")
        groups[operation if of else what].append((signature, reason, cases))
    lines = []
    for name, members in sorted(groups.items()):
        if len(members) == 1:
            signature, reason, cases = members[0]
            lines.append((f"{name} of {signature}" if signature else name, reason, cases))
            continue
        signatures = sorted(signature for signature, _, _ in members)
        shown = "; ".join(signatures[:3]) + (
            f" and {len(signatures) - 3} more" if len(signatures) > 3 else ""
        )
        reasons = {reason for _, reason, _ in members}
        reason = reasons.pop() if len(reasons) == 1 else f"{members[0][1]}; {len(reasons)} reasons in all"
        lines.append((f"{name} of {shown}", reason, sum(cases for _, _, cases in members)))
    return lines


def where_and_family(record) -> tuple[str, str]:
    return record.where, record.family


@dataclass
class SummaryRow:
    """One backend (on a device) and family: cases checked, divergences from NumPy (or the
    derivative, or the gradient reference), and from the reference device, side by side."""

    backend: str  # id, or id@device
    family: str
    cases: int = 0
    new: int = 0
    known: int = 0
    standard: int = 0  # differ from NumPy, hold the result the standard states
    departs: int = 0  # depart from the standard as NumPy does (against the standard: reported, never failed)
    contract: int = 0  # differ, and the device's documented contract allows it (against either reference)
    device_new: int = 0
    device_known: int = 0
    unsupported: dict[str, str] = field(default_factory=dict)  # operation, or 'dtype <name>' -> reason
    unsupported_cases: dict[str, int] = field(default_factory=dict)  # the same -> cases not checked

    def to_json(self) -> dict:
        return {
            "backend": self.backend,
            "family": self.family,
            "cases": self.cases,
            "new": self.new,
            "known": self.known,
            "standard": self.standard,
            "departs": self.departs,
            "contract": self.contract,
            "device new": self.device_new,
            "device known": self.device_known,
            "unsupported": dict(self.unsupported),
            "unsupported cases": dict(self.unsupported_cases),
        }


def summary(checks: Iterable[Checks], divergences: Iterable[Divergence]) -> list[SummaryRow]:
    rows: dict[tuple[str, str], SummaryRow] = {}

    def row(record) -> SummaryRow:
        key = where_and_family(record)
        return rows.setdefault(key, SummaryRow(*key))

    for record in checks:
        found = row(record)
        found.cases += sum(record.cases.values())
        found.unsupported.update(record.unsupported)
        for what, count in getattr(record, "unsupported_cases", {}).items():
            found.unsupported_cases[what] = found.unsupported_cases.get(what, 0) + count
    for record in distinct(divergences):
        found = row(record)
        if record.status in ("standard", "contract", "departs"):  # not divergences: one column each
            name = record.status
        else:
            name = ("device_" if record.against_device else "") + record.status
        setattr(found, name, getattr(found, name) + 1)
    # a row and family that checked nothing and showed nothing (a config row's replays of a family
    # it has no example of) says nothing
    return [
        rows[key]
        for key in sorted(rows)
        if any(v for k, v in vars(rows[key]).items() if k not in ("backend", "family"))
    ]


@dataclass
class Stale:
    id: str
    backend: str
    differs: str


@dataclass(frozen=True)
class Fixed:
    """A registry entry none of whose examples diverged any more on this backend version."""

    id: str
    backend: str  # id
    name: str
    version: str
    device: str | None

    def __str__(self) -> str:
        return (
            f"{self.id}: fixed in {self.name} {self.version}"
            + (f" on {self.device}" if self.device else "")
            + (f" ({self.backend})" if self.backend != self.name else "")
        )


def replayed(record: Replay) -> tuple[Fixed, str]:
    """A replay record as ``fixed`` takes it (the store's rows give the same tuples)."""
    backend = record.backend
    return Fixed(record.known, backend.id, backend.name, backend.version, record.device), record.status


def fixed(replays: Iterable[tuple[Fixed, str]]) -> list[Fixed]:
    """Entries whose replayed examples all stopped diverging, per backend id, version and
    device: ``replays`` holds (the entry where it was replayed, status) pairs."""
    reproduced: dict[Fixed, bool] = {}
    for key, status in replays:
        if status == "unjudged":  # the row did not check it: no evidence either way
            continue
        # shadowed, overridden: it still diverges (another entry matched it first: no fix)
        reproduced[key] = reproduced.get(key, False) or status in ("reproduced", "shadowed", "overridden")
    return sorted(
        (key for key, yes in reproduced.items() if not yes), key=lambda f: (f.id, f.backend, f.device or "")
    )


def wrapper_rows(found: Iterable) -> dict[str, Backend]:
    """Row id -> backend of the records' rows that wrap a framework (their ``backend.wraps``)."""
    return {r.backend.id: r.backend for r in found if r.backend.wraps is not None}


def removed_by_wrappers(fixed_: list[Fixed], wrappers: dict[str, Backend], registry: Registry) -> list[Fixed]:
    """Of ``fixed_``, the entries of a framework that a wrapper's row (of ``wrappers``: see
    ``wrapper_rows``) wraps and that do not name the wrapper: not fixed in a version of the
    wrapper, but what the wrapper removes of its framework's behaviour."""
    entries = registry.by_id()
    return [
        f
        for f in fixed_
        if f.backend in wrappers and f.id in entries and not entries[f.id].names(wrappers[f.backend])
    ]


def stale(run: Run, registry: Registry) -> list[Stale]:
    """Registry entries that concern what ran (its backends, on the devices an entry names)
    but matched no divergence, and have no example replayed there (a replay decides exactly:
    see ``fixed``).

    For exhaustive specs that means the divergence is gone; for Hypothesis specs it
    may also mean this run did not draw such a case, so reports call them "not
    reproduced". The reference backend (NumPy against itself) cannot diverge."""
    backends = {r.backend.id: r.backend for r in run.checks if r.backend.name != r.reference}
    replayed = {(r.known, r.backend.id) for r in run.replays}
    checked: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)  # backend id -> {(family, op)}
    devices: defaultdict[str, set[str]] = defaultdict(set)  # backend id -> devices checked ("": its own)
    for record in run.checks:
        checked[record.backend.id].update((record.family, op) for op in record.cases)
        devices[record.backend.id].add(record.device or "")
    used = {(r.known, r.backend.id) for r in run.divergences if r.known}
    found = []
    for entry in registry.entries:
        for backend_id, backend in sorted(backends.items()):
            if (entry.id, backend_id) in used | replayed or not entry.applies_to(backend):
                continue
            on = entry.patterns.get(
                "device"
            )  # an entry of a device (cuda:*) concerns only a run that checked one
            if on and not any(globs_match(d, on) for d in devices[backend_id]):
                continue
            families, ops = entry.patterns.get("family", ("*",)), entry.patterns.get("op", ("*",))
            if any(globs_match(f, families) and globs_match(o, ops) for f, o in checked[backend_id]):
                found.append(Stale(entry.id, backend_id, entry.differs))
    return found


def by_entry(divergences: Iterable) -> list[tuple[str, list]]:
    """Known divergences grouped by the registry entry they matched, the largest group first."""
    groups = defaultdict(list)
    for record in distinct(divergences):
        if record.known:
            groups[record.known].append(record)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


@dataclass(frozen=True)
class PromotionDifference:
    inputs: str
    numpy: str
    backend: str
    ops: tuple[str, ...]


def promotion_differences(
    divergences: Iterable, table: str | None = None
) -> dict[str, list[PromotionDifference]]:
    """backend id -> result dtypes that differ from NumPy's, with the operations that show
    each; with ``table``, only divergences of specs that feed it."""
    groups: dict[str, dict[tuple, set]] = defaultdict(lambda: defaultdict(set))
    for record in distinct(divergences):
        key = record.key
        if (
            key.family == "promotion"
            and key.kind == "dtype"
            and key.reference == "numpy"
            and (table is None or table in record.tables)
        ):
            groups[key.backend_id][(key.inputs, key.expected, key.actual)].add(key.op)
    return {
        backend: [PromotionDifference(i, e, a, tuple(sorted(ops))) for (i, e, a), ops in sorted(rows.items())]
        for backend, rows in sorted(groups.items())
    }


def feeds(records_, table: str) -> list:
    """The records of the specs that declare they feed ``table``."""
    return [r for r in records_ if table in r.tables]


@dataclass
class SurveyTable:
    columns: list[str] = field(default_factory=list)
    rows: dict[str, dict[str, str]] = field(default_factory=dict)  # row -> column -> value


def survey_tables(observations: Iterable[Observation], column=None) -> dict[str, SurveyTable]:
    """table name -> its columns (one per backend, or as ``column(record)`` names them) and rows."""
    column = column or (lambda r: r.backend.row + (f" {r.device}" if r.device else ""))
    tables: dict[str, SurveyTable] = {}
    for record in observations:
        found = tables.setdefault(record.table, SurveyTable())
        name = column(record)
        if name not in found.columns:
            found.columns.append(name)
        found.rows.setdefault(record.row, {})[name] = record.value
    for found in tables.values():
        found.columns.sort()
    return tables


def kernel_coverage(coverage: Iterable[Coverage]) -> dict[str, dict[str, dict[str, int]]]:
    """backend@device -> kernel -> {"device": launches on the plug-in, "fallback": launches that fell back}."""
    found: dict = defaultdict(lambda: defaultdict(lambda: {"device": 0, "fallback": 0}))
    for record in coverage:
        for op, counts in record.ops.items():
            for side in ("device", "fallback"):
                found[record.where][op][side] += counts.get(side, 0)
    return {k: dict(v) for k, v in sorted(found.items())}


@dataclass
class ClassCoverage:
    """A spec run once per input class: its classes, and per backend@device those it checked cases in."""

    spec: str
    name: str  # the class parameter
    classes: list[str]
    covered: dict[str, set[str]] = field(default_factory=dict)  # backend@device -> classes with cases

    def missing(self) -> dict[str, list[str]]:
        return {
            where: [c for c in self.classes if c not in got]
            for where, got in sorted(self.covered.items())
            if set(self.classes) - got
        }


def input_classes(checks: Iterable[Checks]) -> list[ClassCoverage]:
    """Per spec that declares input classes (compat.core.params.input_classes), which
    classes each backend and device covered: ran with at least one case checked."""
    found: dict[tuple[str, str], ClassCoverage] = {}
    for record in checks:
        declared = record.input_class
        if not declared:
            continue
        key = (record.spec_name, declared["name"])
        coverage = found.setdefault(
            key, ClassCoverage(record.spec_name, declared["name"], list(declared["all"]))
        )
        got = coverage.covered.setdefault(record.where, set())
        if sum(record.cases.values()):
            got.add(declared["value"])
    return [found[key] for key in sorted(found)]
