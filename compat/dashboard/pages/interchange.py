"""Arrays moved between backends through DLPack (compat.results.interchange_table) in the latest
run that checked them: producer x consuming row, each cell = (every dtype, layout and copy=
kept every bit), the crossings that did not (known / new), or - (not checked)."""

from __future__ import annotations

from compat.dashboard.context import Context
from compat.dashboard.html import e, table
from compat.dashboard.pages.special_cases import cell
from compat.results import interchange_table

PAGE, TITLE = "interchange.html", "Interchange"


def interchange(dash: Context) -> None:
    run = dash.data.latest_of_spec(interchange_table.FAMILY, interchange_table.SPEC)
    headers, body = interchange_table.rows_and_columns(run) if run is not None else ([], [])
    if run is None or not body:  # the navigation links the page from every page
        body_html = (
            "<h1>Interchange</h1><p class=lead>No run in the store imported arrays between backends "
            f"({e(interchange_table.SPEC)}, family interchange).</p>"
        )
        dash.site.page(PAGE, TITLE, body_html, here=PAGE)
        return
    grid = [[f"<code>{e(row[0])}</code>"] + [cell(text) for text in row[1:]] for row in body]
    page = [
        "<h1>Interchange</h1>",
        f"<p class=lead>Run {e(run.run_id)}: each row's from_dlpack of every producer's array, of every "
        "dtype, as made, transposed and sliced, with copy= None, True and False. <b>=</b> every crossing "
        "kept dtype, shape and every bit; <b>known:n</b> / <b>new:n</b> crossings that did not "
        "(registered or not); <b>-</b> not checked.</p>",
        table([e(h) for h in headers], grid, "matrix"),
    ]
    dash.site.page(PAGE, TITLE, "\n".join(page), here=PAGE)
