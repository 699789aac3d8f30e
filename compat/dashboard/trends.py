"""Counts over time, for the history chart and the matrix's sparklines: per row (a backend with
its config on a device, in one view, whatever its version), each run that covered it: the distinct
divergences new and known, and those fixed since the row's run before (the previous run's
divergences that this run no longer shows, among the operations it checked: as the History
page's "fixed since the previous run")."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from compat.dashboard.data import Data


@dataclass
class Point:
    run_id: str
    versions: tuple[str, ...]  # of the row in that run
    new: int
    known: int
    fixed: int | None  # None for the row's first run: nothing to be fixed since


def over_runs(data: Data) -> dict[tuple, list[Point]]:
    """Row group (MatrixRow.group) -> a point per run that covered it, oldest first."""
    runs_of: dict[tuple, set[str]] = defaultdict(set)
    versions_in: dict[tuple, set[str]] = defaultdict(set)  # (group, run) -> versions
    for (key, _), runs in data.covered.items():
        group = data.rows[key].group
        runs_of[group].update(runs)
        for run_id in runs:
            versions_in[(group, run_id)].add(key[1])
    shown: dict[tuple, set[tuple]] = defaultdict(set)  # (group, run) -> (version-free key, status)
    for d in data.all_divergences:
        group = data.rows[data.row_key(d)].group if data.row_key(d) in data.rows else None
        if group is not None:
            shown[(group, d.run_id)].add((d.key, d.status))
    checked: dict[tuple, set[tuple]] = defaultdict(set)  # (group, run) -> (family, op)
    for (run_id, key, family), ops in data.checked_ops().items():
        if key in data.rows:
            checked[(data.rows[key].group, run_id)].update((family, op) for op in ops)
    found = {}
    for group, runs in runs_of.items():
        points, before = [], None
        for run_id in sorted(runs, key=data.order.__getitem__):
            now = shown[(group, run_id)]
            new = sum(1 for _, status in now if status == "new")
            fixed = None
            if before is not None:
                keys = {key for key, _ in now}
                fixed = sum(
                    1
                    for key, _ in before
                    if key not in keys and (key.family, key.op) in checked[(group, run_id)]
                )
            points.append(
                Point(run_id, tuple(sorted(versions_in[(group, run_id)])), new, len(now) - new, fixed)
            )
            before = now
        found[group] = points
    return found


def cell_counts(data: Data, key: tuple, family: str) -> list[tuple[str, int, int]]:
    """(run, new, known) of each run that covered a matrix cell, oldest first (its sparkline)."""
    counts = data.run_counts
    return [
        (run_id, *counts.get((run_id, key, family), (0, 0))) for run_id in data.covered.get((key, family), [])
    ]
