"""The known-divergence registry: documented, accepted differences.

A registry is a folder of TOML files of ``[[known]]`` entries (compat's own, ``DEFAULT``:
``compat/results/known/``, one file per backend, a folder of files by family for a large one,
``shared.toml`` for behaviours of several), or one such file; a user's registries add to it
(``--compat-registry``, repeatable). Every entry of every file is loaded into one matcher. An
entry matches a divergence when every field it sets matches; pattern fields take a glob or a list
of globs:

    id        unique name, used in records and reports            (required)
    backend   backend name or id ("torch", "jax[x32]"), or a glob ("*") (required)
    versions  PEP 440 specifier on the backend version: ">=2.4"; or since = "2.4" (the first
              release it holds for) and fixed_in = "2.14" (the first it no longer does)
    numpy     PEP 440 specifier on NumPy's version, where the difference is NumPy's to make or
              lose (the reference computes with the NumPy this process imports): "<2.5"
    config    table that must be a subset of the backend config; a list of values admits
              any of them: config = { mode = ["function", "xla"] }
    cpu       CPU features the host must have ("avx512_fp16") or lack ("!avx512_fp16"), as
              Linux's /proc/cpuinfo names them: for what the instruction set decides
    family, op, inputs, expected, actual, device, reference   patterns; a glob that starts
              with "!" excludes what it matches: inputs = ["*,idx(*i-array*)", "!*tuple*"]
              (an integer array in the index, and no tuple)
    raises    the class of the error the backend raises, by name ("TypeError",
              "torch.AcceleratorError") or a glob ("*": refused, whatever a release raises): a
              behaviour is the class, a release's message is evidence (an example's)
    forms     false where an operation's operator forms (x // y, x //= y, y // x: from the op
              table) behave otherwise: by default an entry naming floor_divide covers them too
    kind      dtype | shape | value | error | device | crash | timeout, or a list (required)
    differs   what differs, in words                              (required)
    reason    why it is accepted                                  (required)
    source    public source (URL) where one exists
    broad     why the entry cannot name its family or operations (an entry without
              family or op hides every divergence of its kind it matches, so the
              next real bug too: it must say why it cannot be narrower)
    unreplayable  why the entry has no example (what it describes cannot be called again)
    examples  the minimal examples that show it: ``[[known.examples]]`` tables of
              family, call and inputs as a record writes them (``python -m compat
              known add`` copies them from a record), optionally exact = true,
              backends (ids it is replayed on; default: every one the entry applies
              to), device (replayed on that device under test, a glob) and against
              (the call whose answer the backend's own is judged against: itself:add)

An entry whose config names no execution mode describes what the backend does eagerly: it
matches divergences from NumPy and from the reference device in every mode, but never a
mode's divergence from eager (reference ``mode:eager``), which only a mode's entry explains.
The matching order is derived, not kept by hand (``Entry.order``): the entries of a device
first, then of an execution mode, then of another config, then the backend's general ones, an
entry that says why it is broad after the narrow ones of its level; two entries of one level
that both match a record overlap, which the registry's checks report
(compat.results.lint; the known spec, when a replayed example meets another entry). Every run
replays every example first (``compat/specs/known.py``): an entry whose examples no longer
diverge on a backend version is reported as fixed in that version.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from compat.core import ops
from compat.core.parse import ParseError, case_from_source
from compat.results.records import Backend

# package data, so that an installed compat has it too (pyproject's package-data)
DEFAULT = Path(__file__).resolve().with_name("known")
NONE = "none"  # as a registry path: not compat's own registry (a user's alone, or none at all)
KINDS = ("dtype", "shape", "value", "error", "device", "crash", "timeout")
PATTERNS = ("family", "op", "inputs", "expected", "actual", "device", "reference", "raises")
REQUIRED = ("id", "backend", "kind", "differs", "reason")
OPTIONAL = (
    "versions",
    "numpy",
    "since",
    "fixed_in",
    "config",
    "cpu",
    "source",
    "broad",
    "unreplayable",
    "forms",
    "examples",
) + PATTERNS
EXAMPLE_FIELDS = {"family", "call", "inputs", "exact", "backends", "device", "against"}


class RegistryError(Exception):
    """The registry file is malformed (one-line message for users)."""


def numpy_version() -> str:
    """The version of the NumPy this process imports: the reference's (its local part dropped)."""
    import numpy

    return numpy.__version__.split("+")[0]


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
    numpy: str = ""  # specifier on the reference's NumPy version
    broad: str = ""  # why it names no family or no operation
    unreplayable: str = ""  # why it has no example
    config: dict = field(default_factory=dict)
    cpu: tuple[str, ...] = ()  # features the host must have; "!name": must lack
    patterns: dict = field(default_factory=dict)  # field -> tuple of globs (op: with its operator forms)
    examples: tuple[Example, ...] = ()
    file: str = ""  # where it is written

    @property
    def level(self) -> int:
        """How narrowly it says where a behaviour holds: a device (4), an execution mode (2),
        another config (1), or the backend in general (0)."""
        config = set(self.config)
        return 4 * ("device" in self.patterns) + 2 * ("mode" in config) + bool(config - {"mode"})

    @property
    def order(self) -> tuple[int, bool]:
        """Its place in the matching order: the most specific level first, at each level the entries
        that name their operations before those that say why they are broad."""
        return -self.level, bool(self.broad)

    def specificity(self, backend: Backend) -> tuple[int, bool]:
        """How specific it is to a row of ``backend``, the most specific least: its level, then at each
        level an entry that names the row's own backend (a wrapper) before the framework's that reach it."""
        return -self.level, not self.names(backend)

    def place(self, backend: Backend) -> tuple[int, bool, bool]:
        """Its place in the matching order on a row of ``backend``: its specificity there, then the
        entries that name their operations before those that say why they are broad."""
        return (*self.specificity(backend), bool(self.broad))

    def names(self, backend: Backend) -> bool:
        return self.backend in (backend.name, backend.id) or fnmatchcase(backend.name, self.backend)

    def applies_to(self, backend: Backend, host: frozenset[str] | None = None) -> bool:
        """Does this entry concern this backend at all (ignoring what differs)? An entry of the
        framework a namespace wraps concerns the namespace, under that framework's version and
        config: the wrapper passes its behaviour through."""
        if not self.names(backend):
            return backend.wraps is not None and self.applies_to(backend.wraps, host)
        if any(
            backend.config.get(k) not in (v if isinstance(v, list) else [v]) for k, v in self.config.items()
        ):
            return False
        host = host_cpu_features() if host is None else host
        if not all(f[1:] not in host if f.startswith("!") else f in host for f in self.cpu):
            return False
        if self.numpy and Version(numpy_version()) not in SpecifierSet(self.numpy):
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
            globs_match(str(divergence.get(name) or ""), globs) for name, globs in self.patterns.items()
        )


def globs_match(value: str, globs: tuple[str, ...]) -> bool:
    """Does ``value`` match a pattern's globs: one of those that include (any value where all of them
    exclude), and none of those that exclude ("!glob")?"""
    included = [g for g in globs if not g.startswith("!")]
    if included and not any(fnmatchcase(value, g) for g in included):
        return False
    return not any(fnmatchcase(value, g[1:]) for g in globs if g.startswith("!"))


@dataclass
class Registry:
    entries: list[Entry] = field(default_factory=list)  # in matching order (``Entry.order``)
    paths: tuple[Path, ...] = ()  # the files and folders it was loaded from

    _applicable: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def path(self) -> Path | None:
        return self.paths[0] if self.paths else None

    def match(self, backend: Backend, divergence: dict) -> Entry | None:
        """``divergence`` holds family, op, kind, inputs, expected, actual, device, reference, raises."""
        return next((e for e in self.applicable(backend) if e.matches(backend, divergence)), None)

    def matching(self, backend: Backend, divergence: dict) -> list[Entry]:
        """Every entry that matches, in matching order: the first is ``match``'s; another of its level
        overlaps it (two entries for one behaviour, or one that hides another's)."""
        return [e for e in self.applicable(backend) if e.matches(backend, divergence)]

    def applicable(self, backend: Backend) -> list[Entry]:
        """The entries whose backend pattern names ``backend`` or the framework it wraps, in order:
        kept per backend, as a row's thousands of divergences each asked every entry again
        (``matches`` checks the rest)."""
        key = (backend.name, backend.id, len(self.entries))
        if key not in self._applicable:
            reaching = [
                e for e in self.entries if e.names(backend) or (backend.wraps and e.names(backend.wraps))
            ]
            self._applicable[key] = sorted(reaching, key=lambda e: e.place(backend))
        return self._applicable[key]

    def by_id(self) -> dict[str, Entry]:
        return {e.id: e for e in self.entries}

    def examples_on(
        self, backend: Backend, device: str | None, family: str
    ) -> Iterator[tuple[Entry, Example]]:
        """Its examples of ``family`` that replay on a row of ``backend`` (its version and config) on
        ``device``, with their entries: decided without the framework, so the known spec's params of a
        row and family without one are not collected (compat.harness.xp.not_runnable)."""
        for entry in self.entries:
            if entry.applies_to(backend):
                for example in entry.examples:
                    if example.family == family and example.replays_on(backend, device):
                        yield entry, example


def files_of(path: Path) -> list[Path]:
    """A registry file, or a folder's TOML files (its subfolders' too), in name order."""
    return sorted(path.rglob("*.toml")) if path.is_dir() else [path]


def load(*paths: Path | str | None) -> Registry:
    """One registry of the entries of every file and folder given (None: nothing), in matching
    order; an id twice, in one file or in two, is an error."""
    wanted = [Path(p) for p in paths if p is not None]
    entries: list[Entry] = []
    seen: dict[str, Path] = {}
    for path in wanted:
        if not path.exists():
            raise RegistryError(f"cannot read registry {path}: No such file or directory")
        for file in files_of(path):
            for entry in load_file(file):
                if entry.id in seen:
                    where = "" if seen[entry.id] == file else f" (also in {seen[entry.id]})"
                    raise RegistryError(f"registry {file}: duplicate id {entry.id!r}{where}")
                seen[entry.id] = file
                entries.append(entry)
    return Registry(sorted(entries, key=lambda e: e.order), tuple(wanted))


def chosen(paths: list[str] | None) -> list[Path]:
    """The registries a run uses: compat's own and each path given (a file or a folder), or, where
    one of them is ``none``, only the others."""
    given = list(paths or [])
    own = [] if NONE in given or not DEFAULT.exists() else [DEFAULT]
    return own + [Path(p) for p in given if p != NONE]


def load_file(path: Path) -> list[Entry]:
    """The entries of one TOML file, in its order."""
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
    entries = []
    for number, raw in enumerate(raw_entries, 1):
        entry = parse_entry(raw, f"registry {path}: entry {number}")
        entries.append(replace(entry, file=str(path)))
    seen = set()
    for number, entry in enumerate(entries, 1):
        if entry.id in seen:
            raise RegistryError(f"registry {path}: entry {number}: duplicate id {entry.id!r}")
        seen.add(entry.id)
    return entries


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
    for key in (
        "id",
        "backend",
        "differs",
        "reason",
        "versions",
        "numpy",
        "since",
        "fixed_in",
        "source",
        "broad",
    ):
        if key in raw and not isinstance(raw[key], str):
            raise RegistryError(f"{where}: {key!r} must be a string")
    for key, why in (
        ("broad", "why the entry cannot name its family or operations"),
        ("unreplayable", "why the entry has no example"),
    ):
        if key in raw and (not isinstance(raw[key], str) or not raw[key].strip()):
            raise RegistryError(f"{where}: {key!r} must say {why}")
    if "forms" in raw and not isinstance(raw["forms"], bool):
        raise RegistryError(f"{where}: 'forms' must be true or false")
    versions = versions_of(raw, where)
    if raw.get("numpy"):
        try:
            SpecifierSet(raw["numpy"])
        except InvalidSpecifier:
            raise RegistryError(
                f"{where}: numpy {raw['numpy']!r} is not a version specifier like '<2.5'"
            ) from None
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
            if not globs or not all(isinstance(g, str) and g not in ("", "!") for g in globs):
                raise RegistryError(f"{where}: {name!r} must be a glob or a list of globs")
            patterns[name] = globs
    if "op" in patterns and raw.get("forms", True):  # and the operator forms of the functions it names
        patterns["op"] += tuple(
            ("!" if glob.startswith("!") else "") + f
            for glob in patterns["op"]
            if glob.removeprefix("!") in ops.OPS
            for f in ops.operator_forms(glob.removeprefix("!"))
        )
    return Entry(
        id=raw["id"],
        backend=raw["backend"],
        kinds=kinds,
        differs=raw["differs"],
        reason=raw["reason"],
        source=raw.get("source", ""),
        versions=versions,
        numpy=raw.get("numpy", ""),
        broad=raw.get("broad", ""),
        unreplayable=raw.get("unreplayable", ""),
        config=raw.get("config", {}),
        cpu=tuple(cpu),
        patterns=patterns,
        examples=tuple(
            parse_example(e, f"{where}: example {n}") for n, e in enumerate(raw.get("examples", []), 1)
        ),
    )


def versions_of(raw: dict, where: str) -> str:
    """The entry's version specifier: ``versions``, or ``since`` and ``fixed_in`` as one."""
    bounds = [f">={raw['since']}"] if raw.get("since") else []
    bounds += [f"<{raw['fixed_in']}"] if raw.get("fixed_in") else []
    if bounds and raw.get("versions"):
        raise RegistryError(f"{where}: 'versions' or 'since' and 'fixed_in', not both")
    versions = raw.get("versions") or ",".join(bounds)
    if versions:
        try:
            SpecifierSet(versions)
        except InvalidSpecifier:
            raise RegistryError(
                f"{where}: versions {versions!r} is not a version specifier like '>=2.4'"
            ) from None
    return versions


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
