"""Divergences per run and per backend version; what changed since the previous run."""

from __future__ import annotations

from collections import defaultdict

from compat.dashboard import trends
from compat.dashboard.charts.lines import Series, line_chart
from compat.dashboard.context import Context
from compat.dashboard.data import VIEWS, version_order
from compat.dashboard.html import capped_note, e, table, when
from compat.dashboard.pages.common import LIST_HEADERS, divergence_line, short_run

HISTORY_RUNS = 200  # runs shown in the history table
CHANGES_CAP = 100  # "new/fixed since the previous run" entries shown per row
CHART_RUNS = 40  # runs drawn per row's chart


def history(dash: Context) -> None:
    data = dash.data
    per_run = defaultdict(lambda: [0, 0])  # (run, backend id) -> [new, known]
    per_version = defaultdict(lambda: [0, 0])  # (run, backend id, version)
    for d in data.all_divergences:
        slot = 0 if d.status == "new" else 1
        per_run[(d.run_id, d.backend_id)][slot] += 1
        per_version[(d.run_id, d.backend_id, d.version)][slot] += 1
    versions = data.versions_run()  # (backend id, version) -> runs
    backends = sorted({b for b, _ in versions})
    parts = [
        "<h1>History</h1>",
        "<p class=lead>First, per row (a backend with its config on a device), its distinct divergences "
        "run by run; then the same per run and backend as a table, latest run first; then per backend "
        "version; then, for each backend and family, what changed since the run before the latest.</p>",
        run_charts(dash),
        "<h2>Divergences per run</h2>",
    ]
    runs = list(reversed(data.runs))[:HISTORY_RUNS]
    body = []
    ran = {(r, b): v for (b, v), rs in versions.items() for r in rs}  # (run, backend id) -> version
    for run_id in runs:
        run = data.runs[run_id]
        row = [e(when(run["started"])), f"<code>{e(run_id)}</code>"]
        for backend_id in backends:
            if (run_id, backend_id) not in ran:
                row.append("<td class=notrun></td>")
                continue
            new, known = per_run.get((run_id, backend_id), (0, 0))
            cls = "new" if new else "known" if known else "clean"
            row.append(
                f'<td class="c {cls}">{new} / {known}<small>{e(ran[(run_id, backend_id)])}</small></td>'
            )
        body.append(row)
    parts.append(
        table(["started", "run"] + [f"{e(b)}<br><small>new / known</small>" for b in backends], body)
    )
    if len(data.runs) > HISTORY_RUNS:
        parts.append(capped_note(HISTORY_RUNS, len(data.runs), "runs"))
    parts.append("<h2>Per backend version</h2>")
    body = []
    for (backend_id, version), run_ids in sorted(
        versions.items(), key=lambda kv: (kv[0][0], version_order(kv[0][1]))
    ):
        ordered = sorted(run_ids, key=lambda r: data.order.get(r, -1))
        last = ordered[-1]
        new, known = per_version.get((last, backend_id, version), (0, 0))
        body.append(
            [
                e(backend_id),
                e(version),
                f"<td class=num>{len(ordered)}</td>",
                e(when(data.runs[ordered[0]]["started"])),
                e(when(data.runs[last]["started"])),
                f'<td class="c {"new" if new else "known" if known else "clean"}">{new} / {known}</td>',
            ]
        )
    parts.append(
        table(
            ["backend", "version", "runs", "first run", "latest run", "new / known in its latest run"], body
        )
    )
    parts.append(changes(dash))
    dash.site.page("history.html", "History", "\n".join(parts), here="history.html")


def run_charts(dash: Context) -> str:
    """A small line chart per row: new, known and fixed divergences in each run that covered it."""
    data = dash.data
    series = trends.over_runs(data)
    rows = {row.group: row for view in VIEWS for row in data.rows_of(view)}  # a row of each group, in order
    charts = []
    for group, row in rows.items():
        points = series.get(group, [])[-CHART_RUNS:]
        if len(points) < 2:  # a line needs two runs
            continue
        labels, last = [], None
        for p in points:
            started = when(data.runs[p.run_id]["started"])[5:16]
            version = ", ".join(p.versions)
            labels.append(started if version == last else f"{started} · {version}")
            last = version
        where = (row.device or "default device") + (f" vs {row.versus}" if row.against else "")
        charts.append(
            line_chart(
                f"{row.backend_id} on {where}: divergences per run",
                labels,
                [
                    Series("new", [p.new for p in points], 0),
                    Series("known", [p.known for p in points], 1),
                    Series("fixed", [p.fixed for p in points], 2),
                ],
                "run (start, UTC; backend version where it changes)",
                "divergences (count)",
                width=440,
            )
        )
    if not charts:
        return (
            "<h2>Per row, run by run</h2><p class=muted>No row was covered by more than one run in the store: "
            "its chart of divergences run by run needs two (merge the records of another run).</p>"
        )
    return (
        "<h2>Per row, run by run</h2><p class=muted>New (solid line, circles), known (dashed, squares) and "
        "fixed since the row's run before (dotted, triangles: the divergences of that run this one no longer "
        f"shows, among the operations it checked). The last {CHART_RUNS} runs of each row at most.</p>"
        f"<div class=charts>{''.join(charts)}</div>"
    )


def changes(dash: Context) -> str:
    """New and fixed divergences per (row, family) between its latest and previous run."""
    data = dash.data
    previous_runs = sorted(set(data.previous.values()))
    before = defaultdict(dict)
    for d in data.divergences(previous_runs):
        before[(d.run_id, (d.backend_id, d.version, d.device, data.against(d.reference)), d.family)][
            d.key
        ] = d
    parts = [
        "<h2>Since the previous run</h2>",
        "<p>For each backend, device and family: divergences of the latest run that the run before it did not "
        "show (<b>new since</b>), and divergences of the run before that the latest run no longer shows for "
        "an operation it checked (<b>fixed since</b>). Hypothesis specs draw other examples in each run, so "
        "a divergence that comes and goes may just not have been drawn.</p>",
    ]
    any_change = False
    ordered = sorted(
        data.cells.items(),
        key=lambda kv: (kv[0][0][0], version_order(kv[0][0][1]), kv[0][0][2] or "", kv[0][0][3], kv[0][1]),
    )
    for (key, family), cell in ordered:
        if (key, family) not in data.previous:
            continue
        previous = data.previous[(key, family)]
        old = before[(previous, key, family)]
        now = {d.key: d for d in cell.divergences}
        appeared = [d for k, d in now.items() if k not in old]
        fixed = [d for k, d in old.items() if k not in now and d.op in cell.cases]
        if not appeared and not fixed:
            continue
        any_change = True
        row = data.rows[key]
        parts.append(
            f"<h3>{e(row.label())} · {e(family)}</h3><p class=muted>latest: {short_run(data, cell.run_id)}; "
            f"previous: {short_run(data, previous)}</p>"
        )
        for label, items in (
            ("new since the previous run", appeared),
            ("fixed since the previous run", fixed),
        ):
            if items:
                items = sorted(items, key=lambda d: (d.status != "new", d.op, d.inputs))
                linked = label.startswith("new")  # a fixed one is shown nowhere any more
                lines = [divergence_line(dash, d, "", linked=linked) for d in items[:CHANGES_CAP]]
                parts.append(
                    f"<details{' open' if len(items) <= 5 else ''}><summary><b>{label}</b> ({len(items)})"
                    f"</summary>"
                    + table(LIST_HEADERS, lines)
                    + capped_note(CHANGES_CAP, len(items), "entries")
                    + "</details>"
                )
    if not any_change:
        parts.append(
            "<p class=muted>No backend and family has changed between its two latest runs "
            "(or none was run twice).</p>"
        )
    return "\n".join(parts)
