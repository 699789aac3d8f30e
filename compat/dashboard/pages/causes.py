"""Divergences by cause (compat.dashboard.causes): per matrix row a bar chart of its causes,
largest first, each bar leading to the cause's page; and a page per cause (c/*.html): the registry
entry or the new cause, and per row every divergence of it with its minimal example and a
reproducer, so that no known divergence needs a page of its own."""

from __future__ import annotations

from compat.dashboard.causes import CausePage, Line, cause_path
from compat.dashboard.charts.bars import Bar, bar_chart
from compat.dashboard.context import Context
from compat.dashboard.data import VIEWS, MatrixRow, StoredDivergence
from compat.dashboard.html import e, facts_table, slug, t, table
from compat.dashboard.pages.common import inputs_html, short_run

PAGE = "causes.html"
BARS_SHOWN = 12  # causes drawn per row; the table under the charts lists every one
INPUTS_CAP = 200  # input signatures of a line (python -m compat report --all lists every one)
EXAMPLE_CHARS = 160  # of a minimal example written beside its line; a longer one is cut, marked …
VIEW_NAMES = {"": "against NumPy", "device": "against the reference device", "mode": "against eager"}
VIEW_HEADINGS = {
    "": "Against NumPy",
    "device": "Devices against their reference device",
    "mode": "Execution modes against eager",
}
MEANING = {
    "known": "a registry entry: documented, accepted divergences",
    "new": "divergences no registry entry covers: probably one bug (of the backend, or of its adapter)",
    "standard": "divergences from NumPy where the row gives the result the standard states",
    "contract": "differences a clause of the device's documented contract allows (compat/core/contracts.py)",
}


def row_anchor(row: MatrixRow) -> str:
    return f"r{slug(*row.key)[:10]}"


def causes(dash: Context) -> None:
    """The causes page and a page per cause."""
    wanted = [
        d.record_id
        for page in dash.causes.pages.values()
        for line in page.lines.values()
        for d in firsts(dash, line).values()
    ]
    bodies = dash.data.bodies(wanted)
    for page in dash.causes.pages.values():
        cause_page(dash, page, bodies)
    overview(dash)


def overview(dash: Context) -> None:
    data = dash.data
    parts = [
        "<h1>Divergences by cause</h1>",
        "<p class=lead>A run keeps one record per signature (operation, input dtypes, what differs), so that "
        "each shrinks to its own minimal example; a reader acts on causes. A known divergence's cause is its "
        "registry entry; a new one's is what one entry or bug report would cover: the row, the operation's "
        "group, the kind, and the two outcomes (an error by its class and the shape of its message). Per "
        "row of each matrix, the distinct divergences of its cells by cause, largest first; a bar leads "
        "to the cause's page. Bars are dark for <b>new</b>, light for <b>known</b>, and say which.</p>",
    ]
    drawn = 0
    for view in VIEWS:
        rows = [r for r in data.rows_of(view) if dash.causes.row_groups(r)]
        if rows:
            parts.append(f"<h2>{VIEW_HEADINGS[view]}</h2>")
        for row in rows:
            groups = dash.causes.row_groups(row)
            total = sum(len(g.records) for g in groups)
            bars = [
                Bar(g.name, len(g.records), f"{cause_path(g)}#{row_anchor(row)}", g.status)
                for g in groups[:BARS_SHOWN]
            ]
            summary = "; ".join(f"{g.name}: {len(g.records)}" for g in groups)
            parts.append(
                f'<div id="{row_anchor(row)}">'
                + bar_chart(
                    f"{row.label()}: {total} divergences in {len(groups)} cause{'s' * (len(groups) != 1)}",
                    bars,
                    "distinct divergences (count)",
                    summary,
                )
            )
            rest = groups[BARS_SHOWN:]
            if rest:
                listed = ", ".join(
                    f'<a href="{cause_path(g)}#{row_anchor(row)}">{e(g.name)}</a> ({len(g.records)} {e(g.status)})'
                    for g in rest
                )
                parts.append(f"<p class=more>and {len(rest)} more: {listed}</p>")
            parts.append("</div>")
            drawn += 1
    if not drawn:
        parts.append("<p class=muted>No divergence in the matrices: nothing to count by cause.</p>")
    dash.site.page(PAGE, "Causes", "\n".join(parts), here=PAGE)


def cause_page(dash: Context, page: CausePage, bodies: dict[int, dict]) -> None:
    """The cause, then per row its lines: the divergences of one operation that differ only in their
    inputs, with the minimal example of the first; a reproducer per framework, its smallest here."""
    data = dash.data
    parts = [
        f"<h1>{e(page.name)}</h1>",
        f'<p><span class="badge {e(page.status)}">{e(page.status)}</span> {e(MEANING.get(page.status, ""))}: '
        f"{page.size()} distinct divergence(s) on {len(page.rows)} row(s). Back to "
        f'<a href="../{PAGE}">causes</a>.</p>',
    ]
    first = next(iter(page.lines.values())).divergences[0]
    if page.known:
        parts.append(entry_facts(dash, page.name, first.run_id))
    elif page.cause is not None:
        parts.append(
            facts_table(
                [
                    ("row", e(page.cause.where)),
                    ("operations", f"group <code>{e(page.cause.group)}</code>"),
                    ("kind", e(page.cause.kind)),
                    ("expected", e(page.cause.expected)),
                    ("actual", e(page.cause.actual)),
                ]
            )
            + "<p>No registry entry covers it. If the difference is intended, document it in the registry "
            "(<code>compat/results/known/</code>, or your own with <code>--compat-registry</code>) "
            "with a reason and a source: "
            "<code>python -m compat known add</code> writes a stub per new divergence.</p>"
        )
    rows = {key: data.rows[key] for key in page.rows}
    runs = sorted(
        {lines[0].divergences[0].run_id for lines in page.rows.values()}, key=data.order.__getitem__
    )
    parts.append(
        f"<h2>Rows</h2><p class=muted>From {', '.join(short_run(data, r) for r in runs)}.</p>"
        + table(
            ["row", "divergences"],
            [
                [
                    f'<td id="{row_anchor(row)}">{e(row.label())} <small>{e(VIEW_NAMES[row.view])}</small></td>',
                    f"<td class=num>{sum(len(line.divergences) for line in page.rows[key])}</td>",
                ]
                for key, row in rows.items()
            ],
        )
    )
    several = len(rows) > 1
    parts.append(
        "<h2>Divergences</h2><p class=muted>A line: an operation's divergences that differ only in their inputs"
        + (", on the rows it names" if several else "")
        + "; the minimal example of the first. Inputs in bold have a page of their own.</p>"
    )
    smallest: dict[str, tuple] = {}  # framework -> (size, divergence, reproducer)
    body = []
    for line in page.lines.values():
        record = bodies.get(line.divergences[0].record_id, {})
        cells = signature_line(dash, line, record)
        if several:
            shown = {data.row_key(d) for d in line.divergences}
            cells.insert(5, ", ".join(e(short_row(row)) for key, row in rows.items() if key in shown))
        body.append(cells)
        for framework, d in firsts(dash, line).items():
            reproducer = bodies.get(d.record_id, {}).get("reproducer") or ""
            if reproducer and (framework not in smallest or len(reproducer) < smallest[framework][0]):
                smallest[framework] = (len(reproducer), d, reproducer)
    headers = [
        "family",
        "op",
        "kind",
        "inputs",
        "expected &rarr; actual",
        "examples",
        "minimal example (its start: …)",
    ]
    parts.append(table(headers[:5] + ["rows"] * several + headers[5:], body))
    if smallest:
        parts.append(
            "<h2>Reproducers</h2><p class=muted>The smallest here of each framework: runs from a checkout of "
            "compat (or with compat installed) and prints both results.</p>"
        )
    for k, (_, d, reproducer) in enumerate(smallest.values()):
        ident = "repro" if k == 0 else f"repro-{k}"
        parts.append(
            f"<h3>{e(data.rows[data.row_key(d)].label())}: <code>{e(d.op)}({e(d.inputs)})</code> "
            f"<button type=button onclick=\"copyRepro(this,'{ident}')\">Copy</button></h3>"
            f'<pre id="{ident}">{t(reproducer)}</pre>'
        )
    dash.site.page(page.path, page.name, "\n".join(parts), here=PAGE, copies=bool(smallest))


def firsts(dash: Context, line: Line) -> dict[str, StoredDivergence]:
    """A line's first divergence of each framework (whose reproducers the page may show)."""
    found: dict[str, StoredDivergence] = {}
    for d in line.divergences:
        found.setdefault(dash.data.rows[dash.data.row_key(d)].name, d)
    return found


def short_row(row: MatrixRow) -> str:
    """A row as a line of the cause's page names it: its id, version and device."""
    return (
        f"{row.backend_id} {row.version}"
        + (f" on {row.device}" if row.device else "")
        + (f" vs {row.versus}" if row.against else "")
    )


def signature_line(dash: Context, line: Line, record: dict) -> list[str]:
    example = record.get("example") or {}
    source = "\n".join(f"{name} = {value}" for name, value in (example.get("inputs") or {}).items())
    text = (source + "\n" if source else "") + str(example.get("call") or "")
    if len(text) > EXAMPLE_CHARS:
        text = text[: EXAMPLE_CHARS - 1] + "…"
    return [
        f'<td id="{line.anchor}">{e(line.family)}</td>',
        f"<code>{e(line.op)}</code>",
        e(line.kind),
        inputs_html(dash, line, "../", INPUTS_CAP),
        f"{e(line.expected)} &rarr; {e(line.actual)}",
        f"<td class=num>{line.count}</td>",
        f"<pre class=ex>{t(text)}</pre>" if text else "",
    ]


def entry_facts(dash: Context, entry_id: str, run_id: str) -> str:
    entry = dash.entry(run_id, entry_id)
    if entry is None:
        return f"<p>Registry entry <code>{e(entry_id)}</code> (not in the registry found for this run).</p>"
    source = (
        f'<a href="{e(entry.source)}">{e(entry.source)}</a>'
        if entry.source.startswith(("https://", "http://"))
        else e(entry.source or "none given")
    )
    return facts_table(
        [
            ("entry", f"<code>{e(entry.id)}</code>"),
            ("backend", e(entry.backend)),
            ("differs", e(entry.differs)),
            ("reason", e(entry.reason)),
            ("source", source),
        ]
        + ([("versions", e(entry.versions))] if entry.versions else [])
    )
