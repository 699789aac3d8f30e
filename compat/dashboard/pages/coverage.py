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


CHECKED, UNSUPPORTED, NOT_CHECKED, ABSENT = range(4)  # the states of a function on a row (STATES)


def state(name: str, covered: coverage_module.Coverage, implemented: list[str]) -> tuple[int, str]:
    """The function's state on a row, and what says why: the operations that checked it, the
    adapter's reason it is unsupported (``implemented``: its operations in compat's table)."""
    if name in covered.checked:
        return CHECKED, ", ".join(sorted(covered.checked[name]))
    reasons = [covered.unsupported[op] for op in implemented if op in covered.unsupported]
    if implemented and len(reasons) == len(implemented):
        return UNSUPPORTED, reasons[0]
    return (NOT_CHECKED, "") if implemented else (ABSENT, "")


def cell(found: tuple[int, str]) -> str:
    kind, why = found
    if kind == CHECKED:
        return f'<td class="c clean" title="{e(why)}">checked</td>'
    if kind == UNSUPPORTED:
        return f'<td class="c known" title="{e(why)}">unsupported<small>{e(why)}</small></td>'
    return (
        '<td class="c notrun">not in compat</td>'
        if kind == ABSENT
        else '<td class="c notrun">not checked</td>'
    )


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


def heat_map(found: list[tuple[str, coverage_module.Coverage]], states: dict[tuple[str, int], tuple]) -> str:
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
        return states[(name, column)][0]

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
    implemented = {name: coverage_module.implementations(name) for name in names}  # a scan of the table each
    states = {
        (name, j): state(name, covered, implemented[name])
        for name in names
        for j, (_, covered) in enumerate(found)
    }
    grid = [
        [f"<code>{e(name)}</code>", e(standard.section(name) or coverage_module.OPERATOR)]
        + [cell(states[(name, j)]) for j in range(len(found))]
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
        heat_map(found, states) if found else "<p class=muted>No row in the store checked a case.</p>",
        table(["row"] + ["checked"], [[e(label), e(covered.line())] for label, covered in found]),
        table(["function", "section", *(e(label) for label, _ in found)], grid, "matrix"),
    ]
    dash.site.page("coverage.html", "Coverage of the standard", "\n".join(body), here="coverage.html")
