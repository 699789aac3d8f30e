"""Each execution mode (compiled or lazy) against the same backend run eagerly."""

from __future__ import annotations

from compat.dashboard.context import Context
from compat.dashboard.html import LEGEND, capped_note, e, table
from compat.dashboard.pages.common import LIST_HEADERS, divergence_line, matrix

MODE_LIST_CAP = 25  # divergences from eager listed per mode row (its cells list all of them)
HEADERS = ["family"] + LIST_HEADERS[:4] + ["eager &rarr; mode (signature)"] + LIST_HEADERS[5:]


def modes(dash: Context) -> None:
    data = dash.data
    rows = data.rows_of("mode")
    parts = [
        "<h1>Execution modes</h1>",
        "<p class=lead>Each compiled or lazy row (<code>jax.jit</code>, <code>tf.function</code>, XLA, "
        "<code>torch.compile</code>, lazy tensors) against the same backend run eagerly: single operations "
        "must agree bit for bit, accumulations and gradient programs within the oracle's bounds. The same "
        "colours as the main matrix, eager in place of NumPy; a cell counts every case the mode checked "
        "(each was compared with eager too). The row's divergences from NumPy are in the "
        '<a href="index.html">main matrix</a>.</p>',
        LEGEND,
        matrix(data, rows, view="mode"),
    ]
    if rows:
        parts.append(
            "<h2>Divergences from eager</h2>"
            "<p>Per mode row, the distinct divergences of the latest runs in the matrix, new ones first. "
            "Click an operation for the divergence's page, a cell above for the whole list.</p>"
        )
    unlinked = False
    for row in rows:
        found = sorted(
            (d for (key, _), cell in data.cells.items() if key == row.key for d in cell.divergences),
            key=lambda d: (d.status != "new", d.family, d.op, d.kind, d.inputs),
        )
        new = sum(1 for d in found if d.status == "new")
        parts.append(f"<h3>{e(row.label())}</h3>")
        if not found:
            parts.append("<p class=muted>No divergence from eager.</p>")
            continue
        parts.append(f"<p class=muted>{new} new and {len(found) - new} known distinct divergence(s)</p>")
        lines = [
            [e(d.family)] + divergence_line(dash, d, "", reference="mode:eager")
            for d in found[:MODE_LIST_CAP]
        ]
        parts.append(table(HEADERS, lines) + capped_note(MODE_LIST_CAP, len(found), "divergences"))
        unlinked = unlinked or any(dash.href(d) is None for d in found[:MODE_LIST_CAP])
    if unlinked:
        parts.append(
            f"<p class=muted>Operations without a link have no page: to keep the dashboard small, pages "
            f"are written for {len(dash.pages)} divergences, new ones first.</p>"
        )
    dash.site.page("modes.html", "Execution modes", "\n".join(parts), here="modes.html")
