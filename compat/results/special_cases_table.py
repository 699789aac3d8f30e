"""The special-case table: the standard's clauses (grouped by function) x backend rows, from the
records of ``test_every_special_case_of_the_standard`` (compat/specs/special_cases.py), with
NumPy's own row against the standard (its records against the reference ``standard``).

Each element of a special-case check meets one clause. Where a row's result differs from
NumPy's, the clause is classed by the standard's stated result (``expected``/``agrees``): the
row follows the standard there (``std``: NumPy departs, the row does not), or it differs from
both, as a known divergence (``known``, its record matched a registry entry) or a new one
(``new``). A cell counts clauses; ``=`` is a function whose every clause agrees with NumPy on
that row, ``-`` one the row did not check. NumPy's cell counts the clauses where NumPy itself
departs from the standard (``dep``): its records against the reference ``standard``; every other
row's ``dep`` counts the clauses where it departs as NumPy does (its records against the standard,
status ``departs``: reported, never failed)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from compat.core import parse, special_cases
from compat.results.records import Checks, Divergence, Run

SPEC = "test_every_special_case_of_the_standard"
FAMILY = "special_cases"
NUMPY = "numpy"
STANDARD = "standard"  # the reference of NumPy's own row: its departures from the standard
# what a special case judges: values, and an error or shape where a value was due (a dtype is the
# promotion family's, a device placement the device rows')
COUNTED = ("value", "error", "shape")


@dataclass
class Cell:
    checked: bool = False
    std: set[str] = field(default_factory=set)  # clauses where the row follows the standard, not NumPy
    known: set[str] = field(default_factory=set)  # differs from both, a registry entry knows it
    new: set[str] = field(default_factory=set)  # differs from both, unregistered
    departs: set[str] = field(default_factory=set)  # departs from the standard (as NumPy does, on other rows)

    def text(self) -> str:
        if not self.checked:
            return "-"
        parts = [
            f"{name}:{len(found)}"
            for name, found in (
                ("dep", self.departs),
                ("new", self.new),
                ("known", self.known),
                ("std", self.std - self.new - self.known),
            )
            if found
        ]
        return " ".join(parts) or "="


def _value(v):
    if isinstance(v, list):
        return complex(_value(v[0]), _value(v[1]))
    return float(v) if isinstance(v, str) else v


def _same(a, b) -> bool:
    if isinstance(a, complex) or isinstance(b, complex):
        a, b = complex(a), complex(b)
        return _same(a.real, b.real) and _same(a.imag, b.imag)
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if math.isnan(a) and math.isnan(b):
        return True
    if a == b:
        return a != 0 or math.copysign(1, a) == math.copysign(1, b)
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def _inputs(record: Divergence) -> tuple[np.ndarray, ...] | None:
    try:
        case = parse.case_from_source(record.example["call"], record.example["inputs"])
    except Exception:  # a record from another version of compat: its cell counts nothing
        return None
    if not any(isinstance(a, np.ndarray) for a in case.args):
        return None
    return special_cases.elementwise(tuple(a for a in case.args if isinstance(a, (np.ndarray, float, int))))


def classify(record: Divergence, cell: Cell) -> None:
    """Class the clauses a special-case record shows into ``cell``: each element's clause is the
    one its operands were built to meet (special_cases.clauses_met). Against NumPy, an element
    whose value holds the standard's result where NumPy's does not follows the standard; else it
    differs from both (known or new). Against the standard (NumPy's own row), NumPy departs."""
    if record.kind not in COUNTED:
        return
    args = _inputs(record)
    if not args:
        return
    met = special_cases.clauses_met(record.op, args)
    if record.reference == STANDARD:
        cell.departs.update(c.clause for c in met if c is not None)
        return
    known = cell.known if record.status == "known" else cell.new
    expected, actual = record.expected.get("values"), record.actual.get("values")
    if record.kind != "value" or expected is None or actual is None or len(actual) != len(met):
        known.update(c.clause for c in met if c is not None)  # an error or a shape: every clause
        return
    for i, (e, a) in enumerate(zip(map(_value, expected), map(_value, actual), strict=False)):
        case = met[i]
        if case is None or _same(e, a):
            continue
        element = tuple(x[i : i + 1] for x in args)
        held = special_cases.holds(case, element, np.asarray([a]))
        numpy_held = special_cases.holds(case, element, np.asarray([e]))
        follows = held is not None and bool(held[0]) and not (numpy_held is not None and bool(numpy_held[0]))
        (cell.std if follows else known).add(case.clause)


def cells(run: Run) -> dict[str, dict[str, Cell]]:
    """Row -> function -> cell, from one run's records."""
    table: dict[str, dict[str, Cell]] = {}

    def cell(row: str, op: str) -> Cell:
        return table.setdefault(row, {}).setdefault(op, Cell())

    functions = {c.op for c in special_cases.CASES if c.op and c.unparsed is None}
    for record in run.checks:
        if isinstance(record, Checks) and record.family == FAMILY and SPEC in record.spec:
            for op in record.cases:
                if op in functions:
                    cell(record.where, op).checked = True
    for divergence in run.divergences:
        if divergence.family != FAMILY or SPEC not in divergence.spec:
            continue
        if divergence.reference not in (NUMPY, STANDARD):
            continue
        reached = cell(divergence.where, divergence.op)
        reached.checked = True
        classify(divergence, reached)
    return table


def clause_counts() -> dict[str, int]:
    """Function -> parsed clauses (real and complex)."""
    counts: dict[str, int] = {}
    for case in special_cases.CASES:
        if case.op and case.unparsed is None:
            counts[case.op] = counts.get(case.op, 0) + 1
    return counts


def rows_and_columns(run: Run) -> tuple[list[str], list[list[str]]]:
    """The table as header and rows: function (clauses) x backend rows, NumPy's first."""
    found = cells(run)
    if not found:
        return [], []
    columns = sorted(found, key=lambda row: (row != NUMPY, row))
    counts = clause_counts()
    body = []
    for op in sorted(counts):
        body.append([f"{op} ({counts[op]})"] + [found[row].get(op, Cell()).text() for row in columns])
    return ["function (clauses)", *columns], body


def details(run: Run) -> list[str]:
    """Each clause a row does not agree with NumPy on, and what the standard says, but those of
    known divergences (the registry's entries say them): the text report's expansion of the table."""
    lines = []
    for row, ops in sorted(cells(run).items()):
        for op, found in sorted(ops.items()):
            departs = (
                "NumPy departs from the standard"
                if row == NUMPY
                else "departs from the standard as NumPy does"
            )
            for name, clauses in (
                (departs, found.departs),
                ("new: differs from NumPy and the standard", found.new),
                ("follows the standard, not NumPy", found.std - found.new - found.known),
            ):
                for clause in sorted(clauses):
                    lines.append(f"  {row} {op}: {name}: {clause.replace('``', '')}")
    return lines
