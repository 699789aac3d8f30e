"""Survey tables (observation records), and what backends do with invalid indices."""

from __future__ import annotations

from collections import Counter

from compat.dashboard.context import Context
from compat.dashboard.html import capped_note, e, table
from compat.dashboard.pages import accuracy
from compat.dashboard.pages.common import columns_of, describe_outcome, survey_cells
from compat.results import aggregate

TABLE_CAP = 100  # index kinds shown


def surveys(dash: Context) -> None:
    data = dash.data
    parts = [
        "<h1>Survey tables</h1>",
        "<p class=lead>What each backend does where there is no single right answer or where NumPy raises: "
        "one table per survey, a column per backend (latest run that recorded it; a column per version "
        "for a backend recorded at several). Cells that differ from the most common answer of their row are "
        "<span class=diff>amber</span>.</p>",
    ]
    tables = survey_cells(data)
    if not tables:
        parts.append("<p class=muted>No observation records in the store.</p>")
    for survey in sorted(tables):
        parts.append(f"<h2>{e(survey)}</h2>")
        if survey == accuracy.TABLE:
            parts.append(
                '<p>A page of its own: <a href="accuracy.html">Accuracy</a>, a table per function with '
                "the input that reached each worst error, marked against the specs' bound.</p>"
            )
            continue
        cells = tables[survey]
        columns = columns_of(cells)
        body = []
        for case in sorted({r for r, _ in cells}):
            values = Counter(cells[(case, c)] for c in columns if (case, c) in cells)
            common = values.most_common(1)[0][0] if len(values) > 1 else None
            row = [e(case)]
            for column in columns:
                if (case, column) not in cells:
                    row.append("<td class=notrun>not recorded</td>")
                    continue
                value = cells[(case, column)]
                cls = " class=diff" if common is not None and value != common else ""
                row.append(f"<td{cls}>{e(value)}</td>")
            body.append(row)
        parts.append(table(["case"] + [c.header() for c in columns], body))
    parts.append(out_of_bounds(dash))
    dash.site.page("surveys.html", "Survey tables", "\n".join(parts), here="surveys.html")


def out_of_bounds(dash: Context) -> str:
    """Indexing divergences of the invalid-index specs: what each backend did where NumPy raised."""
    data = dash.data
    rows = [r for r in data.rows_of("") if (r.key, "indexing") in data.cells]
    covering = [
        r
        for r in rows
        if aggregate.INVALID_INDICES in data.cells[(r.key, "indexing")].table_ops and r.name != "numpy"
    ]
    found = {}
    for row in covering:
        for d in data.cells[(row.key, "indexing")].divergences:
            if d.feeds(aggregate.INVALID_INDICES):
                found.setdefault((d.inputs, d.expected), {}).setdefault(row.key, d)
    parts = ["<h2>Out-of-bounds and invalid indices</h2>"]
    if not found:
        parts.append("<p class=muted>No divergence recorded by an invalid-index spec.</p>")
        return "\n".join(parts)
    parts.append(
        "<p>Where NumPy raises for an index (out of range, a float, too many indices), what each backend "
        "did instead, from the divergences of the invalid-index spec. <span class=clean>Same as NumPy</span> "
        "means the spec ran and found no divergence of that index kind; hover a cell for the example.</p>"
    )
    body = []
    ordered = sorted(found.items())
    bodies = data.bodies([d.record_id for _, per in ordered[:TABLE_CAP] for d in per.values()])
    for (inputs, _expected), per in ordered[:TABLE_CAP]:
        first = bodies[next(iter(per.values())).record_id]
        numpy_side = describe_outcome(first.get("expected") or {})
        row = [f"<code>{e(inputs)}</code>", e(numpy_side)]
        for r in covering:
            d = per.get(r.key)
            if d is None:
                row.append("<td class=clean>same as NumPy</td>")
                continue
            record = bodies[d.record_id]
            text = describe_outcome(record.get("actual") or {})
            call = (record.get("example") or {}).get("call", "")
            href = dash.href(d)
            link = f'<a href="{href}">{e(text)}</a>' if href else e(text)
            row.append(f'<td class={"new" if d.status == "new" else "known"} title="{e(call)}">{link}</td>')
        body.append(row)
    parts.append(
        table(
            ["index kind (dtype, index)", "NumPy"]
            + [f"{e(r.backend_id)} <span class=ver>{e(r.version)}</span>" for r in covering],
            body,
        )
    )
    parts.append(capped_note(TABLE_CAP, len(ordered), "index kinds"))
    return "\n".join(parts)
