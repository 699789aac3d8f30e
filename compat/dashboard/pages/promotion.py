"""Per backend: dtype x dtype -> result dtype, differences from NumPy marked."""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from compat.core import dtypes
from compat.dashboard.context import Context
from compat.dashboard.data import OTHER_SPECS
from compat.dashboard.html import capped_note, e, table
from compat.dashboard.pages.common import run_line
from compat.results import aggregate

TABLE_CAP = 100  # rows of the other-promotion-differences table


def promotion(dash: Context) -> None:
    data = dash.data
    rows = [r for r in data.rows_of("") if (r.key, "promotion") in data.cells and r.name != "numpy"]
    names = list(dtypes.ALL)
    baseline = {}
    for a in names:
        for b in names:
            try:
                baseline[(a, b)] = dtypes.name_of(np.result_type(dtypes.to_numpy(a), dtypes.to_numpy(b)))
            except (TypeError, LookupError):
                baseline[(a, b)] = None
    parts = [
        "<h1>Type promotion: result dtypes against NumPy</h1>",
        "<p class=lead>For each backend: the result dtype of an operation on arrays of dtype A (row) and B "
        "(column). A plain cell is NumPy's result (<code>np.result_type(A, B)</code>) where the backend agrees; "
        "an <span class=diff>amber</span> cell shows the backend's dtype where it differs (hover for NumPy's "
        "and the operations), a <span class=raises>red</span> one where the backend raised and NumPy did not; "
        "a dash marks a pair NumPy defines no result for. Results of one operation that differ from the "
        "common dtype (true_divide of integers, comparisons) are marked with *.</p>",
    ]
    if not rows:
        parts.append("<p class=muted>No promotion records in the store.</p>")
    for row in rows:
        cell = data.cells[(row.key, "promotion")]
        mine = [d for d in cell.divergences if d.reference == "numpy" and d.feeds(aggregate.PROMOTION_GRID)]
        differences = aggregate.promotion_differences(mine).get(row.backend_id, [])
        others = aggregate.promotion_differences(
            [d for d in cell.divergences if d.reference == "numpy" and d.feeds(OTHER_SPECS)]
        ).get(row.backend_id, [])
        exhaustive = aggregate.PROMOTION_GRID in cell.table_ops
        grid = defaultdict(list)  # (a, b) -> [(text, title, cls)]
        for diff in differences:
            pair = tuple(diff.inputs.split(","))
            if len(pair) == 2 and pair in baseline:
                marked = "" if diff.numpy == baseline[pair] else "*"
                grid[pair].append(
                    (
                        diff.backend + marked,
                        f"NumPy {diff.numpy}, {row.backend_id} {diff.backend}: " + ", ".join(diff.ops),
                        "diff",
                    )
                )
            else:
                others.append(diff)
        raised = defaultdict(set)
        for d in mine:
            pair = tuple(d.inputs.split(","))
            if d.kind == "error" and d.expected == "ok" and len(pair) == 2 and pair in baseline:
                raised[pair].add(d.op)
        for pair, ops in raised.items():
            grid[pair].append(
                (
                    "raises",
                    f"{row.backend_id} raised where NumPy did not: " + ", ".join(sorted(ops)),
                    "raises",
                )
            )
        parts.append(f"<h2>{e(row.label())}</h2>")
        checked_ops = sorted(cell.table_ops.get(aggregate.PROMOTION_GRID, ()))
        if exhaustive:
            parts.append(
                f"<p class=muted>From {run_line(data, cell.run_id)}; every pair of dtypes checked for "
                f"{e(', '.join(checked_ops) or 'the operations of the exhaustive spec')}.</p>"
            )
            head = ["A \\ B"] + [e(b) for b in names]
            body = []
            for a in names:
                cells = [f"<th class=r>{e(a)}</th>"]
                for b in names:
                    entries = grid.get((a, b))
                    if entries:
                        cls = "raises" if all(c == "raises" for _, _, c in entries) else "diff"
                        text = " ".join(t for t, _, _ in entries)
                        cells.append(
                            f'<td class={cls} title="{e(" | ".join(t for _, t, _ in entries))}">{e(text)}</td>'
                        )
                    elif baseline[(a, b)] is None:
                        cells.append('<td class=notrun title="NumPy defines no result">&ndash;</td>')
                    else:
                        cells.append(f"<td>{e(baseline[(a, b)])}</td>")
                body.append(cells)
            parts.append(table(head, body, "grid"))
        else:
            parts.append(
                f"<p class=muted>From {run_line(data, cell.run_id)}; the exhaustive spec (every pair of "
                f"dtypes) did not run for this backend, so there is no table.</p>"
            )
        if not differences and not others and not raised:
            parts.append(
                f"<p>No promotion difference from NumPy in {sum(cell.cases.values())} case(s) checked.</p>"
            )
        if others:
            parts.append(
                "<h3>Other promotion differences (Python scalars, 0-d arrays, unary functions, reductions)</h3>"
            )
            parts.append(
                table(
                    ["inputs", "NumPy", e(row.backend_id), "operations"],
                    [
                        [
                            f"<code>{e(o.inputs)}</code>",
                            e(o.numpy),
                            f"<td class=diff>{e(o.backend)}</td>",
                            e(", ".join(o.ops)),
                        ]
                        for o in others[:TABLE_CAP]
                    ],
                )
            )
            parts.append(capped_note(TABLE_CAP, len(others), "differences"))
    dash.site.page("promotion.html", "Promotion tables", "\n".join(parts), here="promotion.html")
