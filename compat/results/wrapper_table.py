"""What a wrapper changes: a namespace that wraps a framework (``array_api_compat.torch`` wraps
``torch``: its records' ``backend.wraps``) against that framework's own row in the same run.

Per signature of the divergences from NumPy on the default device, eager: *removed*, the
framework's own row shows it and the wrapper's does not; *added*, only the wrapper's shows it. A
signature is (family, operation, kind, registry entry matched): the wrapper may remove one
entry's divergence of an operation and keep another's of the same kind (float16's but not
bfloat16's); a divergence of no entry is signed by its status (``new``, ``standard``). A signature
counts only where both rows checked the operation in that family. The row that lacks a signature
lacks it *by replay* where its minimal examples were replayed there and diverge no more: the
registry's examples of its entry and operation (every run replays them), or the examples the other
row showed it on (compat.harness.crossreplay, at the end of the run; a replay that diverges alike
puts the signature on both rows: no change). Else *by draws* only: the rows check different
examples (a wrapper's row a share of them, and their dtypes differ), so it is *unconfirmed*, not a
change."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from compat.results.records import Divergence, Key, Run

REMOVED, ADDED = "removed", "added"
# one row shows it, the other drew no example that does, and no replay there says it lacks it: the
# other row may simply not have drawn those inputs (not claimed as a change)
UNCONFIRMED = "unconfirmed"
CROSS_REPLAY = "cross-replay"  # the spec name of the records of compat.harness.crossreplay


@dataclass(frozen=True)
class Change:
    """One signature a wrapper removes or adds, with the divergences that show it on the row that has it."""

    wrapper: str  # the wrapper's row
    wrapped: str  # the framework's own row
    family: str
    op: str
    kind: str
    change: str  # REMOVED, ADDED, or UNCONFIRMED (either, by draws only)
    entry: str  # the registry entry its divergences matched, or their status (new, standard)
    shown_on: str  # the row that shows it (wrapped for a removal, wrapper for an addition)
    version: str  # of the row that shows it
    divergences: tuple[tuple[Key, int], ...]  # (distinct divergence, examples that showed it)
    replayed: bool  # its examples, replayed on the row that lacks it, diverge no more there

    @property
    def examples(self) -> int:
        return sum(n for _, n in self.divergences)

    def to_json(self) -> dict:
        return {
            **{k: v for k, v in vars(self).items() if k != "divergences"},
            "divergences": len(self.divergences),
            "examples": self.examples,
        }


def on_default_device_eager(record) -> bool:
    return record.device is None and "mode" not in record.backend.config


def from_numpy_here(divergence: Divergence) -> bool:
    """A divergence the table compares: from NumPy (not a device's from its reference), on the
    default device, eager."""
    return on_default_device_eager(divergence) and not divergence.against_device


def signature(divergence: Divergence) -> tuple[str, str, str, str]:
    return divergence.family, divergence.op, divergence.kind, divergence.known or divergence.status


def compared(run: Run) -> dict[tuple[str, str], dict[str, list[str]]]:
    """(wrapper row, its framework's row) -> family -> the operations both rows checked there."""
    wrapped_by = {r.backend.id: r.backend.wraps.id for r in run.checks if r.backend.wraps is not None}
    checked: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)  # row -> {(family, op)}
    for record in run.checks:
        if on_default_device_eager(record):
            checked[record.backend.id].update((record.family, op) for op, n in record.cases.items() if n)
    found = {}
    for wrapper, wrapped in sorted(wrapped_by.items()):
        families: defaultdict[str, list[str]] = defaultdict(list)
        for family, op in sorted(checked[wrapper] & checked[wrapped]):
            families[family].append(op)
        found[(wrapper, wrapped)] = dict(families)
    return found


def replayed(run: Run) -> dict[tuple[str, str, str], bool]:
    """(row, registry entry, op) -> whether every example of the entry and op replayed on the row
    (default device, eager) diverges no more: a row lacks such a signature by replay, not by draws."""
    found: dict[tuple[str, str, str], bool] = {}
    for replay in run.replays:
        if on_default_device_eager(replay) and replay.status != "unjudged":
            key = (replay.backend.id, replay.known, replay.op)
            found[key] = (
                found.get(key, True) and replay.status == "fixed"
            )  # shadowed, overridden: it diverges
    return found


def replayable(divergence: Divergence) -> bool:
    """Judged against NumPy or the backend's own answer, as a replay judges it (a special case judged
    against the standard's stated value is not replayed on the other row, nor a result where NumPy
    refuses a call the standard's signature admits: a replay would judge it against NumPy's refusal)."""
    if divergence.status == "standard" and divergence.kind == "error":
        return False
    return divergence.reference == "numpy" or divergence.reference.startswith("itself:")


def cross_replayed(run: Run) -> set[tuple[str, str, str]]:
    """(row, family, op) whose other row's examples compat.harness.crossreplay replayed on it."""
    return {
        (r.backend.id, r.family, op)
        for r in run.checks
        if r.spec == CROSS_REPLAY
        for op, n in r.cases.items()
        if n
    }


def changes(run: Run) -> list[Change]:
    """Every signature each wrapper row of ``run`` removes from, or adds to, its framework's row."""
    by_replay, crossed = replayed(run), cross_replayed(run)
    shown: defaultdict[str, defaultdict[tuple[str, str, str, str], dict[Key, int]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    settled: dict[tuple[str, tuple], bool] = {}  # (row, signature) -> every divergence of it replayable
    versions = {}
    for divergence in filter(from_numpy_here, run.divergences):
        row, signed = divergence.backend.id, signature(divergence)
        found = shown[row][signed]
        found[divergence.key] = found.get(divergence.key, 0) + divergence.count
        settled[(row, signed)] = settled.get((row, signed), True) and replayable(divergence)
        versions[row] = divergence.backend.version
    result = []
    for (wrapper, wrapped), families in compared(run).items():
        for change, have, lack in ((REMOVED, wrapped, wrapper), (ADDED, wrapper, wrapped)):
            for (family, op, kind, entry), found in sorted(shown[have].items()):
                if op in families.get(family, ()) and (family, op, kind, entry) not in shown[lack]:
                    seen = tuple(sorted(found.items(), key=lambda item: item[0].sort_key()))
                    lacks = by_replay.get((lack, entry, op), False) or (
                        (lack, family, op) in crossed and settled[(have, (family, op, kind, entry))]
                    )
                    said = change if lacks else UNCONFIRMED
                    result.append(
                        Change(
                            wrapper, wrapped, family, op, kind, said, entry, have, versions[have], seen, lacks
                        )
                    )
    return result


def evidence(change: Change) -> str:
    """How the row lacking the signature is known to lack it: by a replay of the entry's example
    of the op, or only by the examples it drew (it may not have drawn those inputs)."""
    return "replay" if change.replayed else "draws"


def rows(run: Run) -> list[list]:
    """The table's rows: wrapper, its framework, family, operation, kind, change, entry, counts, evidence."""
    return [
        [c.wrapper, c.wrapped, c.family, c.op, c.kind, c.change, c.entry, len(c.divergences), c.examples]
        + [evidence(c)]
        for c in changes(run)
    ]


HEADERS = ["wrapper", "wraps", "family", "op", "kind", "change", "entry", "divergences", "examples", "by"]
