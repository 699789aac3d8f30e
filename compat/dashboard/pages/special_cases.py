"""The standard's special cases x rows (compat.results.special_cases_table) of the latest run that
checked them: per function its clauses, per row agrees / follows the standard where NumPy does not
/ known / new, NumPy's row against the standard; each clause that is not ``=`` on expansion."""

from __future__ import annotations

from compat.dashboard.context import Context
from compat.dashboard.html import e, table
from compat.results import special_cases_table

CLASSES = {"=": "clean", "-": "notrun"}


def cell(text: str) -> str:
    """A cell coloured by its worst part: new, known (or NumPy's departure), following the standard."""
    worst = "new" if "new:" in text else "known" if ("known:" in text or "dep:" in text) else "standard"
    cls = CLASSES.get(text, worst)
    return f'<td class="c {cls}">{e(text)}</td>'


def special_cases(dash: Context) -> None:
    run = dash.data.latest_of_spec(special_cases_table.FAMILY, special_cases_table.SPEC)
    if run is None:  # the navigation links the page from every page
        body = (
            "<h1>The standard's special cases</h1><p class=lead>No run in the store checked them "
            "(test_every_special_case_of_the_standard, family special_cases).</p>"
        )
        dash.site.page("special-cases.html", "Special cases", body, here="special-cases.html")
        return
    headers, body = special_cases_table.rows_and_columns(run)
    grid = [[f"<code>{e(row[0])}</code>"] + [cell(text) for text in row[1:]] for row in body]
    details = special_cases_table.details(run)
    page = [
        "<h1>The standard's special cases</h1>",
        f"<p class=lead>Run {e(run.run_id)}: each special-case clause of the standard's elementwise "
        "functions (compat/core/special-cases.toml), per function and row. <b>=</b> agrees with NumPy; "
        "<b>std:n</b> n clauses where the row follows the standard and NumPy does not; <b>known:n</b> / "
        "<b>new:n</b> differs from NumPy and from the standard (registered or not); <b>dep:n</b> NumPy "
        "departs from the standard; <b>-</b> not checked on that row.</p>",
        table([e(h) for h in headers], grid, "matrix"),
        f"<details><summary>{len(details)} clauses not agreeing with NumPy (known ones: the registry)"
        "</summary><ul>" + "".join(f"<li>{e(line.strip())}</li>" for line in details) + "</ul></details>",
    ]
    dash.site.page("special-cases.html", "Special cases", "\n".join(page), here="special-cases.html")
