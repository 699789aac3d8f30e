"""The interchange matrix: producer x consumer, from the records of
``test_every_producer_dtype_and_layout_keeps_every_bit`` (compat/specs/interchange.py), which
imports each producer's array of every dtype, laid out three ways and asked for with each
``copy=``, on every eager row.

A divergence's inputs name what crossed (``torch:bfloat16:sliced,copy=False``: the producer,
the dtype, the layout and the copy asked for). A cell counts the distinct crossings that did not
keep dtype, shape and every bit (``known:n`` / ``new:n``: registered or not); ``=`` is a pair
whose every crossing kept them, ``-`` a pair not checked (the producer was not in the run, or
the row did not check the spec). Producers are backends (an array is made on the backend's
default device, in its first config); consumers are rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from compat.results.records import Checks, Run

SPEC = "test_every_producer_dtype_and_layout_keeps_every_bit"
FAMILY = "interchange"
OP = "from_dlpack_of"


@dataclass
class Cell:
    checked: bool = False
    known: set[str] = field(default_factory=set)  # crossings (dtype:layout,copy) a registry entry knows
    new: set[str] = field(default_factory=set)

    def text(self) -> str:
        if not self.checked:
            return "-"
        parts = [
            f"{name}:{len(found)}"
            for name, found in (("new", self.new), ("known", self.known - self.new))
            if found
        ]
        return " ".join(parts) or "="


def consumers(run: Run) -> list[str]:
    """The eager rows of the default device that checked the spec."""
    return sorted(
        {
            r.where
            for r in run.checks
            if isinstance(r, Checks)
            and r.family == FAMILY
            and SPEC in r.spec
            and r.device is None
            and "mode" not in r.backend.config
            and r.cases.get(OP)
        }
    )


def cells(run: Run) -> dict[tuple[str, str], Cell]:
    """(producer, consumer row) -> cell. Every consumer imports every backend of the run."""
    rows = consumers(run)
    names = sorted({r.backend.name for r in run.checks if isinstance(r, Checks) and r.where in rows})
    table = {(producer, row): Cell(checked=True) for producer in names for row in rows}
    for record in run.divergences:
        if record.family != FAMILY or SPEC not in record.spec or record.where not in rows:
            continue
        producer, _, crossing = record.signature.get("inputs", "").partition(":")
        cell = table.setdefault((producer, record.where), Cell(checked=True))
        (cell.known if record.status == "known" else cell.new).add(crossing)
    return table


def rows_and_columns(run: Run) -> tuple[list[str], list[list[str]]]:
    """The matrix as header and rows: producer x consumer rows."""
    found = cells(run)
    if not found:
        return [], []
    columns = sorted({row for _, row in found})
    producers = sorted({producer for producer, _ in found})
    body = [
        [producer] + [found.get((producer, row), Cell()).text() for row in columns] for producer in producers
    ]
    return ["producer \\ consumer", *columns], body
