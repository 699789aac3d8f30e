"""What a wrapper changes: a namespace that wraps a framework (``array_api_compat.torch`` wraps
``torch``: its records' ``backend.wraps``) against that framework's own row in the same run.

Per (family, operation, kind) signature of the divergences from NumPy on the default device:
*removed*, the framework's own row shows it and the wrapper's does not; *added*, only the
wrapper's shows it. A signature counts only where both rows checked the operation in that family
(a wrapper's row checks a share of the examples: what it did not check it cannot have removed)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from compat.results.records import Run

REMOVED, ADDED = "removed", "added"


@dataclass(frozen=True)
class Change:
    """One signature a wrapper removes or adds, with the registry entries its divergences matched."""

    wrapper: str  # the wrapper's row
    wrapped: str  # the framework's own row
    family: str
    op: str
    kind: str
    change: str  # REMOVED or ADDED
    known: tuple[str, ...]  # entries of the divergences that show it ('' for a new one)


def changes(run: Run) -> list[Change]:
    """Every signature each wrapper row of ``run`` removes from, or adds to, its framework's row."""
    wrapped_by = {r.backend.id: r.backend.wraps.id for r in run.checks if r.backend.wraps is not None}
    checked: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)  # row -> {(family, op)}
    for record in run.checks:
        if record.device is None and "mode" not in record.backend.config:
            checked[record.backend.id].update((record.family, op) for op, n in record.cases.items() if n)
    shown: defaultdict[str, defaultdict[tuple[str, str, str], set[str]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for divergence in run.divergences:
        if (
            divergence.device is None
            and not divergence.against_device
            and "mode" not in divergence.backend.config
        ):
            shown[divergence.backend.id][(divergence.family, divergence.op, divergence.kind)].add(
                divergence.known or ""
            )
    found = []
    for wrapper, wrapped in sorted(wrapped_by.items()):
        both = checked[wrapper] & checked[wrapped]
        for change, have, lack in ((REMOVED, wrapped, wrapper), (ADDED, wrapper, wrapped)):
            for (family, op, kind), known in sorted(shown[have].items()):
                if (family, op) in both and (family, op, kind) not in shown[lack]:
                    found.append(Change(wrapper, wrapped, family, op, kind, change, tuple(sorted(known))))
    return found


def rows(run: Run) -> list[list[str]]:
    """The table's rows: wrapper, its framework, family, operation, kind, change, entries."""
    return [
        [c.wrapper, c.wrapped, c.family, c.op, c.kind, c.change, ", ".join(k or "new" for k in c.known)]
        for c in changes(run)
    ]


HEADERS = ["wrapper", "wraps", "family", "op", "kind", "change", "entries"]
