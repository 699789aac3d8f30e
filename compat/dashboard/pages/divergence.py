"""A page per divergence: minimal example, expected against actual, reproducer, registry entry."""

from __future__ import annotations

import json

from compat.dashboard.context import Context
from compat.dashboard.data import MatrixRow, StoredDivergence
from compat.dashboard.html import e, facts_table, t, table
from compat.dashboard.pages.common import VIEW_PAGES, list_path, outcome_rows, run_line


def divergence_pages(dash: Context) -> None:
    for d, record in dash.paged:
        divergence_page(dash, d, record)


def divergence_page(dash: Context, d: StoredDivergence, record: dict) -> None:
    backend = record["backend"]
    title = f"{d.backend_id} {d.op}({d.inputs}): {d.kind}"
    cell_row = MatrixRow(d.backend_id, d.version, d.device, dash.data.against(d.reference))
    meaning = {
        "new": "a divergence the registry does not know: probably a bug of the backend (or of its adapter)",
        "standard": "differs from NumPy and gives the result the standard states: "
        + e(record.get("follows") or ""),
        "contract": "differs, as the device's documented contract allows: " + e(record.get("contract") or ""),
    }.get(d.status, "a known, documented divergence")
    parts = [
        f"<h1>{e(title)}</h1>",
        f'<p><span class="badge {e(d.status)}">{e(d.status)}</span> {meaning} &middot; back to '
        f'<a href="../{list_path(cell_row, d.family)}">{e(d.family)} on {e(cell_row.label())}</a></p>',
    ]
    config = json.dumps(backend.get("config", {}), sort_keys=True)
    facts = [
        ("backend", f"{e(backend['id'])} {e(backend['version'])} <small>config {e(config)}</small>"),
        ("device", e(d.device or "default device")),
        ("reference", e(d.reference)),
        ("family / operation", f"{e(d.family)} / <code>{e(d.op)}</code>"),
        ("kind", e(d.kind)),
        ("signature", f"inputs <code>{e(d.inputs)}</code>: expected {e(d.expected)}, got {e(d.actual)}"),
        ("examples", f"{d.count} example(s) showed it"),
        ("spec", f"<code>{e(record.get('spec'))}</code>"),
        ("run", run_line(dash.data, d.run_id)),
    ]
    parts.append(facts_table(facts))
    parts.append("<h2>Expected vs actual</h2>")
    parts.append(
        table(
            ["", e(d.reference), e(f"{backend['id']} {backend['version']}")],
            outcome_rows(record.get("expected") or {}, record.get("actual") or {}),
        )
    )
    parts.append(f"<p><b>Detail:</b> {e(record.get('detail'))}</p>")
    example = record.get("example") or {}
    source = "\n".join(f"{name} = {value}" for name, value in (example.get("inputs") or {}).items())
    parts.append("<h2>Minimal example</h2>")
    parts.append(f"<pre>{t(source)}\n{t(example.get('call'))}</pre>")
    parts.append('<h2>Reproducer <button type=button onclick="copyRepro(this)">Copy</button></h2>')
    parts.append(
        "<p class=muted>Runs from a checkout of compat (or with compat installed) and prints both results.</p>"
    )
    parts.append(f'<pre id="repro">{t(record.get("reproducer"))}</pre>')
    parts.append("<h2>Registry</h2>")
    if d.known:
        entry = dash.registry_for(d.run_id).by_id().get(d.known)
        if entry is None:
            parts.append(
                f"<p>Matched registry entry <code>{e(d.known)}</code> (not in the registry found for "
                f"this run).</p>"
            )
        else:
            source_link = (
                f'<a href="{e(entry.source)}">{e(entry.source)}</a>'
                if entry.source.startswith(("https://", "http://"))
                else e(entry.source or "none given")
            )
            parts.append(
                facts_table(
                    [
                        ("entry", f"<code>{e(entry.id)}</code>"),
                        ("differs", e(entry.differs)),
                        ("reason", e(entry.reason)),
                        ("source", source_link),
                    ]
                )
            )
    else:
        parts.append(
            "<p>No registry entry matches. If the difference is intended, document it in the registry "
            "(<code>compat/results/known/</code>) with a reason and a source.</p>"
        )
    dash.site.page(d.page, title, "\n".join(parts), here=VIEW_PAGES[cell_row.view], copies=True)
