"""Accuracy tables: each backend's worst error in ULPs per function and dtype, as math
libraries publish theirs (glibc's libm-test-ulps, CUDA's maximum-ULP tables)."""

from __future__ import annotations

import math
import re
from collections import Counter

from compat.core import dtypes
from compat.core.oracle import ACCURACY_ULPS
from compat.dashboard.context import Context
from compat.dashboard.html import e, table
from compat.dashboard.pages.common import columns_of, survey_cells

TABLE = "accuracy: worst error in ULPs"  # the survey of compat/specs/numerics.py's test_accuracy_survey
WORST = re.compile(r"(?P<ulps>\S+) ULP at (?P<where>.+)")   # checker.accuracy_of's cells
EXACT = re.compile(r"0 ULP \(all (?P<inputs>\d+) inputs\)")
FLOATS = dtypes.REAL_FLOAT  # the order of a table's rows
HALF = 0.5  # within half an ULP of the reference: correctly rounded


def accuracy(dash: Context) -> None:
    cells = survey_cells(dash.data).get(TABLE, {})
    sizes = Counter(m["inputs"] for m in map(EXACT.fullmatch, cells.values()) if m)
    grid = f"{sizes.most_common(1)[0][0]} inputs" if sizes else "inputs"
    parts = ["<h1>Accuracy: worst error in ULPs</h1>",
             f"<p class=lead>Each backend's worst error over a fixed, seeded grid of {grid} per function and "
             f"dtype (the same every run), in ULPs of a reference computed in wider precision and rounded once. "
             f"NumPy has a column like every backend: it is measured, not the measure. The specs judge results "
             f"against a bound of {ACCURACY_ULPS} ULP; this table shows how much of that room each backend uses. "
             f"Hover a number for the input that reached it. A column per backend row (latest run that recorded "
             f"each cell; a column per version for a backend recorded at several).</p>"]
    legend = (f"<p class=legend><span class=clean>0 to {HALF} ULP: correctly rounded</span>"
              f"<span class=within>up to {ACCURACY_ULPS} ULP: within the specs' bound</span>"
              f"<span class=diff>beyond the specs' bound</span><span class=new>not finite where the reference is, "
              f"or the other way</span><span class=notrun>raised, or not recorded</span></p>")
    parts.append(legend if cells else f"<p class=muted>No accuracy records in the store: observation records "
                                      f"of the table <code>{e(TABLE)}</code>, which <code>compat/specs/numerics.py"
                                      f"</code>'s <code>test_accuracy_survey</code> writes.</p>")
    columns = columns_of(cells)
    functions = {}  # op -> dtypes recorded
    for row, _ in cells:
        op, _, dtype = row.rpartition(" ") if " " in row else (row, "", "")
        functions.setdefault(op, set()).add(dtype)
    for op in sorted(functions):
        body = []
        for dtype in sorted(functions[op], key=lambda d: (FLOATS.index(d) if d in FLOATS else len(FLOATS), d)):
            row = f"{op} {dtype}" if dtype else op
            body.append([f"<th>{e(dtype)}</th>"] + [worst_cell(cells.get((row, c))) for c in columns])
        parts.append(f'<h2 id="{e(op)}">{e(op)}</h2>')
        parts.append(table(["dtype"] + [c.header() for c in columns], body, "accuracy"))
    dash.site.page("accuracy.html", "Accuracy", "\n".join(parts), here="accuracy.html")


def worst_cell(value: str | None) -> str:
    """One cell: the worst error, coloured by how it stands to the specs' bound, with the
    input that reached it as the title; what the call raised or returned instead as text."""
    if value is None:
        return "<td class=notrun>not recorded</td>"
    if EXACT.fullmatch(value):
        return f'<td class="num clean" title="{e(value)}: the reference&#x27;s result every time">0</td>'
    worst = WORST.fullmatch(value)
    try:
        ulps = float(worst["ulps"]) if worst else math.nan
    except ValueError:
        ulps = math.nan
    if worst and not math.isfinite(ulps):  # only one side finite
        return f'<td class=new title="{e(value)}">{e(worst["ulps"])} ULP<small>at {e(worst["where"])}</small></td>'
    if not worst:  # raised, or no result of the reference's shape
        what, _, message = value.partition(": ")
        return f'<td class=notrun title="{e(value)}">{e(what)}{f"<small>{e(message)}</small>" if message else ""}</td>'
    if ulps <= HALF:
        cls, verdict = "num clean", "correctly rounded"
    elif ulps <= ACCURACY_ULPS:
        cls, verdict = "num", f"within the specs' bound of {ACCURACY_ULPS} ULP"
    else:
        cls, verdict = "num diff", f"beyond the specs' bound of {ACCURACY_ULPS} ULP"
    return f'<td class="{cls}" title="{e(value)}: {e(verdict)}">{e(worst["ulps"])}</td>'
