"""Everything the dashboard's pages need, read from the store (the only SQL of the
dashboard), and aggregated as the report aggregates (``compat.results.aggregate``)."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache, cached_property

from packaging.version import InvalidVersion, Version

from compat.core.row import EAGER, Row
from compat.dashboard.html import slug
from compat.results import aggregate, records
from compat.results.records import Key
from compat.results.store import KEY_COLUMNS

VIEWS = ("", "device", "mode")  # matrices: against NumPy-like references, reference devices, eager
OTHER_SPECS = ""  # in a divergence's tables: shown by a spec that feeds no table


@cache  # a few distinct values among a store's thousands of records
def tables_of(column: str | None) -> tuple[str, ...]:
    """A record's tables column: what its spec feeds, or OTHER_SPECS."""
    return tuple(json.loads(column)) or (OTHER_SPECS,) if column else (OTHER_SPECS,)


def divergence_page(key: Key, version: str) -> str:
    """The page of a distinct divergence of a backend version (written if the context chose it)."""
    return f"d/{slug(*key, version)}.html"


@dataclass(slots=True)
class StoredDivergence:
    """One distinct divergence of one cell's run, as the store's columns hold it (the
    whole record is read only for its page); its key's fields read as its own."""

    run_id: str
    key: Key
    count: int
    record_id: int
    status: str
    known: str | None
    version: str
    tables: tuple[str, ...] = ()  # what its specs feed (OTHER_SPECS: one of them feeds nothing)
    _page: str | None = None

    def __getattr__(
        self, name: str
    ):  # backend_id, device, reference, family, op, kind, inputs, expected, actual
        return getattr(self.key, name)

    @property
    def page(self) -> str:
        if self._page is None:
            self._page = divergence_page(self.key, self.version)
        return self._page

    def feeds(self, table: str) -> bool:
        return table in self.tables


@dataclass
class MatrixRow:
    """A matrix row: a backend (id with config) at one version on a device, against a
    reference class. Each version of a backend is a row of its own, so that a matrix of
    versions (tox's jax and jax-previous envs, CI jobs) shows them side by side."""

    backend_id: str
    version: str
    device: str | None
    against: str  # "" for NumPy-like references; "device:<name>" or "mode:eager" in those views
    name: str = ""
    config: str = "{}"

    @property
    def key(self) -> tuple:
        return (self.backend_id, self.version, self.device, self.against)

    @property
    def group(self) -> tuple:
        """The row's key without the version: the rows that are versions of one another."""
        return (self.backend_id, self.device, self.against)

    @property
    def view(self) -> str:
        """The matrix it is a row of (one of VIEWS)."""
        return self.against.partition(":")[0]

    @property
    def versus(self) -> str:
        """What the device or mode view compares it with: the reference device, eager."""
        return self.against.partition(":")[2]

    def label(self) -> str:
        return f"{self.backend_id} {self.version} on {self.device or 'default device'}" + (
            f" vs {self.versus}" if self.against else ""
        )


def version_order(version: str) -> tuple:
    """Sort key of backend versions: PEP 440 order (0.9.2 before 0.10.2), unparsable ones last."""
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


@dataclass
class Cell:
    run_id: str
    divergences: list[StoredDivergence] = field(default_factory=list)
    cases: dict = field(default_factory=dict)  # op -> cases checked
    table_ops: dict = field(default_factory=dict)  # table its specs feed -> operations they checked
    unsupported: dict = field(default_factory=dict)  # operation -> the adapter's reason

    def counts(self, op: str | None = None) -> tuple[int, int]:
        chosen = [d for d in self.divergences if op is None or d.op == op]
        new = sum(1 for d in chosen if d.status == "new")
        return new, len(chosen) - new


class Data:
    """Everything the pages need, read from the store with a few aggregate queries."""

    def __init__(self, connection: sqlite3.Connection):
        self.db = connection
        self.runs = {}
        for run_id, started, meta in connection.execute(
            "SELECT run_id, started, meta FROM runs ORDER BY started, run_id"
        ):
            self.runs[run_id] = {
                "run_id": run_id,
                "started": started,
                "meta": json.loads(meta) if meta else None,
            }
        self.order = {run_id: i for i, run_id in enumerate(self.runs)}
        self.rows: dict[tuple, MatrixRow] = {}
        self.cells: dict[tuple, Cell] = {}  # (row key, family) -> Cell of the latest run
        self.previous: dict[tuple, str] = {}  # (row key, family) -> the run before it
        self._load_cells()

    @staticmethod
    @cache
    def against(reference: str) -> str:
        """A record's reference class: "" for NumPy-like references (its row is in the main matrix)."""
        return reference if reference.startswith(("device:", "mode:")) else ""

    def _load_cells(self) -> None:
        covered = defaultdict(set)  # (row key, family) -> runs
        found = self.db.execute(
            "SELECT DISTINCT run_id, backend_id, backend_version, device, reference, family, backend_name, "
            "backend_config FROM records WHERE type IN ('divergence', 'checks')"
        ).fetchall()
        # every case of a device param is also compared with the backend's reference device,
        # named by the records of such divergences (checks records name NumPy)
        self.reference_devices = {(row[1], row[3]): row[4] for row in found if row[4].startswith("device:")}
        for run_id, backend_id, version, device, reference, family, name, config in found:
            for key in self.keys_of(backend_id, version, device, reference):
                self.rows.setdefault(key, MatrixRow(*key, name=name, config=config))
                covered[(key, family)].add(run_id)
        self.covered: dict[
            tuple, list[str]
        ] = {}  # (row key, family) -> the runs that covered it, oldest first
        for (key, family), runs in covered.items():
            ordered = sorted(runs, key=self.order.__getitem__)
            self.covered[(key, family)] = ordered
            self.cells[(key, family)] = Cell(ordered[-1])
            if len(ordered) > 1:
                self.previous[(key, family)] = ordered[-2]
        wanted = {(cell.run_id, *key, family) for (key, family), cell in self.cells.items()}
        runs = sorted({cell.run_id for cell in self.cells.values()})
        for d in self.divergences(runs):
            key = (d.backend_id, d.version, d.device, self.against(d.reference))
            if (d.run_id, *key, d.family) in wanted:
                self.cells[(key, d.family)].divergences.append(d)
        for (
            run_id,
            backend_id,
            version,
            device,
            reference,
            family,
            tables,
            unsupported,
            op,
            n,
        ) in self.db.execute(
            f"SELECT r.run_id, r.backend_id, r.backend_version, r.device, r.reference, r.family, r.tables, "
            f"r.unsupported, j.key, sum(j.value) FROM records r LEFT JOIN json_each(r.cases) j "
            f"WHERE r.type = 'checks' "  # LEFT: a spec whose only operation is unsupported checked none
            f"AND r.run_id IN ({marks(runs)}) GROUP BY r.run_id, r.backend_id, r.backend_version, r.device, "
            f"r.reference, r.family, r.spec, j.key",
            runs,
        ):
            for key in self.keys_of(backend_id, version, device, reference):
                if (run_id, *key, family) in wanted:
                    cell = self.cells[(key, family)]
                    if op is not None:
                        cell.cases[op] = cell.cases.get(op, 0) + n
                        for table in tables_of(tables):
                            cell.table_ops.setdefault(table, set()).add(op)
                    cell.unsupported.update(json.loads(unsupported) if unsupported else {})
        for cell in self.cells.values():
            cell.divergences.sort(
                key=lambda d: (d.status != "new", d.op, d.kind, d.inputs, d.expected, d.actual)
            )

    def keys_of(self, backend_id: str, version: str, device: str | None, reference: str) -> list[tuple]:
        """The matrix rows a record counts in: its own, and for a device param's record
        against NumPy also the device view's (device against reference device), for an
        execution mode's (backend id "jax[x64]~jit") the mode view's (mode against eager):
        each of those cases was compared with the reference device or eager as well."""
        key = (backend_id, version, device, self.against(reference))
        if key[3]:
            return [key]
        keys = [key]
        if device is not None:
            keys.append(
                (
                    backend_id,
                    version,
                    device,
                    self.reference_devices.get((backend_id, device), "device:its reference device"),
                )
            )
        if Row.parse(backend_id).mode != EAGER:
            keys.append((backend_id, version, device, "mode:eager"))
        return keys

    def divergences(self, runs: list[str] | None = None) -> list[StoredDivergence]:
        """The distinct divergences of each of these runs (all runs by default), aggregated
        as the report aggregates them."""
        where = "" if runs is None else f" AND run_id IN ({marks(runs)})"
        rows = self.db.execute(
            f"SELECT run_id, {', '.join(KEY_COLUMNS)}, count, id, status, known, backend_version, "
            f"tables FROM records WHERE type = 'divergence'{where} ORDER BY id",
            runs or [],
        )
        per_run = defaultdict(list)
        end = 1 + len(KEY_COLUMNS)
        for row in rows:
            per_run[row[0]].append(
                StoredDivergence(row[0], Key(*row[1:end]), *row[end:-1], tables=tables_of(row[-1]))
            )
        return [d for found in per_run.values() for d in aggregate.distinct(found)]

    @cached_property
    def all_divergences(self) -> list[StoredDivergence]:
        """The distinct divergences of every run (history's counts), read once."""
        return self.divergences()

    def row_key(self, d: StoredDivergence) -> tuple:
        """The matrix row a divergence counts in."""
        key = d.key
        return (key.backend_id, d.version, key.device, self.against(key.reference))

    @cached_property
    def run_counts(self) -> dict[tuple, list[int]]:
        """(run, row key, family) -> [new, known] distinct divergences: every run's cells."""
        counts: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
        for d in self.all_divergences:
            counts[(d.run_id, self.row_key(d), d.family)][0 if d.status == "new" else 1] += 1
        return counts

    def checked_ops(self) -> dict[tuple, set[str]]:
        """(run, row key, family) -> the operations a case of which was checked there, in every run."""
        found: dict[tuple, set[str]] = defaultdict(set)
        for run_id, backend_id, version, device, reference, family, op in self.db.execute(
            "SELECT DISTINCT r.run_id, r.backend_id, r.backend_version, r.device, r.reference, r.family, j.key "
            "FROM records r JOIN json_each(r.cases) j WHERE r.type = 'checks'"
        ):
            for key in self.keys_of(backend_id, version, device, reference):
                found[(run_id, key, family)].add(op)
        return found

    def observations(self) -> list[tuple]:
        """(run, survey, row, value, backend id, version, device, backend name) of every observation record."""
        return self.db.execute(
            "SELECT run_id, survey, survey_row, survey_value, backend_id, backend_version, device, "
            "backend_name FROM records WHERE type = 'observation'"
        ).fetchall()

    def coverage(self) -> list[tuple[str, str, str | None, dict]]:
        """(run, backend id, device, kernel counts) of every coverage record."""
        return [
            (run_id, backend_id, device, json.loads(ops))
            for run_id, backend_id, device, ops in self.db.execute(
                "SELECT run_id, backend_id, device, json_extract(body, '$.ops') "
                "FROM records JOIN bodies USING (digest) WHERE type = 'coverage'"
            )
        ]

    def latest_of_spec(self, family: str, spec: str) -> records.Run | None:
        """The latest run with records of ``spec`` (a spec function's name), as a Run of its
        checks and divergences of that spec (the special-case and interchange pages)."""
        like = f"%::{spec}[%"
        found = self.db.execute(
            "SELECT run_id FROM records WHERE family = ? AND spec LIKE ? ORDER BY id DESC LIMIT 1",
            (family, like),
        ).fetchone()
        if found is None:
            return None
        bodies = self.db.execute(
            "SELECT body FROM records JOIN bodies USING (digest) WHERE run_id = ? AND family = ? "
            "AND type IN ('checks', 'divergence') AND spec LIKE ? ORDER BY id",
            (found[0], family, like),
        )
        run = records.Run(found[0])
        for (body,) in bodies:
            run.add(records.from_json(json.loads(body)))
        return run

    def versions_run(self) -> dict[tuple[str, str], list[str]]:
        """(backend id, version) -> the runs that checked it."""
        found = defaultdict(list)
        for run_id, backend_id, version in self.db.execute(
            "SELECT DISTINCT run_id, backend_id, backend_version FROM records WHERE type IN ('divergence', 'checks')"
        ):
            found[(backend_id, version)].append(run_id)
        return found

    def fixed(self) -> list[aggregate.Fixed]:
        """Registry entries whose replayed examples no longer diverge on a backend version."""
        return aggregate.fixed(
            (aggregate.Fixed(*row[:5]), row[5])
            for row in self.db.execute(
                "SELECT known, backend_id, backend_name, backend_version, device, status "
                "FROM records WHERE type = 'replay'"
            )
        )

    def wrapper_rows(self) -> dict[str, records.Backend]:
        """Row id -> backend of the rows that wrap a framework (their records' ``backend.wraps``)."""
        return {
            backend_id: records.Backend.from_json(json.loads(backend))
            for backend_id, backend in self.db.execute(
                "SELECT backend_id, json_extract(body, '$.backend') FROM records JOIN bodies USING (digest) "
                "WHERE type = 'checks' AND json_extract(body, '$.backend.wraps') IS NOT NULL GROUP BY backend_id"
            )
        }

    def wrapper_run(self, wrapper: str, wrapped: str) -> tuple[records.Run, dict[str, str]]:
        """The checks, divergences and replays of a wrapper's row and its framework's on the default
        device (compat.results.wrapper_table's input), per family from the latest run that checked
        the family on both rows; and family -> that run."""
        runs = defaultdict(set)  # (run, family) -> the two rows that checked it
        for run_id, family, backend_id in self.db.execute(
            "SELECT DISTINCT run_id, family, backend_id FROM records WHERE type = 'checks' "
            "AND device IS NULL AND backend_id IN (?, ?)",
            (wrapper, wrapped),
        ):
            runs[(run_id, family)].add(backend_id)
        chosen: dict[str, str] = {}
        for run_id, family in sorted(runs, key=lambda k: self.order.get(k[0], -1)):
            if len(runs[(run_id, family)]) == 2:
                chosen[family] = run_id
        run = records.Run("")
        for family, run_id in chosen.items():
            for (body,) in self.db.execute(
                "SELECT body FROM records JOIN bodies USING (digest) WHERE run_id = ? AND family = ? "
                "AND type IN ('checks', 'divergence', 'replay') AND device IS NULL AND backend_id IN (?, ?) "
                "ORDER BY id",
                (run_id, family, wrapper, wrapped),
            ):
                run.add(records.from_json(json.loads(body)))
        return run, chosen

    def record_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM records").fetchone()[0]

    def bodies(self, ids: list[int]) -> dict[int, dict]:
        found = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            for record_id, body in self.db.execute(
                f"SELECT id, body FROM records JOIN bodies USING (digest) WHERE id IN ({marks(chunk)})", chunk
            ):
                found[record_id] = json.loads(body)
        return found

    def rows_of(self, view: str) -> list[MatrixRow]:
        """The rows of one view's matrix (one of VIEWS)."""
        return sorted(
            (r for r in self.rows.values() if r.view == view),
            key=lambda r: (
                r.name != "numpy",
                r.backend_id,
                r.device or "",
                r.against,
                version_order(r.version),
            ),
        )

    def version_groups(self, view: str = "") -> list[list[MatrixRow]]:
        """Rows that are versions of one backend (with config) on one device, for each such
        backend run at more than one version; oldest version first."""
        groups = defaultdict(list)
        for row in self.rows_of(view):
            groups[row.group].append(row)
        return [rows for rows in groups.values() if len(rows) > 1]

    def families_of(self, rows: list[MatrixRow]) -> list[str]:
        keys = {r.key for r in rows}
        return sorted({family for key, family in self.cells if key in keys})


def marks(items) -> str:
    return ", ".join("?" * len(items)) or "NULL"
