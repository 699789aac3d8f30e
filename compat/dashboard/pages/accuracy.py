"""Accuracy tables: each backend's worst error in ULPs per function and dtype, as math
libraries publish theirs (glibc's libm-test-ulps, CUDA's maximum-ULP tables)."""

from __future__ import annotations

import math
import re
from collections import Counter

from compat.core import contracts, dtypes, ops
from compat.dashboard.charts.scatter import Mark, Panel, Rule, panels
from compat.dashboard.context import Context
from compat.dashboard.html import e, table
from compat.dashboard.pages.common import Column, columns_of, survey_cells
from compat.judge import oracle
from compat.judge.oracle import ACCURACY_ULPS

TABLE = "accuracy: worst error in ULPs"  # the survey of compat/specs/numerics.py's test_accuracy_survey
WORST = re.compile(r"(?P<ulps>\S+) ULP at (?P<where>.+?)(?P<note>; .+)?")  # checker.accuracy_of's cells
EXACT = re.compile(r"0 ULP \(all (?P<inputs>\d+) inputs\)(?P<note>; .+)?")
FLOATS = dtypes.REAL_FLOAT  # the order of a table's rows
HALF = 0.5  # within half an ULP of the reference: correctly rounded


def accuracy(dash: Context) -> None:
    cells = survey_cells(dash.data).get(TABLE, {})
    sizes = Counter(m["inputs"] for m in map(EXACT.fullmatch, cells.values()) if m)
    grid = f"{sizes.most_common(1)[0][0]} inputs" if sizes else "inputs"
    parts = [
        "<h1>Accuracy: worst error in ULPs</h1>",
        f"<p class=lead>Each backend's worst error over a fixed, seeded grid of {grid} per function and "
        f"dtype (the same every run), in ULPs of a reference computed in wider precision and rounded once. "
        f"NumPy has a column like every backend: it is measured, not the measure. Each function is judged "
        f"against its published accuracy per dtype (the largest of NumPy's, glibc's and CUDA's published "
        f"maximum errors; 1 ULP for float16 and bfloat16, computed in float32 and rounded once): a cell beyond "
        f"it is a divergence, whose worst input is checked on its own. Subnormal results flushed to zero "
        f"are not counted here (the specs judge flush-to-zero as such). "
        f"Hover a number for the input that reached it. A column per backend row (latest run that recorded "
        f"each cell; a column per version for a backend recorded at several).</p>"
        f"<p>Above each function's table, its chart: a panel per dtype with each row's worst error (ULPs, log "
        f"scale) at the input that reached it, numbered as the rows in the legend under the panels; the "
        f"dashed line is the published accuracy, the dash-dotted one the contract of a device's vendor where "
        f"a device row has a value (CUDA's math library, JAX on GPUs: named under the panel), the dotted one "
        f"half an ULP (below it: correctly rounded), "
        f"a mark above the plot (∞) an error that is not finite. Rows exact on every input, or whose call "
        f"raised, are named under the panel.</p>",
    ]
    legend = (
        f"<p class=legend><span class=clean>0 to {HALF} ULP: correctly rounded</span>"
        f"<span class=within>within the published accuracy</span>"
        f"<span class=diff>beyond it: a divergence</span><span class=new>not finite where the reference is, "
        f"or the other way</span><span class=notrun>raised, or not recorded</span></p>"
    )
    parts.append(
        legend
        if cells
        else f"<p class=muted>No accuracy records in the store: observation records "
        f"of the table <code>{e(TABLE)}</code>, which <code>compat/specs/numerics.py"
        f"</code>'s <code>test_accuracy_survey</code> writes.</p>"
    )
    columns = columns_of(cells)
    functions = {}  # op -> dtypes recorded
    for row, _ in cells:
        op, _, dtype = row.rpartition(" ") if " " in row else (row, "", "")
        functions.setdefault(op, set()).add(dtype)
    for op in sorted(functions):
        body = []
        for dtype in ordered(functions[op]):
            row = f"{op} {dtype}" if dtype else op
            bound = bound_of(op, dtype)
            body.append(
                [f"<th>{e(dtype)} <small>{bound:g} ULP</small></th>"]
                + [worst_cell(cells.get((row, c)), bound) for c in columns]
            )
        parts.append(f'<h2 id="{e(op)}">{e(op)}</h2>')
        parts.append(chart(op, ordered(functions[op]), columns, cells))
        parts.append(table(["dtype"] + [c.header() for c in columns], body, "accuracy"))
    dash.site.page("accuracy.html", "Accuracy", "\n".join(parts), here="accuracy.html")


def ordered(found: set[str]) -> list[str]:
    """Dtypes in the tables' order: float16, bfloat16, float32, float64, then any other."""
    return sorted(found, key=lambda d: (FLOATS.index(d) if d in FLOATS else len(FLOATS), d))


def chart(op: str, dtypes_: list[str], columns: list[Column], cells: dict) -> str:
    """A panel per dtype: each column's worst error (ULP, log) at the input that reached it
    (symmetric log for a grid over many binades), the published accuracy as a dashed line, a
    device column's contract dash-dotted, half an ULP (correctly rounded) dotted; what has no mark
    is said under the panel."""
    drawn = []
    for dtype in dtypes_:
        row = f"{op} {dtype}" if dtype else op
        bound = bound_of(op, dtype)
        allowed = contract_bounds(op, dtype, [c for c in columns if (row, c) in cells])
        panel = Panel(
            f"{dtype or 'result'}: published {bound:g} ULP",
            rules=[Rule(bound, "published"), *(Rule(u, "contract", "rk") for u in allowed.values())]
            + [Rule(HALF, "½ ULP", "rc")],
        )
        exact, other = [], []
        for index, column in enumerate(columns):
            value = cells.get((row, column))
            if value is None:
                continue
            worst = WORST.fullmatch(value)
            at = first_input(worst["where"]) if worst else None
            ulps = number_or_nan(worst["ulps"]) if worst else math.nan
            if EXACT.fullmatch(value):
                exact.append(str(index + 1))
            elif at is None or math.isnan(ulps):
                other.append(str(index + 1))
            else:
                panel.marks.append(Mark(at, ulps, index, f"{column_name(column)}: {value}"))
        said = [f"{name}'s contract: {ulps:g} ULP" for name, ulps in allowed.items()]
        said += [f"0 ULP everywhere: {', '.join(exact)}"] if exact else []
        said += [f"raised or other result: {', '.join(other)}"] if other else []
        panel.below = "; ".join(said)
        drawn.append(panel)
    legend = [column_name(c) for c in columns]
    arity = arity_of(op)
    return panels(
        f"{op}: each row's worst error over the grid, and the input that reached it",
        drawn,
        legend,
        "input x" if arity == 1 else "first input x1",
        "worst error (ULP, log)",
        f"{op}: per dtype, each row's worst error in ULPs against the correctly rounded value, at its input",
    )


def contract_bounds(op: str, dtype: str, columns: list[Column]) -> dict[str, float]:
    """The ULPs the contract of each device column's device (of those with a record there) allows ``op`` in ``dtype``
    (compat.core.contracts: CUDA's math library, JAX's accuracy on GPUs), by the contract's name."""
    found = {}
    for column in columns:
        contract = contracts.of(column.name, column.device) if column.device else None
        allowed = [
            clause.ulps
            for clause in (contract.clauses if contract is not None else ())
            if clause.ulps is not None and clause.covers(op, dtype)
        ]
        if contract is not None and allowed:
            found[contract.name] = max(allowed)
    return found


def column_name(column: Column) -> str:
    return " ".join(
        p for p in (column.backend_id, column.version, f"on {column.device}" if column.device else "") if p
    )


def first_input(where: str) -> float | None:
    """The first argument of a survey cell's 'exp(-87.78)' or 'atan2(1.0, 2.0)'."""
    inside = where.partition("(")[2].rpartition(")")[0]
    value = number_or_nan(inside.split(",")[0].strip()) if inside else math.nan
    return None if math.isnan(value) else value


def number_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def arity_of(op: str) -> int:
    try:
        return ops.get(op).arity
    except ops.UnknownOperation:
        return 1


def bound_of(op: str, dtype: str) -> float:
    """The accuracy the specs hold ``op`` to in ``dtype`` (the oracle's bound)."""
    try:
        return oracle.bound(op).ulps_for(dtype)
    except ops.UnknownOperation:  # a store written by another version of compat
        return ACCURACY_ULPS


def worst_cell(value: str | None, bound: float) -> str:
    """One cell: the worst error, coloured by how it stands to the function's published
    accuracy in this dtype, with the input that reached it as the title; what the call raised
    or returned instead as text."""
    if value is None:
        return "<td class=notrun>not recorded</td>"
    exact = EXACT.fullmatch(value)
    if exact:
        return (
            f'<td class="num clean" title="{e(value)}: the reference&#x27;s result every time">0'
            f"{note_of(exact)}</td>"
        )
    worst = WORST.fullmatch(value)
    try:
        ulps = float(worst["ulps"]) if worst else math.nan
    except ValueError:
        ulps = math.nan
    if worst and not math.isfinite(ulps):  # only one side finite
        return (
            f'<td class=new title="{e(value)}">{e(worst["ulps"])} ULP<small>at {e(worst["where"])}</small>'
            f"{note_of(worst)}</td>"
        )
    if not worst:  # raised, a result of another dtype or shape
        what, _, message = value.partition(": ")
        return f'<td class=notrun title="{e(value)}">{e(what)}{f"<small>{e(message)}</small>" if message else ""}</td>'
    if ulps <= HALF:
        cls, verdict = "num clean", "correctly rounded"
    elif ulps <= bound:
        cls, verdict = "num", f"within the published accuracy of {bound:g} ULP"
    else:
        cls, verdict = "num diff", f"beyond the published accuracy of {bound:g} ULP: a divergence"
    return f'<td class="{cls}" title="{e(value)}: {e(verdict)}">{e(worst["ulps"])}{note_of(worst)}</td>'


def note_of(match: re.Match) -> str:
    note = match["note"]
    return f" <small>{e(note[2:])}</small>" if note else ""
