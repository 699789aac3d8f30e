"""The matrix (index), its drill-down by operation, and each cell's list of divergences."""

from __future__ import annotations

from compat.dashboard.causes import Line
from compat.dashboard.context import Context
from compat.dashboard.data import Cell, MatrixRow
from compat.dashboard.html import LEGEND, e, table
from compat.dashboard.pages import coverage
from compat.dashboard.pages.common import (
    CELL_HEADERS,
    INPUTS_SHOWN,
    VIEW_PAGES,
    cell_html,
    cell_line,
    family_path,
    list_path,
    matrix,
    op_anchor,
    row_header,
    run_line,
)

VIEW_TITLES = {"": "", "device": " (devices)", "mode": " (execution modes)"}


def index(dash: Context) -> None:
    data = dash.data
    rows = data.rows_of("")
    runs_shown = sorted(
        {c.run_id for (key, _), c in data.cells.items() if not key[3]}, key=data.order.__getitem__
    )
    body = [
        "<h1>compat: where array frameworks disagree with NumPy</h1>",
        "<p class=lead>Each row is an array framework (with its configuration) on a device, each column a "
        "family of NumPy semantics, and each cell counts the distinct divergences from NumPy that the latest "
        "run covering it found. <b>Red</b> means at least one <b>new</b> divergence (not in the "
        "known-divergence registry: probably a bug), <b>amber</b> only <b>known</b> ones (documented, accepted "
        "differences), <b>green</b> checked with no divergence, <b>grey</b> not run; click a red or amber cell "
        "for its divergences (by cause, with minimal examples and reproducers), or a family name for the same "
        "matrix by operation. A line under a cell's counts draws them in each run that covered it.</p>",
        LEGEND,
        matrix(data, rows),
        coverage.summary(dash),
    ]
    groups = data.version_groups()
    if groups:
        listed = "; ".join(
            f"{e(rows_[0].backend_id)} on {e(rows_[0].device or 'default device')}: "
            + " &rarr; ".join(f"<span class=ver>{e(r.version)}</span>" for r in rows_)
            for rows_ in groups
        )
        body.append(
            f"<p>Run at more than one version (a row per version): {listed}. "
            f'<a href="versions.html">Versions</a> lists what differs between them.</p>'
        )
    if dash.page_cap_hit:
        body.append(
            f"<p class=cap>{dash.total_divergences} distinct divergences: to keep the dashboard small, "
            f"pages are written for {len(dash.pages)} of them (new ones first); the others are listed "
            f"without a page.</p>"
        )
    body.append("<h2>Runs shown</h2>")
    if runs_shown:
        items = []
        for run_id in reversed(runs_shown):
            meta = data.runs[run_id]["meta"] or {}
            listed = meta.get("backends") if isinstance(meta.get("backends"), list) else []
            backends = ", ".join(f"{b.get('id')} {b.get('version')}" for b in listed if isinstance(b, dict))
            items.append(f"<li>{run_line(data, run_id)}{': ' + e(backends) if backends else ''}</li>")
        body.append("<ul>" + "".join(items) + "</ul>")
    else:
        body.append("<p class=muted>None: no run in the store has divergence or checks records.</p>")
    total_runs = len(data.runs)
    records = data.record_count()
    body.append(
        f"<p class=muted>The store holds {total_runs} run(s) and {records} record(s); "
        f'<a href="history.html">History</a> compares them.</p>'
    )
    dash.site.page("index.html", "Divergence matrix", "\n".join(body), here="index.html")


def family_page(dash: Context, family: str, rows: list[MatrixRow], view: str) -> None:
    data = dash.data
    rows = [r for r in rows if (r.key, family) in data.cells]
    ops = sorted(
        {op for r in rows for op in data.cells[(r.key, family)].cases}
        | {d.op for r in rows for d in data.cells[(r.key, family)].divergences}
    )
    head = ["backend / device"] + [f"<code>{e(op)}</code>" for op in ops]
    body = []
    for row in rows:
        cell = data.cells[(row.key, family)]
        body.append(
            [row_header(row, data, [family])]
            + [cell_html(cell, list_path(row, family, op), op, data, titled=False) for op in ops]
        )
    back = VIEW_PAGES[view]
    text = [
        f"<h1>{e(family)}{VIEW_TITLES[view]}: by operation</h1>",
        f'<p>The <a href="{back}">matrix</a>\'s {e(family)} column, one column per operation, each from '
        "the same run as the matrix's cell (hover it there for the run). A cell with divergences links to "
        "them.</p>",
        LEGEND,
        table(head, body, "matrix"),
    ]
    dash.site.page(family_path(family, view), f"{family} by operation", "\n".join(text), here=back)


def list_page(dash: Context, row: MatrixRow, family: str, cell: Cell) -> None:
    """A cell's divergences (a cell with none has no page: it says all there is) by operation, those
    of one cause that differ only in their inputs on one line (the drill-down's cells lead to their
    operation here), with its causes; then the operations checked without a divergence."""
    lines: dict[int, Line] = {}
    for d in cell.divergences:
        line = dash.causes.line(d)
        if line is not None:
            lines.setdefault(id(line), line)
    ordered = sorted(
        lines.values(), key=lambda ln: (ln.op, ln.status != "new", ln.known or "", ln.kind, ln.actual)
    )
    quiet = sorted((set(cell.cases) | set(cell.unsupported)) - {ln.op for ln in ordered})
    new, known = cell.counts()
    parts = [
        f"<h1>{e(row.label())} · {e(family)}</h1>",
        f"<p>{new} new and {known} known distinct divergence(s) in {run_line(dash.data, cell.run_id)}; "
        f"{sum(cell.cases.values())} case(s) checked.</p><p class=muted>A line per operation and cause, its "
        f"inputs' first {INPUTS_SHOWN}; an op leads to its cause's page, inputs in bold to their own.</p>",
    ]
    rows, seen = [], set()
    for line in ordered:
        cells = cell_line(dash, line, "../")
        if line.op not in seen:
            seen.add(line.op)
            cells[0] = f'<td id="{op_anchor(line.op)}">{cells[0]}</td>'
        rows.append(cells)
    parts.append(table(CELL_HEADERS, rows))
    if dash.page_cap_hit and any(not d.known and d.page not in dash.pages for d in cell.divergences):
        parts.append(
            f"<p class=muted>Some divergences of no registry entry have no page of their own (their inputs are "
            f"not in bold): to keep the dashboard small, pages are written for {len(dash.pages)} divergences, "
            "new ones first. Their cause's page shows each with its minimal example.</p>"
        )
    parts.append(cause_table(dash, ordered))
    if quiet:
        listed = ", ".join(f"{e(op)} (unsupported)" if op not in cell.cases else e(op) for op in quiet)
        parts.append(f"<p class=muted>Checked without a divergence ({len(quiet)} operations): {listed}.</p>")
    dash.site.page(
        list_path(row, family), f"{row.label()} {family}", "\n".join(parts), here=VIEW_PAGES[row.view]
    )


def cause_table(dash: Context, lines: list[Line]) -> str:
    """The cell's divergences by cause, largest first."""
    counted: dict[str, list[Line]] = {}
    for line in lines:
        page = dash.causes.page(line.divergences[0])
        if page is not None:
            counted.setdefault(page, []).append(line)
    listed = [  # the lines above lead to each cause's page
        f"{e(dash.causes.pages[page].name)} ({sum(len(ln.divergences) for ln in found)} "
        f"{e(dash.causes.pages[page].status)})"
        for page, found in sorted(
            counted.items(), key=lambda kv: (-sum(len(ln.divergences) for ln in kv[1]), kv[0])
        )
    ]
    return f"<p><b>By cause</b>, largest first: {', '.join(listed)}.</p>"
