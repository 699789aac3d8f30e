"""The dashboard's divergences by cause (``compat.results.causes``): per matrix row its groups, and
for each cause the page that shows it (``c/*.html``), where every divergence of a known cause is
shown too (its signature's own page would say nothing else: one page per cause, not per signature).

A known record's cause is its registry entry, one page for every row it covers; a new record's
is its ``Cause`` (the row, the operation's group, the kind, and the classes of the two outcomes;
an error by its class and message shape, read from the record's body)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from compat.core.row import Row
from compat.dashboard.data import Data, MatrixRow, StoredDivergence
from compat.dashboard.html import readable, slug
from compat.results import causes
from compat.results.records import Key

OUTCOME_KINDS = ("error", "crash", "timeout")  # kinds whose cause reads the record's error


@dataclass(frozen=True)
class Cited:
    """A stored divergence as ``compat.results.causes`` reads a record."""

    stored: StoredDivergence
    key: Key
    count: int
    tables: tuple[str, ...]
    actual: dict  # the record's actual outcome: its error names a new error's cause

    @property
    def status(self) -> str:
        return self.stored.status

    @property
    def known(self) -> str | None:
        return self.stored.known

    @property
    def where(self) -> str:
        """The record's row: 'torch~compile@apu:0' (compat.core.row's text)."""
        return str(replace(Row.parse(self.key.backend_id), device=self.key.device))

    @property
    def op(self) -> str:
        return self.key.op

    @property
    def kind(self) -> str:
        return self.key.kind

    @property
    def signature(self) -> dict:
        return {"inputs": self.key.inputs, "expected": self.key.expected, "actual": self.key.actual}


@dataclass
class Line:
    """The divergences of one cause that differ only in their inputs (their dtypes), and their row:
    one line of a list. A cell's page has a line per row (``lines_of``); the cause's page one for
    every row (``CausePage.lines``), at the same anchor."""

    family: str
    op: str
    kind: str
    expected: str
    actual: str
    status: str
    known: str | None
    anchor: str  # its place on the cause's page
    divergences: list[StoredDivergence] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Examples that showed one of them."""
        return sum(d.count for d in self.divergences)

    def what(self) -> tuple:
        return (self.family, self.op, self.kind, self.expected, self.actual, self.status, self.known)


@dataclass
class CausePage:
    """One cause's page: a registry entry's (every row it covers) or a new cause's."""

    path: str
    name: str  # the entry's id, or the new cause's title
    status: str
    cause: causes.Cause | None  # of a new cause
    rows: dict[tuple, list[Line]] = field(default_factory=dict)  # matrix row key -> its lines
    lines: dict[tuple, Line] = field(default_factory=dict)  # Line.what() -> the line of every row

    @property
    def known(self) -> bool:
        return self.cause is None

    def size(self) -> int:
        """Distinct divergences."""
        return sum(len(line.divergences) for line in self.lines.values())

    def add(self, row_key: tuple, lines: list[Line]) -> None:
        self.rows[row_key] = lines
        for line in lines:
            merged = self.lines.setdefault(line.what(), Line(*line.what(), anchor=line.anchor))
            merged.divergences.extend(line.divergences)


def cause_path(group: causes.Group) -> str:
    if group.cause is None:
        return f"c/{readable(group.name, 32)}-{slug('known', group.name)[:6]}.html"
    return f"c/{readable(group.cause.where, 24)}-{slug(group.status, group.cause)[:10]}.html"


def place(d: StoredDivergence) -> tuple:
    """A distinct divergence of one run and version: what a page shows once."""
    return (d.run_id, d.key, d.version)


def lines_of(path: str, found: list[StoredDivergence]) -> list[Line]:
    """One row's divergences of one cause (its page: ``path``) as lines, in the order of family,
    operation, kind."""
    lines: dict[tuple, Line] = {}
    for d in sorted(found, key=lambda d: (d.family, d.op, d.kind, d.expected, d.actual, d.status, d.inputs)):
        what = (d.family, d.op, d.kind, d.expected, d.actual, d.status, d.known)
        if what not in lines:
            lines[what] = Line(*what, anchor=f"s{slug(path, *what)[:8]}")
        lines[what].divergences.append(d)
    return list(lines.values())


class Causes:
    """Every matrix row's divergences by cause; each divergence's cause page and line there."""

    def __init__(self, data: Data):
        self.data = data
        self.per_row: dict[tuple, list[causes.Group]] = {}
        self.pages: dict[str, CausePage] = {}
        self.line_of: dict[tuple, tuple[str, Line]] = {}  # a stored divergence's place -> (page, line)
        self.shown: dict[tuple, StoredDivergence] = {}  # (key, version) -> the matrix's divergence
        shown = [(row, cell) for (key, _), cell in data.cells.items() for row in [data.rows[key]]]
        errors = self._errors([d for _, cell in shown for d in cell.divergences])
        by_row: dict[tuple, list[StoredDivergence]] = defaultdict(list)
        for row, cell in shown:
            by_row[row.key].extend(cell.divergences)
        for key in sorted(by_row, key=lambda k: tuple("" if v is None else v for v in k)):
            cited = [Cited(d, d.key, d.count, d.tables, errors.get(d.record_id, {})) for d in by_row[key]]
            groups = causes.by_cause(cited)
            self.per_row[key] = groups
            for group in groups:
                path = cause_path(group)
                page = self.pages.setdefault(path, CausePage(path, group.name, group.status, group.cause))
                page.add(key, lines_of(path, [c.stored for c in group.records]))
                for line in page.rows[key]:
                    for d in line.divergences:
                        self.line_of[place(d)] = (path, line)
                        self.shown[(d.key, d.version)] = d

    def _errors(self, divergences: list[StoredDivergence]) -> dict[int, dict]:
        """The actual outcome of each new record that raised: its error's class and message."""
        wanted = [d.record_id for d in divergences if not d.known and d.kind in OUTCOME_KINDS]
        return {record_id: body.get("actual") or {} for record_id, body in self.data.bodies(wanted).items()}

    def row_groups(self, row: MatrixRow) -> list[causes.Group]:
        return self.per_row.get(row.key, [])

    def page(self, d: StoredDivergence) -> str | None:
        """The cause's page of a divergence of the matrix."""
        found = self.line_of.get(place(d))
        return None if found is None else found[0]

    def line(self, d: StoredDivergence) -> Line | None:
        found = self.line_of.get(place(d))
        return None if found is None else found[1]

    def link(self, d: StoredDivergence) -> str | None:
        """The divergence's line on its cause's page."""
        found = self.line_of.get(place(d))
        return None if found is None else f"{found[0]}#{found[1].anchor}"
