"""The results store: the records of any number of runs in one embedded SQLite file.

``ingest`` reads results directories (one run, a run's workers, a tox matrix's
``.tox/results``, CI artifacts from other machines) and adds what the store does
not hold yet. The dashboard reads only the store.

Tables::

    runs     run_id (primary key), started, meta (run.json as JSON, NULL until one
             was seen), source (where it was first read from), ingested
    records  one row per record line: the fields reports group by, as columns
    bodies   digest (primary key), body: each distinct line, the record as JSON
    records_with_body   a view: records joined with their bodies

A record line is identified by (run_id, worker, digest, nth): the record's run and
worker, a hash of the line, and which occurrence of that exact line it is in its
worker's file (1 for the first). Reading a run again adds nothing; reading a worker
file that grew since adds only the new lines (the old ones keep their identity even
if lines were inserted before them); the same run copied to two places counts once.
A ``UNIQUE`` constraint on that key, ``INSERT OR IGNORE``, one ``BEGIN IMMEDIATE``
transaction per file, WAL and a busy timeout let processes ingest at the same time
without losing or duplicating anything.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compat.results import records

DEFAULT_STORE = Path("compat-results") / "compat.sqlite"  # next to the plugin's DEFAULT_RESULTS
SCHEMA_VERSION = 2  # PRAGMA user_version of a compat store; 2 added tables and unsupported
BUSY_TIMEOUT_MS = 120_000

SCHEMA_TEMPLATE = """
CREATE TABLE IF NOT EXISTS runs (
    run_id   TEXT PRIMARY KEY,
    started  TEXT NOT NULL,
    meta     TEXT,
    source   TEXT NOT NULL,
    ingested TEXT NOT NULL
);
{records}CREATE TABLE IF NOT EXISTS bodies (
    digest TEXT PRIMARY KEY,
    body   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_by_run ON records (run_id, type, backend_id);
CREATE INDEX IF NOT EXISTS records_by_type ON records (type, family);
CREATE VIEW IF NOT EXISTS records_with_body AS SELECT records.*, bodies.body FROM records JOIN bodies USING (digest);
"""

SIGNATURE = ("inputs", "expected", "actual")  # a divergence's signature: its columns are sig_<part>


def attribute(name: str) -> Callable[[records.Record], Any]:
    return lambda record: getattr(record, name, None)


def of_checks(name: str) -> Callable[[records.Record], Any]:
    return lambda record: (
        json.dumps(getattr(record, name), sort_keys=True) if isinstance(record, records.Checks) else None
    )


def signature(part: str) -> Callable[[records.Record], Any]:
    return lambda record: (getattr(record, "signature", None) or {}).get(part)


# The records table: each line's identity, then the fields reports group by, each column
# once with its SQL type and its value in a record; the table, the INSERT, ``row_of``
# and the dashboard's key columns (KEY_COLUMNS) follow from it. The store's format: a
# change here is a new SCHEMA_VERSION.
IDENTITY = {
    "run_id": "TEXT NOT NULL",
    "worker": "TEXT NOT NULL",
    "digest": "TEXT NOT NULL",
    "nth": "INTEGER NOT NULL",
}
FIELDS: dict[str, tuple[str, Callable[[records.Record], Any]]] = {
    "type": ("TEXT NOT NULL", lambda record: record.TYPE),
    "family": ("TEXT NOT NULL", attribute("family")),
    "spec": ("TEXT NOT NULL", attribute("spec")),
    "backend_id": ("TEXT NOT NULL", lambda record: record.backend.row),  # 'jax[x64]~jit'
    "backend_name": ("TEXT NOT NULL", lambda record: record.backend.name),
    "backend_version": ("TEXT NOT NULL", lambda record: record.backend.version),
    "backend_config": ("TEXT NOT NULL", lambda record: json.dumps(record.backend.config, sort_keys=True)),
    "device": ("TEXT", attribute("device")),
    "reference": ("TEXT NOT NULL", attribute("reference")),
    "op": ("TEXT", attribute("op")),
    "kind": ("TEXT", attribute("kind")),
    "status": ("TEXT", attribute("status")),
    "known": ("TEXT", attribute("known")),
    **{f"sig_{part}": ("TEXT", signature(part)) for part in SIGNATURE},
    "count": ("INTEGER", attribute("count")),
    "cases": ("TEXT", of_checks("cases")),
    "survey": ("TEXT", attribute("table")),  # an observation's table, row and value
    "survey_row": ("TEXT", attribute("row")),
    "survey_value": ("TEXT", attribute("value")),
    "tables": ("TEXT", lambda record: json.dumps(record.tables) if hasattr(record, "tables") else None),
    "unsupported": ("TEXT", of_checks("unsupported")),
}
COLUMNS = (*IDENTITY, *FIELDS)
KEY_COLUMNS = tuple(
    f"sig_{f}" if f in SIGNATURE else f for f in records.Key._fields
)  # a divergence's identity
SCHEMA = SCHEMA_TEMPLATE.format(
    records="CREATE TABLE IF NOT EXISTS records (\n    id              INTEGER PRIMARY KEY,\n"
    + "".join(
        f"    {name:<15} {sql},\n"
        for name, sql in [*IDENTITY.items(), *((name, sql) for name, (sql, _) in FIELDS.items())]
    )
    + "    UNIQUE (run_id, worker, digest, nth)\n);\n"
)
INSERT = f"INSERT OR IGNORE INTO records ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"


class StoreError(Exception):
    """The store or an input cannot be used (one-line message for users)."""


@dataclass
class Ingested:
    """What one ``ingest`` call added."""

    files: int = 0
    lines: int = 0  # record lines read (blank lines aside)
    bad_lines: int = 0  # of which not records (listed in skipped)
    records: int = 0  # record rows added
    runs: list[str] = field(default_factory=list)  # runs the store did not know
    described: list[str] = field(default_factory=list)  # runs whose run.json was added
    per_run: Counter = field(default_factory=Counter)  # run id -> records added
    skipped: list[str] = field(default_factory=list)  # "file:line: reason"


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def started_from_run_id(run_id: str) -> str | None:
    """The plugin's run ids start with their UTC start time: 20260101T120000Z-ab12cd."""
    match = re.match(r"(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z", run_id)
    if not match:
        return None
    y, mo, d, h, mi, s = match.groups()
    return f"{y}-{mo}-{d}T{h}:{mi}:{s}+00:00"


# -- opening -------------------------------------------------------------------------


def schema_of(connection: sqlite3.Connection) -> tuple[int, set[str]]:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    return version, {
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }


def check_schema(connection: sqlite3.Connection, path: Path, version: int, tables: set[str]) -> None:
    if version == SCHEMA_VERSION:
        return
    if tables or version:
        raise StoreError(
            f"cannot use store {path}: not a compat store (an SQLite file with other tables)"
            if version == 0
            else f"cannot use store {path}: store format {version}, this compat reads {SCHEMA_VERSION}"
        )
    raise StoreError(f"cannot use store {path}: empty, nothing was merged into it")


def create_schema(connection: sqlite3.Connection, path: Path) -> None:
    """Create the tables unless they exist, holding the write lock from the first
    look to the last statement: processes that open a new store at once create it once."""
    with transaction(connection):
        version, tables = schema_of(connection)
        if version == 0 and not tables:
            for statement in filter(str.strip, SCHEMA.split(";")):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        check_schema(connection, path, version, tables)


def while_locked(attempt):
    """Retry ``attempt`` while SQLite says the database is locked, up to the busy
    timeout: switching to WAL (and a lock upgrade) fails at once, without waiting."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return attempt()
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def connect(path: Path | str, create: bool = True) -> sqlite3.Connection:
    """Open (and with ``create``, create) a compat store; StoreError if it is not one."""
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"cannot use store {path}: it is a directory")
    if not path.exists():
        if not create:
            raise StoreError(f"cannot use store {path}: no such file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create store {path}: {error.strerror or error}") from None
    elif not os.access(path, os.R_OK):
        raise StoreError(f"cannot read store {path}: permission denied")
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(f"cannot open store {path}: {error}") from None
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        connection.execute(
            "PRAGMA synchronous = NORMAL"
        )  # with WAL: a crash loses at most the last commits, never corrupts
        if create:
            while_locked(lambda: create_schema(connection, path))
            if (
                connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal"
            ):  # kept in the file: readers and writers at once
                while_locked(lambda: connection.execute("PRAGMA journal_mode = WAL"))
        else:
            check_schema(connection, path, *schema_of(connection))
    except sqlite3.Error as error:
        connection.close()
        raise StoreError(f"cannot use store {path}: {error}") from None
    except StoreError:
        connection.close()
        raise
    return connection


# -- ingesting -----------------------------------------------------------------------


def results_files(directory: Path) -> tuple[list[Path], list[Path]]:
    """run.json files and records-*.jsonl files under a results directory (or one run)."""
    directory = Path(directory)
    if not directory.exists():
        raise StoreError(f"cannot read results directory {directory}: no such directory")
    if not directory.is_dir():
        raise StoreError(f"cannot read results directory {directory}: not a directory")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise StoreError(f"cannot read results directory {directory}: permission denied")
    try:
        metas = sorted(p for p in directory.rglob("run.json") if p.is_file())
        files = sorted(p for p in directory.rglob("records-*.jsonl") if p.is_file())
    except OSError as error:
        raise StoreError(f"cannot read results directory {directory}: {error.strerror or error}") from None
    if not metas and not files:
        raise StoreError(
            f"{directory} is not a compat results directory (no run.json or records-*.jsonl under it)"
        )
    return metas, files


def row_of(record: records.Record, digest: str, nth: int) -> tuple:
    """The columns reports group by; the whole record stays in ``bodies``."""
    return (record.run_id, record.worker, digest, nth, *(value(record) for _, value in FIELDS.values()))


def read_records(path: Path, skipped: list[str], stored) -> tuple[list[tuple], int]:
    """(row, line) for the record lines of one worker file that the store does not hold
    yet, and how many non-blank lines it had. ``stored(run_id, worker)`` gives the
    identities the store holds: those lines are not validated again (re-merging is
    cheap). Every new line that is not a record goes to ``skipped`` as "file:line: reason"."""
    rows: list[tuple[tuple | None, str]] = []
    seen: Counter = Counter()
    lines = 0
    try:
        with open(path, "rb") as file:
            for number, raw in enumerate(file, 1):
                line = raw.strip()
                if not line:
                    continue
                lines += 1
                try:
                    text = line.decode("utf-8")
                    data = json.loads(text)
                except ValueError as error:  # a line cut short by a worker that died while writing it, too
                    skipped.append(f"{path}:{number}: not JSON ({error})"[:400])
                    continue
                digest = hashlib.blake2b(line, digest_size=16).hexdigest()
                identity = (
                    (data.get("run_id"), data.get("worker"), digest) if isinstance(data, dict) else None
                )
                if identity is not None:
                    seen[identity] += 1
                    if (digest, seen[identity]) in stored(*identity[:2]):
                        rows.append((None, text))  # held already: counted, not added
                        continue
                record, problem = records.parse(text)
                if record is None:
                    skipped.append(f"{path}:{number}: {problem}")
                    continue
                rows.append((row_of(record, digest, seen[identity]), text))
    except OSError as error:
        skipped.append(f"{path}: cannot read ({error.strerror or error})")
    return rows, lines


def read_meta(path: Path, skipped: list[str]) -> dict | None:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str) or not meta["run_id"]:
            raise ValueError("no run_id")
        return meta
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        skipped.append(f"{path}: not a compat run description ({reason})")
        return None


def transaction(connection: sqlite3.Connection):
    class Transaction:
        def __enter__(self):
            connection.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlock later
            return connection

        def __exit__(self, kind, value, traceback):
            connection.execute("COMMIT" if kind is None else "ROLLBACK")
            return False

    return Transaction()


def add_run(connection, run_id: str, source: str, ingested: Ingested, meta: dict | None = None) -> None:
    started = (meta or {}).get("started")
    started = started if isinstance(started, str) and started else started_from_run_id(run_id) or now()
    body = json.dumps(meta, sort_keys=True) if meta is not None else None
    cursor = connection.execute(
        "INSERT OR IGNORE INTO runs (run_id, started, meta, source, ingested) VALUES (?, ?, ?, ?, ?)",
        (run_id, started, body, source, now()),
    )
    if cursor.rowcount:
        ingested.runs.append(run_id)
        if meta is not None:
            ingested.described.append(run_id)
    elif meta is not None:
        cursor = connection.execute(
            "UPDATE runs SET meta = ?, started = ? WHERE run_id = ? AND meta IS NULL", (body, started, run_id)
        )
        if cursor.rowcount:
            ingested.described.append(run_id)


def ingest(store: Path | str, directories: list[Path | str]) -> Ingested:
    """Add every run under ``directories`` to the store. Bad input (a directory that
    is missing or holds no results, a store that cannot be used) raises StoreError
    before anything is added; lines that are not records are skipped and listed."""
    found = [(Path(d), *results_files(Path(d))) for d in directories]
    connection = connect(store)
    ingested = Ingested()
    try:
        for _directory, metas, files in found:
            for meta_path in metas:
                meta = read_meta(meta_path, ingested.skipped)
                if meta is not None:
                    with transaction(connection):
                        add_run(connection, meta["run_id"], str(meta_path.parent), ingested, meta)
            for path in files:
                rows, lines = read_records(path, ingested.skipped, stored_identities(connection))
                ingested.files += 1
                ingested.lines += lines
                ingested.bad_lines += lines - len(rows)
                rows = [(row, text) for row, text in rows if row is not None]
                if not rows:
                    continue
                by_run: dict[str, list[tuple]] = {}
                for row, _ in rows:
                    by_run.setdefault(row[0], []).append(row)
                with transaction(connection):
                    connection.executemany(
                        "INSERT OR IGNORE INTO bodies (digest, body) VALUES (?, ?)",
                        ((row[2], text) for row, text in rows),
                    )
                    for run_id, run_rows in sorted(by_run.items()):
                        add_run(connection, run_id, str(path.parent), ingested)
                        added = connection.executemany(INSERT, run_rows).rowcount
                        ingested.per_run[run_id] += added
                        ingested.records += added
    except sqlite3.Error as error:
        raise StoreError(f"cannot write to store {store}: {error}") from None
    finally:
        connection.close()
    return ingested


def stored_identities(connection: sqlite3.Connection):
    """(run_id, worker) -> {(digest, nth)} the store holds, read once per pair."""
    cache: dict[tuple, set] = {}

    def stored(run_id, worker) -> set:
        if (run_id, worker) not in cache:
            cache[(run_id, worker)] = set(
                connection.execute(
                    "SELECT digest, nth FROM records WHERE run_id = ? AND worker = ?", (run_id, worker)
                ).fetchall()
            )
        return cache[(run_id, worker)]

    return stored


# -- reading -------------------------------------------------------------------------


def counts(store: Path | str) -> dict:
    """Rows per table and records per type (for tests and the CLI)."""
    connection = connect(store, create=False)
    try:
        by_type = dict(connection.execute("SELECT type, count(*) FROM records GROUP BY type").fetchall())
        return {
            "runs": connection.execute("SELECT count(*) FROM runs").fetchone()[0],
            "described": connection.execute("SELECT count(*) FROM runs WHERE meta IS NOT NULL").fetchone()[0],
            "records": sum(by_type.values()),
            "by_type": by_type,
        }
    finally:
        connection.close()
