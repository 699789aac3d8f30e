"""Divergence records: JSON Lines, one file per pytest-xdist worker, flushed per record.

A results directory holds one folder per run::

    DIR/<run_id>/run.json              the run's environment (written by the controller)
    DIR/<run_id>/records-<worker>.jsonl

Two record types share a file (see ``record.schema.json``):
- ``divergence``: one divergence with its minimal example and reproducer;
- ``checks``: how many cases a spec checked per operation, written when the
  spec finishes, so reports can count cases and find stale registry entries.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Iterator

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("record.schema.json")


class ResultsError(Exception):
    """A results directory cannot be used (one-line message for users)."""


@cache
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@cache
def validator():
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


def problem_with(record: Any) -> str | None:
    """None if ``record`` follows the schema, else a one-line reason."""
    error = jsonschema_error(record)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"[:300]


def jsonschema_error(record):
    return next(iter(sorted(validator().iter_errors(record), key=lambda e: e.path)), None)


class RecordWriter:
    """Appends records to this worker's file; every record is flushed at once
    so a worker that crashes later leaves everything it wrote."""

    def __init__(self, run_directory: Path, worker: str) -> None:
        run_directory.mkdir(parents=True, exist_ok=True)
        self.path = run_directory / f"records-{worker}.jsonl"
        self.file = open(self.path, "a", encoding="utf-8")

    def write(self, record: dict) -> None:
        self.file.write(json.dumps(record, sort_keys=True, allow_nan=False) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


def check_writable(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise ResultsError(f"cannot write results to {directory}: {error.strerror or error}") from None


@dataclass
class Run:
    run_id: str
    meta: dict = field(default_factory=dict)
    divergences: list[dict] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)

    @property
    def started(self) -> str:
        return self.meta.get("started", "")


@dataclass
class Loaded:
    runs: dict[str, Run] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # "file:line: reason"

    def latest(self) -> Run | None:
        return max(self.runs.values(), key=lambda r: (r.started, r.run_id), default=None)


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    with open(path, encoding="utf-8", errors="replace") as file:
        for number, line in enumerate(file, 1):
            if line.strip():
                yield number, line


def load(directory: Path) -> Loaded:
    """Read every run under ``directory`` (or ``directory`` itself if it is one run).

    Records that do not follow the schema are reported in ``problems`` with
    their file and line and skipped; the rest is still read.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ResultsError(f"cannot read results directory {directory}: {'not a directory' if directory.exists() else 'no such directory'}")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise ResultsError(f"cannot read results directory {directory}: permission denied")
    loaded = Loaded()
    for meta_path in sorted(directory.rglob("run.json")):
        try:
            meta = json.loads(meta_path.read_text())
            loaded.runs.setdefault(meta["run_id"], Run(meta["run_id"])).meta = meta
        except (OSError, ValueError, KeyError, TypeError) as error:
            loaded.problems.append(f"{meta_path}: not a compat run description ({error})")
    for path in sorted(directory.rglob("records-*.jsonl")):
        try:
            lines = list(iter_lines(path))
        except OSError as error:
            loaded.problems.append(f"{path}: cannot read ({error.strerror})")
            continue
        for number, line in lines:
            try:
                record = json.loads(line)
            except ValueError as error:
                loaded.problems.append(f"{path}:{number}: not JSON ({error})")
                continue
            problem = problem_with(record)
            if problem:
                loaded.problems.append(f"{path}:{number}: {problem}")
                continue
            run = loaded.runs.setdefault(record["run_id"], Run(record["run_id"]))
            (run.divergences if record["record"] == "divergence" else run.checks).append(record)
    return loaded
