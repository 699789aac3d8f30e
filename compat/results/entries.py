"""Registry entries from records: ``python -m compat known add`` writes a stub for
each new divergence of a run (its minimal example included; the reason and the
source are left for a person to fill in), ``python -m compat known examples``
the examples of an existing entry that a run's records show."""

from __future__ import annotations

import json
from collections import defaultdict

from compat.results.aggregate import distinct
from compat.results.records import Divergence, Run


def toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # JSON's escapes are TOML's basic-string escapes


def toml_list(items) -> str:
    return "[" + ", ".join(toml_string(i) for i in items) + "]"


def example_toml(record: Divergence, backends: list[str] | None = None) -> str:
    """One ``[[known.examples]]`` table: the record's minimal example, replayed on ``backends``."""
    lines = [
        "[[known.examples]]",
        f"family = {toml_string(record.family)}",
        f"call = {toml_string(record.example['call'])}",
    ]
    if record.example.get("exact"):
        lines.append("exact = true")
    if record.example.get("against"):
        lines.append(f"against = {toml_string(record.example['against'])}")
    if backends:
        lines.append(f"backends = {toml_list(backends)}")
    if record.device:
        lines.append(f"device = {toml_string(record.device)}")
    lines.append("[known.examples.inputs]")
    lines += [f"{name} = {toml_string(source)}" for name, source in record.example["inputs"].items()]
    return "\n".join(lines)


def entry_stub(record: Divergence) -> str:
    """A ``[[known]]`` entry as narrow as the record: its backend, family, operation,
    kind and signature, its example; what differs from the record's detail."""
    signature = record.signature
    lines = [
        "[[known]]",
        f"id = {toml_string(slug(record))}",
        f"backend = {toml_string(record.backend.id)}",
        f"family = {toml_string(record.family)}",
        f"op = {toml_string(record.op)}",
        f"kind = {toml_string(record.kind)}",
        f"inputs = {toml_string(signature['inputs'])}",
        f"expected = {toml_string(signature['expected'])}",
        f"actual = {toml_string(signature['actual'])}",
    ]
    mode = record.backend.config.get("mode")
    if mode:  # a compiled or lazy row: the entry is about that mode
        lines.insert(3, f"config = {{ mode = {toml_string(mode)} }}")
    if record.device:
        lines.append(f"device = {toml_string(record.device)}")
    if record.reference != "numpy":
        lines.append(f"reference = {toml_string(record.reference)}")
    lines += [
        f"differs = {toml_string(record.detail)}",
        'reason = "TODO: why this difference is intended, documented or accepted"',
        'source = "TODO: a public URL (documentation, issue), or remove this line"',
        example_toml(record, [record.backend.id]),
    ]
    return "\n".join(lines)


def slug(record: Divergence) -> str:
    mode = record.backend.config.get("mode")
    name = record.backend.name + (f"-{mode}" if mode else "")
    return f"{name}-{record.family}-{record.op}-{record.kind}".replace("_", "-")


def new_divergences(run: Run, where: str | None = None) -> list[Divergence]:
    """The run's distinct new divergences (of one backend id, or backend@device, if given)."""
    return [
        r for r in distinct(run.divergences) if r.status == "new" and where in (None, r.where, r.backend.id)
    ]


def examples_of(run: Run, entry_id: str) -> list[tuple[Divergence, list[str]]]:
    """Few examples that show the entry on every backend (and device) it showed on in
    the run: each next one the example that the most backends not yet covered share,
    the smallest first; with the backend ids it is replayed on."""
    shown: dict[str, list[Divergence]] = defaultdict(list)  # example -> its records
    for record in distinct(run.divergences):
        if record.known == entry_id:
            shown[json.dumps([record.family, record.device, record.example], sort_keys=True)].append(record)
    uncovered = {r.where for records in shown.values() for r in records}
    chosen = []
    while uncovered:
        records = max(
            shown.values(),
            key=lambda rs: (len({r.where for r in rs} & uncovered), -len(json.dumps(rs[0].example))),
        )
        chosen.append((records[0], sorted({r.backend.id for r in records})))
        uncovered -= {r.where for r in records}
    return chosen
