"""The known-divergence registry: documented, accepted differences.

A registry is a TOML file of ``[[known]]`` entries (see compat's own,
``compat/results/known-divergences.toml``, the default ``DEFAULT``). An entry matches a divergence when every
field it sets matches; pattern fields take a glob or a list of globs:

    id        unique name, used in records and reports            (required)
    backend   backend name or id ("torch", "jax[x32]"), or a glob ("*") (required)
    versions  PEP 440 specifier on the backend version: ">=2.4"
    config    table that must be a subset of the backend config; a list of values admits
              any of them: config = { mode = ["function", "xla"] }
    cpu       CPU features the host must have ("avx512_fp16") or lack ("!avx512_fp16"), as
              Linux's /proc/cpuinfo names them: for what the instruction set decides
    family, op, inputs, expected, actual, device, reference   patterns
    kind      dtype | shape | value | error | device | crash | timeout, or a list (required)
    differs   what differs, in words                              (required)
    reason    why it is accepted                                  (required)
    source    public source (URL) where one exists
    broad     why the entry cannot name its family or operations (an entry without
              family or op hides every divergence of its kind it matches, so the
              next real bug too: it must say why it cannot be narrower)
    examples  the minimal examples that show it: ``[[known.examples]]`` tables of
              family, call and inputs as a record writes them (``python -m compat
              known add`` copies them from a record), optionally exact = true,
              backends (ids it is replayed on; default: every one the entry applies
              to), device (replayed on that device under test, a glob) and against
              (the call whose answer the backend's own is judged against: itself:add)

An entry whose config names no execution mode describes what the backend does eagerly: it
matches divergences from NumPy and from the reference device in every mode, but never a
mode's divergence from eager (reference ``mode:eager``), which only a mode's entry explains.
The first matching entry wins, so put narrow entries before broad ones. Every run
replays every example first (``compat/specs/known.py``): an entry whose examples no
longer diverge on a backend version is reported as fixed in that version.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from compat.core.parse import ParseError, case_from_source
from compat.results.records import Backend

# package data, so that an installed compat has it too (pyproject's package-data)
DEFAULT = Path(__file__).resolve().with_name("known-divergences.toml")
KINDS = ("dtype", "shape", "value", "error", "device", "crash", "timeout")
PATTERNS = ("family", "op", "inputs", "expected", "actual", "device", "reference")
REQUIRED = ("id", "backend", "kind", "differs", "reason")
OPTIONAL = ("versions", "config", "cpu", "source", "broad", "examples") + PATTERNS
EXAMPLE_FIELDS = {"family", "call", "inputs", "exact", "backends", "device", "against"}


class RegistryError(Exception):
    """The registry file is malformed (one-line message for users)."""


@cache
def host_cpu_features() -> frozenset[str]:
    """This machine's CPU feature flags as Linux names them (x86 'flags', Arm 'Features');
    none where /proc/cpuinfo does not say."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return frozenset()
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


@dataclass(frozen=True)
class Example:
    """A minimal example of an entry's divergence, replayed every run."""

    family: str
    call: str
    inputs: dict
    exact: bool = False
    backends: tuple[str, ...] = ()  # backend ids; empty: every backend the entry applies to
    device: str = ""  # a glob of the device under test; empty: the backend's default device
    against: str = ""  # the call whose answer the backend's own is judged against (itself:<operation>)

    def case(self):
        return case_from_source(self.call, self.inputs, self.exact)

    def question(self):
        """The case of ``against``, or None: the example is judged against NumPy."""
        return case_from_source(self.against, self.inputs) if self.against else None

    def replays_on(self, backend: Backend, device: str | None) -> bool:
        """Named in ``backends`` (the framework a namespace wraps names the namespace too), on the
        device it names (none: the backend's default device)."""
        wrapped = backend.wraps.id if backend.wraps else None
        if self.backends and backend.id not in self.backends and wrapped not in self.backends:
            return False
        return fnmatchcase(device, self.device) if device and self.device else not device and not self.device


@dataclass(frozen=True)
class Entry:
    id: str
    backend: str
    kinds: tuple[str, ...]
    differs: str
    reason: str
    source: str = ""
    versions: str = ""
    broad: str = ""  # why it names no family or no operation
    config: dict = field(default_factory=dict)
    cpu: tuple[str, ...] = ()  # features the host must have; "!name": must lack
    patterns: dict = field(default_factory=dict)  # field -> tuple of globs
    examples: tuple[Example, ...] = ()

    def names(self, backend: Backend) -> bool:
        return self.backend in (backend.name, backend.id) or fnmatchcase(backend.name, self.backend)

    def applies_to(self, backend: Backend) -> bool:
        """Does this entry concern this backend at all (ignoring what differs)? An entry of the
        framework a namespace wraps concerns the namespace, under that framework's version and
        config: the wrapper passes its behaviour through."""
        if not self.names(backend):
            return backend.wraps is not None and self.applies_to(backend.wraps)
        if any(
            backend.config.get(k) not in (v if isinstance(v, list) else [v]) for k, v in self.config.items()
        ):
            return False
        host = host_cpu_features()
        if not all(f[1:] not in host if f.startswith("!") else f in host for f in self.cpu):
            return False
        if self.versions:
            try:
                return Version(backend.version.split("+")[0]) in SpecifierSet(self.versions)
            except InvalidVersion:
                return False
        return True

    def matches(self, backend: Backend, divergence: dict) -> bool:
        if divergence["kind"] not in self.kinds:
            return False
        if str(divergence.get("reference", "")).startswith("mode:") and "mode" not in self.config:
            return False  # what a backend does eagerly cannot explain how a mode differs from eager
        if not self.applies_to(backend):
            return False
        return all(
            any(fnmatchcase(str(divergence.get(name) or ""), glob) for glob in globs)
            for name, globs in self.patterns.items()
        )


@dataclass
class Registry:
    entries: list[Entry] = field(default_factory=list)
    path: Path | None = None

    _applicable: dict = field(default_factory=dict, repr=False, compare=False)

    def match(self, backend: Backend, divergence: dict) -> Entry | None:
        """``divergence`` holds family, op, kind, inputs, expected, actual, device, reference."""
        return next((e for e in self.applicable(backend) if e.matches(backend, divergence)), None)

    def applicable(self, backend: Backend) -> list[Entry]:
        """The entries whose backend pattern names ``backend`` or the framework it wraps, in order:
        kept per backend, as a row's thousands of divergences each asked every entry again
        (``matches`` checks the rest)."""
        key = (backend.name, backend.id, len(self.entries))
        if key not in self._applicable:
            self._applicable[key] = [
                e for e in self.entries if e.names(backend) or (backend.wraps and e.names(backend.wraps))
            ]
        return self._applicable[key]

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}


def load(path: Path | str | None) -> Registry:
    if path is None:
        return Registry()
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RegistryError(f"cannot read registry {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RegistryError(f"registry {path} is not valid TOML: {error}") from None
    unknown_tables = set(data) - {"known"}
    if unknown_tables:
        raise RegistryError(
            f"registry {path}: unexpected top-level key(s) {sorted(unknown_tables)} (entries go in [[known]])"
        )
    raw_entries = data.get("known", [])
    if not isinstance(raw_entries, list):
        raise RegistryError(f"registry {path}: 'known' must be an array of tables ([[known]])")
    entries, seen = [], set()
    for number, raw in enumerate(raw_entries, 1):
        entry = parse_entry(raw, f"registry {path}: entry {number}")
        if entry.id in seen:
            raise RegistryError(f"registry {path}: entry {number}: duplicate id {entry.id!r}")
        seen.add(entry.id)
        entries.append(entry)
    return Registry(entries, path)


def parse_entry(raw: Any, where: str) -> Entry:
    if not isinstance(raw, dict):
        raise RegistryError(f"{where}: must be a table")
    if "id" in raw:
        where += f" ({raw['id']!r})"
    missing = [k for k in REQUIRED if not raw.get(k) or (isinstance(raw[k], str) and not raw[k].strip())]
    if missing:
        raise RegistryError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    unknown = set(raw) - set(REQUIRED) - set(OPTIONAL)
    if unknown:
        raise RegistryError(f"{where}: unknown field(s) {sorted(unknown)}")
    for key in ("id", "backend", "differs", "reason", "versions", "source", "broad"):
        if key in raw and not isinstance(raw[key], str):
            raise RegistryError(f"{where}: {key!r} must be a string")
    if "broad" in raw and not raw["broad"].strip():
        raise RegistryError(f"{where}: 'broad' must say why the entry cannot name its family or operations")
    kinds = (
        (raw["kind"],)
        if isinstance(raw["kind"], str)
        else tuple(raw["kind"])
        if isinstance(raw["kind"], list)
        else ()
    )
    bad = [k for k in kinds if k not in KINDS]
    if not kinds or bad:
        raise RegistryError(
            f"{where}: kind {raw['kind']!r} is not one of {', '.join(KINDS)} (or a list of them)"
        )
    if raw.get("versions"):
        try:
            SpecifierSet(raw["versions"])
        except InvalidSpecifier:
            raise RegistryError(
                f"{where}: versions {raw['versions']!r} is not a version specifier like '>=2.4'"
            ) from None
    if not isinstance(raw.get("config", {}), dict):
        raise RegistryError(f"{where}: 'config' must be a table")
    cpu = raw.get("cpu", [])
    cpu = [cpu] if isinstance(cpu, str) else cpu
    if not isinstance(cpu, list) or not all(isinstance(f, str) and re.fullmatch(r"!?\w+", f) for f in cpu):
        raise RegistryError(
            f"{where}: 'cpu' must be a CPU feature name or a list of them, each optionally after '!'"
        )
    patterns = {}
    for name in PATTERNS:
        if name in raw:
            value = raw[name]
            globs = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, list) else None
            if not globs or not all(isinstance(g, str) for g in globs):
                raise RegistryError(f"{where}: {name!r} must be a glob or a list of globs")
            patterns[name] = globs
    return Entry(
        id=raw["id"],
        backend=raw["backend"],
        kinds=kinds,
        differs=raw["differs"],
        reason=raw["reason"],
        source=raw.get("source", ""),
        versions=raw.get("versions", ""),
        broad=raw.get("broad", ""),
        config=raw.get("config", {}),
        cpu=tuple(cpu),
        patterns=patterns,
        examples=tuple(
            parse_example(e, f"{where}: example {n}") for n, e in enumerate(raw.get("examples", []), 1)
        ),
    )


def parse_example(raw: Any, where: str) -> Example:
    if not isinstance(raw, dict):
        raise RegistryError(f"{where}: must be a table ([[known.examples]])")
    missing = [k for k in ("family", "call", "inputs") if k not in raw]
    if missing:
        raise RegistryError(f"{where}: missing {', '.join(repr(k) for k in missing)}")
    unknown = set(raw) - EXAMPLE_FIELDS
    if unknown:
        raise RegistryError(f"{where}: unknown field(s) {sorted(unknown)}")
    if not isinstance(raw["inputs"], dict) or not all(isinstance(v, str) for v in raw["inputs"].values()):
        raise RegistryError(f"{where}: 'inputs' must be a table of variable = \"NumPy source\"")
    backends = raw.get("backends", [])
    if not isinstance(backends, list) or not all(isinstance(b, str) for b in backends):
        raise RegistryError(f"{where}: 'backends' must be a list of backend ids")
    example = Example(
        str(raw["family"]),
        str(raw["call"]),
        raw["inputs"],
        bool(raw.get("exact", False)),
        tuple(backends),
        str(raw.get("device", "")),
        str(raw.get("against", "")),
    )
    try:
        example.case()
        example.question()
    except ParseError as error:
        raise RegistryError(f"{where}: {error}") from None
    return example
