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
    """None if ``record`` follows the schema, else a one-line reason.

    A compiled check decides (microseconds a record); jsonschema, which takes
    about a millisecond, runs only to explain a record that fails it."""
    if fast_validator()(record):
        return None
    kinds = [branch["$ref"].rsplit("/", 1)[-1] for branch in schema().get("oneOf", ()) if "$ref" in branch]
    if not isinstance(record, dict):
        names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
        return f"not a record ({names.get(type(record), 'null')}, not a JSON object)"
    if "record" not in record:
        return f"no 'record' field (the record type: {', '.join(kinds)})"
    if record["record"] not in kinds:
        return f"record: {str(record['record'])[:60]!r} is not a record type ({', '.join(kinds)})"
    error = jsonschema_error(record)
    if error is None:  # cannot happen while the two agree (tests/test_store.py checks that they do)
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"[:300]


# -- the compiled check ------------------------------------------------------------
# A small compiler for the part of JSON Schema that record.schema.json uses, so the
# check follows the schema file itself and cannot drift from it. A keyword it does
# not know makes it give up, and then jsonschema decides every record (slow, right).

_IGNORED = {"$schema", "$id", "title", "description", "$defs", "$comment", "examples", "default"}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


class _Unsupported(Exception):
    pass


def _json_equal(a, b) -> bool:
    """JSON equality: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _compile(node, root: dict, refs: dict):
    """A function instance -> bool for one schema node."""
    if node is True:
        return lambda v: True
    if node is False:
        return lambda v: False
    if not isinstance(node, dict):
        raise _Unsupported(repr(node))
    unknown = set(node) - _IGNORED - {"$ref", "type", "const", "enum", "required", "properties", "additionalProperties",
                                      "items", "minimum", "minLength", "allOf", "oneOf", "anyOf"}
    if unknown:
        raise _Unsupported(", ".join(sorted(unknown)))
    checks = []  # cheap, local checks first: a oneOf branch that does not apply fails fast
    if "type" in node:
        types = [node["type"]] if isinstance(node["type"], str) else node["type"]
        tests = [_TYPES[t] for t in types]
        if len(tests) == 1:
            checks.append(tests[0])
        else:
            checks.append(lambda v: any(t(v) for t in tests))
    if "const" in node:
        const = node["const"]
        if isinstance(const, str):
            checks.append(lambda v: v == const and isinstance(v, str))
        else:
            checks.append(lambda v: _json_equal(v, const))
    if "enum" in node:
        options = node["enum"]
        if all(isinstance(o, str) for o in options):
            strings = frozenset(options)
            checks.append(lambda v: isinstance(v, str) and v in strings)
        else:
            checks.append(lambda v: any(_json_equal(v, o) for o in options))
    if "required" in node:
        required = frozenset(node["required"])
        checks.append(lambda v: not isinstance(v, dict) or required <= v.keys())
    if "properties" in node:
        properties = [(k, _compile(s, root, refs)) for k, s in node["properties"].items()]

        def check_properties(v):
            if isinstance(v, dict):
                for key, check in properties:
                    if key in v and not check(v[key]):
                        return False
            return True

        checks.append(check_properties)
    if "additionalProperties" in node:
        extra = _compile(node["additionalProperties"], root, refs)
        named = set(node.get("properties", ()))
        checks.append(lambda v: not isinstance(v, dict) or all(extra(x) for k, x in v.items() if k not in named))
    if "items" in node:
        item = _compile(node["items"], root, refs)
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    if "minimum" in node:
        minimum = node["minimum"]
        checks.append(lambda v: not _TYPES["number"](v) or v >= minimum)
    if "minLength" in node:
        length = node["minLength"]
        checks.append(lambda v: not isinstance(v, str) or len(v) >= length)
    if "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise _Unsupported(ref)
        if ref not in refs:
            refs[ref] = None  # placeholder: recursive references resolve lazily
            target = root
            for part in ref[2:].split("/"):
                target = target[part]
            refs[ref] = _compile(target, root, refs)
        checks.append(lambda v, ref=ref: refs[ref](v))
    if "allOf" in node:
        parts = [_compile(s, root, refs) for s in node["allOf"]]
        checks.append(lambda v: all(p(v) for p in parts))
    if "anyOf" in node:
        parts = [_compile(s, root, refs) for s in node["anyOf"]]
        checks.append(lambda v: any(p(v) for p in parts))
    if "oneOf" in node:
        parts = [_compile(s, root, refs) for s in node["oneOf"]]

        def check_one_of(v):
            matched = 0
            for part in parts:
                if part(v):
                    matched += 1
                    if matched > 1:
                        return False
            return matched == 1

        checks.append(check_one_of)
    if len(checks) == 1:
        return checks[0]

    def check_all(v):
        for check in checks:
            if not check(v):
                return False
        return True

    return check_all


@cache
def fast_validator():
    """record -> bool, compiled from record.schema.json; jsonschema's verdict if the
    schema uses a keyword the compiler does not know."""
    try:
        return _compile(schema(), schema(), {})
    except (_Unsupported, KeyError, TypeError):
        return lambda record: validator().is_valid(record)


def jsonschema_error(record):
    """The first schema error, judged against the record type the record names, so
    the reason says what is wrong with it rather than that no type matched."""
    kind = record.get("record") if isinstance(record, dict) else None
    errors = []
    if isinstance(kind, str) and kind in schema()["$defs"] and any(
            branch.get("$ref") == f"#/$defs/{kind}" for branch in schema().get("oneOf", ())):
        errors = list(typed_validator(kind).iter_errors(record))
    if not errors:
        errors = list(validator().iter_errors(record))
    return next(iter(sorted(errors, key=lambda e: e.path)), None)


@cache
def typed_validator(kind: str):
    import jsonschema

    root = {k: v for k, v in schema().items() if k != "oneOf"}
    return jsonschema.Draft202012Validator({**root, "$ref": f"#/$defs/{kind}"})


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
    others: list[dict] = field(default_factory=list)  # observation and coverage records

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
            kind = record["record"]
            (run.divergences if kind == "divergence" else run.checks if kind == "checks" else run.others).append(record)
    return loaded
