"""Records: what a run leaves, as typed values and as JSON Lines files.

A results directory holds one folder per run::

    DIR/<run_id>/run.json              the run's environment (written by the controller)
    DIR/<run_id>/records-<worker>.jsonl

Four record types share a file (``record.schema.json`` describes their JSON):

- ``Divergence``: one divergence with its minimal example and reproducer;
- ``Checks``: how many cases a spec checked per operation (and which operations
  the backend declares unsupported), written when the spec finishes, so that
  reports count cases and find registry entries that no longer reproduce;
- ``Observation``: one cell of a survey table;
- ``Coverage``: plug-in kernel launches per operation;
- ``Replay``: one example of a registry entry replayed at the start of a run, and
  whether it still shows the entry's divergence on this backend version.

This module owns the schema version, the identity of a divergence (``Key``) and
the JSON round trip; every other module reads and writes records through it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from compat.core import errortypes
from compat.core.row import EAGER, Row

# 6 added status "departs" and checks' forms and facts; 5 added status "contract" and contract, checks'
# unsupported dtypes and unsupported_cases; 4 added status "standard" and follows; 3 added Replay; 2 added
# Checks.unsupported and the tables a spec feeds
SCHEMA_VERSION = 6
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
SCHEMA_PATH = Path(__file__).with_name("record.schema.json")


class ResultsError(Exception):
    """A results directory cannot be used (one-line message for users)."""


@dataclass(frozen=True)
class Backend:
    """A backend as a record names it: adapter name, id with config, version, config; for a
    namespace that wraps a framework (array_api_compat.torch), that framework as its own row
    names it (``wraps``), whose registry entries the wrapper's divergences also match."""

    name: str
    id: str
    version: str
    config: dict
    adapter: str = ""
    wraps: Backend | None = None

    @property
    def row(self) -> str:
        """The id, with the execution mode besides eager that the config names: 'jax[x64]~jit'."""
        return str(self.target())

    def target(self, device: str | None = None) -> Row:
        """The backend in the execution mode its config names, on ``device``."""
        return Row.of(self.id, self.config.get("mode") or EAGER, device)

    def to_json(self) -> dict:
        data = {k: v for k, v in asdict(self).items() if k not in ("adapter", "wraps")}
        if self.adapter:
            data["adapter"] = self.adapter
        if self.wraps is not None:
            data["wraps"] = self.wraps.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict) -> Backend:
        wraps = cls.from_json(data["wraps"]) if data.get("wraps") else None
        return cls(data["name"], data["id"], data["version"], data["config"], data.get("adapter", ""), wraps)


class Key(NamedTuple):
    """The identity of a distinct divergence: records with the same key are one
    divergence seen in several examples, specs or workers (their counts add up)."""

    backend_id: str
    device: str | None
    reference: str
    family: str
    op: str
    kind: str
    inputs: str
    expected: str
    actual: str

    def sort_key(self) -> tuple:
        return tuple("" if v is None else v for v in self)


@dataclass(kw_only=True)
class Record:
    """Fields every record has."""

    TYPE: ClassVar[str] = ""

    run_id: str
    worker: str
    family: str
    spec: str  # pytest node id
    backend: Backend
    device: str | None  # device under test; None is the backend's default device
    reference: str  # numpy, numpy-fd, a gradient reference framework's id, or device:<name>
    schema: int = SCHEMA_VERSION

    @property
    def where(self) -> str:
        """'torch', 'torch~compile' in an execution mode besides eager, 'torch@apu:0' for a device under test."""
        return str(self.backend.target(self.device))

    @property
    def spec_name(self) -> str:
        """The spec's function name, without module and parameters."""
        return self.spec.split("::")[-1].split("[")[0]

    def to_json(self) -> dict:
        data = {"record": self.TYPE}
        for f in fields(self):
            value = getattr(self, f.name)
            data[f.name] = value.to_json() if hasattr(value, "to_json") else value
        return data


@dataclass(kw_only=True)
class Divergence(Record):
    TYPE: ClassVar[str] = "divergence"

    op: str
    kind: str  # dtype | shape | value | error | device | crash | timeout
    signature: dict  # inputs, expected, actual: shrink-stable
    expected: dict  # the reference's outcome as JSON
    actual: dict  # the backend's outcome as JSON
    detail: str
    example: dict  # call, inputs (variable -> NumPy source)
    reproducer: str
    count: int  # examples of this spec that showed it
    known: str | None  # the registry entry it matched
    # new | known | standard (differs from NumPy, holds the result the standard states: ``follows``) |
    # contract (a device's contract allows it: ``contract``)
    status: str
    first_seen_after: int = 0  # cases checked when it first showed
    first_example: int | None = None  # examples run when it first showed, that one included (tables: cases)
    tables: list[str] = field(default_factory=list)  # report tables the spec feeds (e.g. the promotion grid)
    follows: str | None = None  # the standard's special-case clause whose result the backend gives
    contract: str | None = None  # the clause of the device's contract that allows it (status contract)

    @property
    def key(self) -> Key:
        s = self.signature
        return Key(
            self.backend.row,
            self.device,
            self.reference,
            self.family,
            self.op,
            self.kind,
            s["inputs"],
            s["expected"],
            s["actual"],
        )

    @property
    def fields(self) -> dict:
        """What the registry matches it on (compat.harness.ledger.Ledger.divergence_fields)."""
        error = (self.actual or {}).get("error") or {}
        return {
            "family": self.family,
            "op": self.op,
            "kind": self.kind,
            **self.signature,
            "device": self.device or "",
            "reference": self.reference,
            "raises": errortypes.class_name(error["type"]) if error.get("type") else "",
        }

    @property
    def against_device(self) -> bool:
        """A divergence of a device from its reference device, or of an execution mode from
        eager: from the same backend, not from NumPy."""
        return self.reference.startswith(("device:", "mode:"))


@dataclass(kw_only=True)
class Checks(Record):
    TYPE: ClassVar[str] = "checks"

    cases: dict[str, int]  # operation -> cases checked
    unsupported: dict[str, str] = field(default_factory=dict)  # operation, or 'dtype <name>' -> the reason
    unsupported_cases: dict[str, int] = field(default_factory=dict)  # the same -> cases not checked for it
    tables: list[str] = field(default_factory=list)
    input_class: dict | None = None  # name, value, all: the input class this param of the spec covers
    # operation -> the standard's parameter -> the kind it was given as -> cases (compat.core.signatures)
    forms: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    # operation -> value fact (Op.values) -> [cases whose operands meet it, cases checked]
    facts: dict[str, dict[str, list[int]]] = field(default_factory=dict)


@dataclass(kw_only=True)
class Observation(Record):
    TYPE: ClassVar[str] = "observation"

    table: str
    row: str
    value: str


@dataclass(kw_only=True)
class Coverage(Record):
    TYPE: ClassVar[str] = "coverage"

    ops: dict[str, dict[str, int]]  # kernel -> {"device": launches, "fallback": launches}


@dataclass(kw_only=True)
class Replay(Record):
    TYPE: ClassVar[str] = "replay"

    op: str
    known: str  # the registry entry
    # reproduced | fixed (on this backend version) | shadowed (another entry of its level, or a broader
    # one, matched it first) | overridden (an entry of this row's device, mode or config matched it first)
    # | unjudged (the row counted the case as unsupported, not checked: neither reproduced nor fixed)
    status: str
    example: dict  # call, inputs, as in Divergence.example
    by: list[str] = field(default_factory=list)  # shadowed, overridden: the entries that matched it first


TYPES = {cls.TYPE: cls for cls in (Divergence, Checks, Observation, Coverage, Replay)}


def from_json(data: dict) -> Record:
    """The typed record of a JSON object that follows the schema (see ``problem_with``)."""
    cls = TYPES[data["record"]]
    names = {f.name for f in fields(cls)}
    values = {k: v for k, v in data.items() if k in names}
    values["backend"] = Backend.from_json(data["backend"])
    return cls(**values)


# -- validation ----------------------------------------------------------------------


@cache
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@cache
def validator(kind: str | None = None):
    """jsonschema's validator of the whole schema, or of one record type (four times
    faster: the record names its type, so the other branches of oneOf need no try);
    None where jsonschema is not installed."""
    try:
        import jsonschema
    except ImportError:
        return None
    if kind is None:
        return jsonschema.Draft202012Validator(schema())
    root = {k: v for k, v in schema().items() if k != "oneOf"}
    return jsonschema.Draft202012Validator({**root, "$ref": f"#/$defs/{kind}"})


UNCHECKED = (
    "compat: records are read without checking them against record.schema.json (fastjsonschema is not "
    "installed: pip install fastjsonschema jsonschema, as compat's own install does)"
)


SAID: list[str] = []  # what this process said once
SAYING = threading.Lock()  # records are loaded from several threads (compat selftest)


def unchecked() -> None:
    """Says once per process that records are not checked against the schema."""
    with SAYING:
        if UNCHECKED not in SAID:
            SAID.append(UNCHECKED)
            print(UNCHECKED, file=sys.stderr)


@cache
def conforms(kind: str) -> Callable[[Any], bool]:
    """Whether a record of type ``kind`` follows the schema: fastjsonschema's check, compiled
    once to Python (jsonschema walks the schema anew for every record, most of the time of
    merging records into a store). Where fastjsonschema is not installed (a GPU machine's own
    Python, running compat from a source tree), every record conforms, and that is said once."""
    try:
        import fastjsonschema
    except ImportError:
        unchecked()
        return lambda data: True

    root = {k: v for k, v in schema().items() if k != "oneOf"}  # as validator(kind) reads it
    check = fastjsonschema.compile({**root, "$ref": f"#/$defs/{kind}"}, use_default=False)

    def conforming(data: Any) -> bool:
        try:
            check(data)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return conforming


def problem_with(data: Any) -> str | None:
    """None if ``data`` is a record that follows the schema, else a one-line reason
    (jsonschema's, for the few records the compiled check rejects)."""
    if not isinstance(data, dict):
        names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
        return f"not a record ({names.get(type(data), 'null')}, not a JSON object)"
    kind = data.get("record")
    if kind is None:
        return f"no 'record' field (the record type: {', '.join(TYPES)})"
    if not isinstance(kind, str) or kind not in TYPES:
        return f"record: {str(kind)[:60]!r} is not a record type ({', '.join(TYPES)})"
    if conforms(kind)(data):
        return None
    check = validator(kind)
    if check is None:
        return f"a {kind} record that does not follow record.schema.json (jsonschema would say where)"
    error = next(iter(sorted(check.iter_errors(data), key=lambda e: list(e.path))), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"[:300]


def parse(line: str, validate: bool = True) -> tuple[Record | None, str | None]:
    """(record, None) for a line that holds a record, else (None, the reason)."""
    try:
        data = json.loads(line)
    except ValueError as error:
        return None, f"not JSON ({error})"
    problem = problem_with(data) if validate else None
    if problem:
        return None, problem
    try:
        return from_json(data), None
    except (KeyError, TypeError, AttributeError) as error:  # only without validation
        return None, problem_with(data) or f"not a record ({error})"


# -- files ---------------------------------------------------------------------------


class RecordWriter:
    """Appends records to this worker's file; every record is flushed at once
    so a worker that crashes later leaves everything it wrote."""

    def __init__(self, run_directory: Path, worker: str) -> None:
        run_directory.mkdir(parents=True, exist_ok=True)
        self.path = run_directory / f"records-{worker}.jsonl"
        self.file = open(self.path, "a", encoding="utf-8")

    def write(self, record: Record) -> None:
        self.file.write(json.dumps(record.to_json(), sort_keys=True, allow_nan=False) + "\n")
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
    divergences: list[Divergence] = field(default_factory=list)
    checks: list[Checks] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    coverage: list[Coverage] = field(default_factory=list)
    replays: list[Replay] = field(default_factory=list)
    written: list[Record] = field(default_factory=list)  # every record, in its worker's order of writing

    @property
    def started(self) -> str:
        return self.meta.get("started", "")

    def add(self, record: Record) -> None:
        self.written.append(record)
        lists: dict[type, list] = {
            Divergence: self.divergences,
            Checks: self.checks,
            Observation: self.observations,
            Coverage: self.coverage,
            Replay: self.replays,
        }
        lists[type(record)].append(record)


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


def load(directory: Path, validate: bool = True, run: str | None = None) -> Loaded:
    """Read every run under ``directory`` (or ``directory`` itself if it is one run).

    Lines that are not records (not JSON, a line cut short by a worker that died while
    writing it, a record against the schema) are reported in ``problems`` with their
    file and line and skipped; the rest is still read. ``validate=False`` trusts the
    files (a run's own workers wrote them) and checks only that each line is JSON.
    With ``run`` (a run id, or "latest"), only the records in that run's folders are read:
    a results directory gathers every run a machine made, and reading them all made
    ``report`` take seconds per run kept (an unknown id reads nothing; records without any
    run.json beside them are all read, as without ``run``).
    """
    directory = Path(directory)
    if not directory.is_dir():
        why = "not a directory" if directory.exists() else "no such directory"
        raise ResultsError(f"cannot read results directory {directory}: {why}")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise ResultsError(f"cannot read results directory {directory}: permission denied")
    loaded = Loaded()
    folders: dict[str, set[Path]] = {}  # run id -> the folders of its run.json
    for meta_path in sorted(directory.rglob("run.json")):
        try:
            meta = json.loads(meta_path.read_text())
            loaded.runs.setdefault(meta["run_id"], Run(meta["run_id"])).meta = meta
            folders.setdefault(meta["run_id"], set()).add(meta_path.parent)
        except (OSError, ValueError, KeyError, TypeError) as error:
            loaded.problems.append(f"{meta_path}: not a compat run description ({error})")
    wanted = None
    if run is not None and loaded.runs:
        latest = loaded.latest()
        chosen = latest.run_id if run == "latest" and latest is not None else run
        wanted = folders.get(chosen, set())
        loaded.runs = {chosen: loaded.runs[chosen]} if chosen in loaded.runs else {}
    for path in sorted(directory.rglob("records-*.jsonl")):
        if wanted is not None and path.parent not in wanted:
            continue
        try:
            lines = list(iter_lines(path))
        except OSError as error:
            loaded.problems.append(f"{path}: cannot read ({error.strerror})")
            continue
        for number, line in lines:
            record, problem = parse(line, validate)
            if record is None:
                loaded.problems.append(f"{path}:{number}: {problem}")
                continue
            loaded.runs.setdefault(record.run_id, Run(record.run_id)).add(record)
    return loaded
