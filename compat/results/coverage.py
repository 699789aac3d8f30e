"""How much of the Array API standard a run checked, per row (backend~mode@device): the
standard's 135 main-namespace functions (compat.core.standard) and the operator forms of
compat's table (its operations of group "operator": ``x + y``, ``x += y``, ...).

A function counts as checked on a row where the run checked at least one case of an operation
that is that function (``Op.standard_name``, NumPy's spelling counting for the standard's: power
for pow) on that row; an operator form where its operation had a case. What counts is what the
records say was judged (``Checks.cases``), not what the table or the adapters declare: an
operation mapped by every adapter but checked by no spec, or deselected from the run, is not
checked. The report, the terminal summary, the dashboard and ``python -m compat ops`` count
alike, from ``(row, cases, unsupported)`` triples (``from_checks``, or the dashboard's cells)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from compat.core import ops, standard
from compat.results.records import Checks

OPERATOR = "operator"  # the group of the table's operator forms


def operator_forms() -> list[str]:
    """The table's operator forms, in table order."""
    return [op.name for op in ops.TABLE if op.group == OPERATOR]


def covered_name(op: str) -> str | None:
    """The standard's function (or the operator form) an operation of the table is, or None:
    an operation of compat's own (relu, grad, ...), or one an older table had."""
    declared = ops.OPS.get(op)
    if declared is None:
        return None
    if declared.group == OPERATOR:
        return declared.name
    return declared.standard_name if declared.standard_name in standard.FUNCTIONS else None


def implementations(name: str) -> list[str]:
    """The operations of the table that are the standard's function (or operator form) ``name``."""
    return [op.name for op in ops.TABLE if covered_name(op.name) == name]


@dataclass
class Coverage:
    """One row's coverage: the standard's functions and the operator forms it checked, with the
    operations that checked each, and what its adapter declared unsupported (operation -> reason)."""

    row: str
    checked: dict[str, set[str]] = field(default_factory=dict)  # function or operator form -> operations
    unsupported: dict[str, str] = field(default_factory=dict)

    @property
    def functions(self) -> list[str]:
        return [name for name in standard.FUNCTIONS if name in self.checked]

    @property
    def operators(self) -> list[str]:
        return [name for name in operator_forms() if name in self.checked]

    def line(self) -> str:
        return (
            f"{len(self.functions)} of {len(standard.FUNCTIONS)} functions, "
            f"{len(self.operators)} operator forms checked"
        )

    def to_json(self) -> dict:
        return {
            "row": self.row,
            "functions": self.functions,
            "operators": self.operators,
            "unsupported": dict(sorted(self.unsupported.items())),
            "summary": self.line(),
        }


def coverage(cells: Iterable[tuple[str, dict[str, int], dict[str, str]]]) -> list[Coverage]:
    """Per row, from ``(row, operation -> cases checked, operation -> reason unsupported)`` triples
    (one per spec that ran there): the rows in order, NumPy's first."""
    rows: dict[str, Coverage] = {}
    for row, cases, unsupported in cells:
        found = rows.setdefault(row, Coverage(row))
        for op, count in cases.items():
            name = covered_name(op)
            if count > 0 and name is not None:
                found.checked.setdefault(name, set()).add(op)
        found.unsupported.update(unsupported)
    return sorted(rows.values(), key=lambda c: (not c.row.startswith("numpy"), c.row))


def from_checks(checks: Iterable[Checks]) -> list[Coverage]:
    """The coverage of a run's rows, from its checks records."""
    return coverage((record.where, record.cases, record.unsupported) for record in checks)


def standard_name(op: str) -> str | None:
    """The standard's function (or array method: ``array.__add__``) whose signature a table operation's
    calls are read by (compat.core.binding.signature_of), or None."""
    from compat.core.binding import signature_of

    declared = ops.OPS.get(op)
    found = signature_of(declared) if declared is not None else None
    return found.name if found is not None else None


def parameters(checks: Iterable[Checks]) -> dict[str, dict[str, dict[str, set[str]]]]:
    """Row -> the standard's function -> parameter -> the kinds it was given as in some case checked
    there (``Checks.forms``, whichever spec made the case; an operation's calls count for the function
    it is, and a function the linalg extension shares with the main namespace, linalg.vecdot, for
    both), and '<function>' -> '(unsupported)' -> the keywords the row's adapter declared its function
    lacks, or '*' where it declared the whole operation unsupported."""
    found: dict[str, dict[str, dict[str, set[str]]]] = {}
    for record in checks:
        row = found.setdefault(record.where, {})
        for op, of_op in getattr(record, "forms", {}).items():
            name = standard_name(op)
            if name is None:
                continue
            for parameter, kinds in of_op.items():
                row.setdefault(name, {}).setdefault(parameter, set()).update(k for k, n in kinds.items() if n)
        for what in record.unsupported:  # "sum(device=)": a keyword the row's functions do not take
            name = standard_name(what.partition("(")[0])
            if name is not None:
                keyword = what.partition("(")[2].removesuffix("=)") if what.endswith("=)") else "*"
                row.setdefault(name, {}).setdefault("(unsupported)", set()).add(keyword)
    shared = [n for n in standard.EXTENSIONS["linalg"] if n in standard.FUNCTIONS]
    for row in found.values():
        for name in shared:
            if name in row:
                row[f"linalg.{name}"] = row[name]
    return found


def lines(found: list[Coverage]) -> list[str]:
    """The summary's lines: 'torch: 54 of 135 functions, 0 operator forms checked'."""
    if not found:
        return []
    width = max(len(c.row) for c in found)
    return [
        f"the Array API standard {standard.VERSION}, checked per row (python -m compat ops lists them):",
        *(f"  {c.row.ljust(width)}  {c.line()}" for c in found),
    ]
