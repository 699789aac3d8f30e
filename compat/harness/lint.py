"""The registry's own checks (``python -m compat known lint``): what a registry must hold to be
kept by people, compat's own and a user's alike.

- every file reads, no file is longer than ``FILE_LINES`` (a longer one is split by topic);
- every entry has an example, or says why it cannot (``unreplayable``);
- every example is one of its entry's: its family, operation (and a program's), input dtypes,
  device and backends are those the entry names;
- no example is shadowed: the first entry in the matching order that matches what the example
  shows is its own, and no other entry of its level matches it too (two entries that cover the
  same records: one hides the other's, or both say one thing). What an example shows is known
  here by its entry's patterns (kind, the outcomes' classes, the reference), which stand in for
  the record a replay makes; a run checks the same exactly, by replaying (the known spec: a
  shadowed example fails it);
- with records (``--records DIR``): no record of the run is matched by two entries of one level, and
  none that a device's entry claims is matched by an entry of every device too (the device's entry
  says the device differs from its reference device where the behaviour is the framework's: it
  is broader than its evidence, and classifies the record wrongly).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from compat import adapters
from compat.adapters import AdapterError, namespace
from compat.core.parse import ParseError
from compat.results import records
from compat.results.records import Backend
from compat.results.registry import (
    Entry,
    Example,
    Registry,
    RegistryError,
    files_of,
    globs_match,
    numpy_version,
)

FILE_LINES = 1500


@dataclass(frozen=True)
class Problem:
    where: str  # the file, and the entry
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def lint(registry: Registry, results: Path | None = None) -> list[Problem]:
    """Every problem of ``registry`` (loaded already: a file that does not read stops there)."""
    found = list(long_files(registry.paths))
    for entry in registry.entries:
        found += entry_problems(registry, entry)
    if results is not None:
        found += record_overlaps(registry, results)
    return found


def long_files(paths: Iterable[Path]) -> Iterable[Problem]:
    for path in paths:
        for file in files_of(Path(path)):
            lines = file.read_text(encoding="utf-8").count("\n")
            if lines > FILE_LINES:
                yield Problem(str(file), f"{lines} lines, more than {FILE_LINES}: split it by topic")


def entry_problems(registry: Registry, entry: Entry) -> list[Problem]:
    where = f"{entry.file}: {entry.id}"
    if not entry.examples and not entry.unreplayable:
        return [Problem(where, "no example, and no 'unreplayable' to say why it cannot have one")]
    found = []
    for number, example in enumerate(entry.examples, 1):
        at = f"{where}: example {number} ({example.call[:60]})"
        try:
            fields = shown(entry, example)
        except ParseError as error:
            found.append(Problem(at, str(error)))
            continue
        outside = [
            name for name in ("family", "op", "inputs", "device") if not holds(entry, name, fields[name])
        ]
        if outside:
            found.append(
                Problem(at, f"not an example of its entry: its {', '.join(outside)} the entry does not name")
            )
            continue
        for backend in backends_of(entry, example):
            if not entry.applies_to(backend):
                if entry.cpu and entry.applies_to(backend, host=frozenset(entry.cpu)):
                    continue  # an entry of CPU features this host has not: checked where it has them
                if entry.numpy and Version(numpy_version()) not in SpecifierSet(entry.numpy):
                    continue  # an entry of NumPy releases this one is not: checked where NumPy is one
                found.append(Problem(at, f"replayed on {backend.id}, which the entry does not apply to"))
                continue
            matching = registry.matching(backend, fields)
            first = matching[0] if matching else None
            if first is not entry:
                by = first.id if first else "no entry"
                found.append(Problem(at, f"shadowed on {backend.id}: {by} matches it first"))
            elif others := [e.id for e in matching[1:] if e.place(backend) == entry.place(backend)]:
                found.append(
                    Problem(at, f"also matched on {backend.id} by {', '.join(others)}: narrow one of them")
                )
    return found


def shown(entry: Entry, example: Example) -> dict:
    """The fields a record of the example would have: its case's, the entry's stand-ins for the rest."""
    case = example.case()
    question = example.question()
    kind = entry.kinds[0]
    fields = {
        "family": example.family,
        "op": case.op,
        "inputs": case.input_tags(),
        "device": example.device.replace("*", "0") if example.device else "",
        "kind": kind,
        "reference": f"itself:{question.op}"
        if question is not None
        else standing_in(entry, "reference", "numpy"),
    }
    for name in ("expected", "actual", "raises"):
        fields[name] = standing_in(entry, name, "")
    return fields


def standing_in(entry: Entry, name: str, default: str) -> str:
    """A value the entry's pattern ``name`` matches (its first glob that includes, made concrete), or
    ``default`` (where its globs only exclude, and do not exclude it)."""
    globs = entry.patterns.get(name)
    if not globs:
        return default
    included = [g for g in globs if not g.startswith("!")]
    if not included:
        return default if globs_match(default, globs) else ""
    concrete = re.sub(r"\[!?([^\]])[^\]]*\]", r"\1", included[0]).replace("*", "").replace("?", "x")
    return concrete if globs_match(concrete, globs) else included[0]


def holds(entry: Entry, name: str, value: str) -> bool:
    globs = entry.patterns.get(name)
    return not globs or globs_match(value, globs)


def backends_of(entry: Entry, example: Example) -> list[Backend]:
    """The rows an example is replayed on, as records name them: its ``backends``, else the entry's
    own backend (a name), in the execution mode the entry names, in a version it holds for."""
    ids = list(example.backends) or [entry.backend]
    mode = entry.config.get("mode")
    mode = mode[0] if isinstance(mode, list) else mode
    return [backend_named(i, entry.versions, mode) for i in ids if "*" not in i]


def backend_named(backend_id: str, versions: str, mode: str | None = None) -> Backend:
    """A row by its id, its config from its adapter's CONFIGS where compat knows the adapter (and the
    execution ``mode``, as a row's records name it), in a version that ``versions`` admits."""
    name, label = adapters.parse(backend_id) if "[" in backend_id else (backend_id, "")
    config: dict = {}
    try:
        found = adapters.registered().get(name)
        if found is not None:
            config = dict(adapters.load_class(found).CONFIGS.get(label or "", {}))
    except AdapterError:
        pass
    # a wrapper's row, as its records name it: with the framework it wraps, whose entries reach it
    module = name.removeprefix(namespace.PREFIX)
    if module != name and (wrapped := namespace.wrapped_backend(module)):
        return Backend(name, backend_id, "999", {}, wraps=backend_named(wrapped, versions, mode))
    return Backend(name, backend_id, version_in(versions), {**config, **({"mode": mode} if mode else {})})


def version_in(versions: str) -> str:
    """A version the specifier admits (the first of its bounds that it does, else a large one)."""
    if not versions:
        return "999"
    spec = SpecifierSet(versions)
    bounds = [s.version for s in spec] + ["0", "999"]
    candidates = []
    for bound in bounds:
        try:
            candidates += [Version(bound), Version(bound + ".post1")]
        except InvalidVersion:
            continue
    return str(next((v for v in sorted(candidates) if v in spec), "999"))


def record_overlaps(registry: Registry, results: Path) -> list[Problem]:
    """Entries of one level that both match a record of the runs under ``results``, and the device
    entries that claim what every device does (``device_claims``)."""
    found = matched(registry, records.load(results, validate=False).runs.values())
    pairs: dict[tuple[str, str], object] = {}
    for record, matching in found:
        for other in matching[1:]:
            if other.place(record.backend) == matching[0].place(record.backend):
                pairs.setdefault((matching[0].id, other.id), record)
    return [
        Problem(
            f"{a} and {b}", f"both match {r.where} {r.family} {r.op} [{r.kind}] {r.signature}: narrow one"
        )
        for (a, b), r in sorted(pairs.items())
    ] + device_claims(found)


def matched(registry: Registry, runs: Iterable[records.Run]) -> list[tuple]:
    """Each divergence of ``runs`` that the registry judges (not those the standard or a device's
    contract settles), with every entry that matches it, in matching order."""
    return [
        (record, registry.matching(record.backend, record.fields))
        for run in runs
        for record in run.divergences
        if record.status not in ("standard", "contract", "departs")
    ]


def device_claims(found: list[tuple]) -> list[Problem]:
    """Of ``matched``'s records, those a device's entry claims which an entry of every device matches
    too: it says the device differs from its reference device where the behaviour is the
    framework's, everywhere (it is broader than its evidence, and names the record's cause wrongly)."""
    claims: dict[tuple[str, str], object] = {}
    for record, matching in found:
        if matching and "device" in matching[0].patterns:
            general = next((e for e in matching if "device" not in e.patterns), None)
            if general is not None:
                claims.setdefault((matching[0].id, general.id), record)
    return [
        Problem(
            a,
            f"a device's entry claims {r.where} {r.family} {r.op} [{r.kind}] {r.signature}, which {b} "
            "explains on every device: narrow it to its evidence",
        )
        for (a, b), r in sorted(claims.items())
    ]


def main(paths: list[str], results: str | None) -> int:
    """``compat known lint``: each problem on a line; 0 where there is none."""
    from compat.results import registry as registry_module

    try:
        registry = registry_module.load(*(paths or [registry_module.DEFAULT]))
    except RegistryError as error:
        print(f"compat known lint: {error}")
        return 1
    problems = lint(registry, Path(results) if results else None)
    for problem in problems:
        print(problem)
    where = ", ".join(str(p) for p in registry.paths)
    print(
        f"compat known lint: {len(registry.entries)} entries in {where}: {len(problems) or 'no'} problem(s)"
    )
    return 1 if problems else 0
