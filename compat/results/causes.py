"""Divergences counted by cause: what one registry entry would cover.

A run keeps one record per signature (``records.Key``: the operation, the inputs' dtypes, the
classes of the two outcomes), so that each shrinks to its own minimal example. A reader acts on
causes: one registry entry, or one bug report, covers a row's divergences of one kind in one group
of operations that show the same thing, whatever dtypes and operations showed it. A known record's
cause is its registry entry; a new record's is its ``Cause``: the row, the operation's group (an
operator's by the function it computes), the kind, and the classes of the two outcomes, an error
by its class and the shape of its message (numbers and quoted names taken out: torch's
'"index_cuda" not implemented for 'UInt16'' and '"gather_cuda" not implemented for 'Int'' are one
shape). Records keep their signatures; reports list the causes first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from compat.core import ops
from compat.results.aggregate import distinct

MESSAGE_LENGTH = 90  # of a message's shape: enough to tell causes apart, short enough for a line
QUOTED = re.compile(r"""``[^`]*``|'[^']*'|"[^"]*"|`[^`]*`""")
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:e[-+]?\d+)?)(?![\w])")
TUPLE = re.compile(r"\((?:N, )*N,?\)|\[(?:N, )*N,?\]")


def message_shape(message: str) -> str:
    """A message with what varies between examples of one cause taken out: quoted names and
    values ('…'), numbers and addresses (N), shapes ((N, N) -> (N…)); its first line, shortened."""
    line = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    line = QUOTED.sub("'…'", line)
    line = NUMBER.sub("N", line)
    line = TUPLE.sub("(N…)", line)
    line = re.sub(r"\s+", " ", line)
    return line[:MESSAGE_LENGTH] + ("…" if len(line) > MESSAGE_LENGTH else "")


def group_of(op: str) -> str:
    """The operation's group (compat.core.operation.Op.group); an operator's, the function's it computes."""
    try:
        declared = ops.get(op)
    except ops.UnknownOperation:  # a user's own function, or an operation of another compat version
        return "own" if "." in op else "other"
    return ops.get(declared.computes).group if declared.computes else declared.group


@dataclass(frozen=True, order=True)
class Cause:
    """A new divergence's cause (see the module's docstring). What it was compared with is not
    part of it: a device's behaviour shows against NumPy and against its CPU alike, and one entry,
    naming no reference, covers both."""

    where: str  # the row: torch@cuda:0
    group: str
    kind: str
    expected: str
    actual: str

    @property
    def title(self) -> str:
        return f"{self.where} [{self.kind}] {self.group}: {self.expected} -> {self.actual}"


def cause_of(record) -> Cause:
    """The cause of a new divergence record (``records.Divergence``)."""
    expected, actual = record.signature["expected"], record.signature["actual"]
    error = (record.actual or {}).get("error")
    if error and record.kind in ("error", "crash", "timeout"):
        name = str(error.get("type", "")).rpartition(".")[2]
        actual = f"{name}: {message_shape(error.get('message', ''))}" if name else actual
    return Cause(record.where, group_of(record.op), record.kind, expected, actual)


@dataclass
class Group:
    """The records of one cause: a registry entry's (``known``) or a new one's (``cause``)."""

    name: str  # the entry's id, or the new cause's title
    status: str  # known | new | standard | ...: the records' status
    records: list = field(default_factory=list)
    cause: Cause | None = None  # of new records

    @property
    def rows(self) -> list[str]:
        return sorted({r.where for r in self.records})


def by_cause(divergences: Iterable, status: str | None = None) -> list[Group]:
    """The distinct divergences (``aggregate.distinct``) grouped by cause, of one ``status`` or all:
    a known record by its registry entry, a new one by its ``Cause``; the largest group first."""
    groups: dict[tuple, Group] = {}
    for record in distinct(divergences):
        if status is not None and record.status != status:
            continue
        if record.known:
            key: tuple = ("known", record.known)
            group = groups.setdefault(key, Group(record.known, record.status))
        else:
            cause = cause_of(record)
            key = (record.status, cause)
            group = groups.setdefault(key, Group(cause.title, record.status, cause=cause))
        group.records.append(record)
    return sorted(groups.values(), key=lambda g: (-len(g.records), g.name))


def per_row(groups: Iterable[Group]) -> dict[str, tuple[int, int]]:
    """Row -> (causes, records) of the groups: "torch@cuda:0: 9 new causes (52 records)"."""
    found: dict[str, list[int]] = {}
    for group in groups:
        for where in group.rows:
            counts = found.setdefault(where, [0, 0])
            counts[0] += 1
            counts[1] += sum(1 for r in group.records if r.where == where)
    return {where: (c, n) for where, (c, n) in sorted(found.items())}
