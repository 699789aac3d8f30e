"""How much of the Array API standard each row of the main matrix checked (compat.results.coverage):
per row, "N of 135 functions, M operator forms checked", and each function and operator form as
checked, declared unsupported (with the adapter's reason) or not checked there."""

from __future__ import annotations

from compat.core import standard
from compat.dashboard.charts.heatmap import Block, State, heatmap
from compat.dashboard.context import Context
from compat.dashboard.html import e, table
from compat.results import coverage as coverage_module


def rows_coverage(dash: Context) -> list[tuple[str, coverage_module.Coverage]]:
    """(row label, coverage) for each row of the main matrix: the latest run covering each family."""
    data = dash.data
    found = []
    for row in data.rows_of(""):
        cells = [cell for (key, _), cell in data.cells.items() if key == row.key]
        label = f"{row.backend_id} {row.version}" + (f" on {row.device}" if row.device else "")
        (covered,) = coverage_module.coverage([(label, cell.cases, cell.unsupported) for cell in cells]) or [
            coverage_module.Coverage(label)
        ]
        found.append((label, covered))
    return found


def summary(dash: Context) -> str:
    """The index's lines: each row's count, linking the page."""
    found = rows_coverage(dash)
    if not found:
        return ""
    rows = [[e(label), e(covered.line())] for label, covered in found]
    return (
        f"<h2>The Array API standard {standard.VERSION}</h2><p>What each row checked of the standard's "
        f"main namespace and of compat's operator forms; the "
        f'<a href="coverage.html">coverage page</a> lists every function.</p>'
        + table(["row", "checked"], rows)
    )


def cell(name: str, covered: coverage_module.Coverage) -> str:
    if name in covered.checked:
        ops = ", ".join(sorted(covered.checked[name]))
        return f'<td class="c clean" title="{e(ops)}">checked</td>'
    implemented = coverage_module.implementations(name)
    reasons = [covered.unsupported[op] for op in implemented if op in covered.unsupported]
    if implemented and len(reasons) == len(implemented):
        return f'<td class="c known" title="{e(reasons[0])}">unsupported<small>{e(reasons[0])}</small></td>'
    if not implemented:
        return '<td class="c notrun">not in compat</td>'
    return '<td class="c notrun">not checked</td>'


STATES = [
    State("checked", "hm-checked"),
    State(
        "unsupported",
        "hm-unsupported",
        '<path d="M0 6L6 0M-1 1L1 -1M5 7L7 5" stroke="#5c3d00" stroke-width="1.2"/>',
    ),
    State("not checked", "hm-notchecked"),
    State("not in compat", "hm-absent", '<circle cx="3" cy="3" r="1.1" fill="#475467"/>'),
]
STATE_OF_CELL = {"clean": 0, "known": 1}  # cell()'s classes; "notrun" reads its text


def heat_map(found: list[tuple[str, coverage_module.Coverage]]) -> str:
    """Functions and operator forms down, rows across: checked, unsupported, not checked, not in compat."""
    sections: dict[str, list[str]] = {}
    for name in standard.FUNCTIONS:
        sections.setdefault(standard.section(name) or "other", []).append(name)
    elementwise = sections.pop("elementwise", [])
    blocks = [
        Block(f"Elementwise functions ({len(elementwise)})", [("", elementwise)]),
        Block(f"Other functions ({sum(map(len, sections.values()))})", list(sections.items())),
        Block(
            f"Operator forms ({len(coverage_module.operator_forms())})",
            [("", coverage_module.operator_forms())],
        ),
    ]

    def state_of(name: str, column: int) -> int:
        html = cell(name, found[column][1])
        cls = html.split('class="c ')[1].split('"')[0]
        return STATE_OF_CELL.get(cls, 3 if "not in compat" in html else 2)

    labels = [label for label, _ in found]
    checked = ", ".join(f"{label}: {covered.line()}" for label, covered in found)
    return heatmap(
        f"The Array API standard {standard.VERSION} by row: what each row checked",
        blocks,
        labels,
        STATES,
        state_of,
        f"Each function and operator form per row, as checked, unsupported, not checked or not in compat. {checked}",
        uid="cov",
    )


def coverage(dash: Context) -> None:
    found = rows_coverage(dash)
    names = [*standard.FUNCTIONS, *coverage_module.operator_forms()]
    grid = [
        [f"<code>{e(name)}</code>", e(standard.section(name) or coverage_module.OPERATOR)]
        + [cell(name, covered) for _, covered in found]
        for name in names
    ]
    body = [
        f"<h1>The Array API standard {standard.VERSION}: what each row checked</h1>",
        "<p class=lead>Each of the standard's 135 main-namespace functions and each operator form of "
        "compat's table, per row of the matrix (the latest run covering each family): <b>checked</b> where "
        "a case of it was judged there, <b>unsupported</b> where the adapter declares it so (the reason "
        "below), <b>not checked</b> where no case was judged (no spec checks it, or the run left it out), "
        "<b>not in compat</b> where compat's table has no such operation. The heat map shows it all at a "
        "glance (dark: checked, hatched: unsupported, white: not checked, dotted: not in compat); the tables "
        "below give the counts, and each unsupported function's reason.</p>",
        heat_map(found) if found else "<p class=muted>No row in the store checked a case.</p>",
        table(["row"] + ["checked"], [[e(label), e(covered.line())] for label, covered in found]),
        table(["function", "section", *(e(label) for label, _ in found)], grid, "matrix"),
    ]
    dash.site.page("coverage.html", "Coverage of the standard", "\n".join(body), here="coverage.html")
