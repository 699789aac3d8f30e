"""What each wrapper changes (compat.results.wrapper_table): a wrapper's row (array_api_compat.torch)
beside its framework's own row (torch), the divergences from NumPy the wrapper removes and those it
adds, per family, operation, kind and registry entry, linked to the divergences' pages; and the
registry entries of the framework whose examples the wrapper's row does not reproduce."""

from __future__ import annotations

from collections import Counter, defaultdict

from compat.dashboard.context import Context
from compat.dashboard.html import e, facts_table, readable, table
from compat.dashboard.pages.common import run_line
from compat.results import aggregate, wrapper_table
from compat.results.records import Backend, Key

PAGE, TITLE = "wrappers.html", "Wrappers"
LINKS_SHOWN = 8  # divergences linked per row of the table
HEADERS = [
    "family",
    "op",
    "kind",
    "change",
    "by",
    "registry entry",
    "divergences",
    "examples",
    "inputs (signature)",
]
BY = {
    "replay": "its examples (the registry's of its entry and operation, or those the other row showed it "
    "on), replayed on the row that lacks it, diverge no more",
    "draws": "the row that lacks it drew no example that shows it, and may not have drawn the inputs that would",
}


def removed_entries(
    dash: Context, fixed: list[aggregate.Fixed], rows: dict[str, Backend]
) -> list[aggregate.Fixed]:
    """Of the store's fixed entries, those a wrapper of ``rows`` (Data.wrapper_rows) removes
    (aggregate.removed_by_wrappers), by the registry of the store's latest run."""
    if not fixed or not rows:
        return []
    registry = dash.registry_for(list(dash.data.runs)[-1])
    return aggregate.removed_by_wrappers(fixed, rows, registry)


def change_row(dash: Context, change: wrapper_table.Change) -> list[str]:
    added = change.entry if change.entry in ("new", "standard") else "known"  # the colours of the matrix
    cls = {wrapper_table.REMOVED: "clean", wrapper_table.UNCONFIRMED: "muted"}.get(change.change, added)
    links = [
        f'<a href="{page}"><code>{e(key.inputs)}</code></a>'
        if (page := dash.href_of(key, change.version))
        else f"<code>{e(key.inputs)}</code>"
        for key, _ in change.divergences[:LINKS_SHOWN]
    ]
    more = len(change.divergences) - LINKS_SHOWN
    return [
        e(change.family),
        e(change.op),
        e(change.kind),
        f'<td class="c {cls}">{e(change.change)}</td>',
        f'<td title="{e(BY[wrapper_table.evidence(change)])}">{e(wrapper_table.evidence(change))}</td>',
        e(change.entry),
        f"<td class=num>{len(change.divergences)}</td>",
        f"<td class=num>{change.examples}</td>",
        ", ".join(links) + (f" <small>and {more} more</small>" if more > 0 else ""),
    ]


def wrapper_section(dash: Context, wrapper: str, wrapped: str, removed: list[aggregate.Fixed]) -> list[str]:
    data = dash.data
    run, runs = data.wrapper_run(wrapper, wrapped)
    families = wrapper_table.compared(run).get((wrapper, wrapped), {})
    found = [c for c in wrapper_table.changes(run) if c.wrapper == wrapper]
    versions = {
        row: sorted({r.backend.version for r in run.checks if r.backend.id == row})
        for row in (wrapper, wrapped)
    }
    parts = [f'<h2 id="{readable(wrapper)}">{e(wrapper)} beside {e(wrapped)}</h2>']
    if not families:
        return parts + [
            "<p class=muted>No run in the store checked an operation of one family on both rows, on the "
            "default device, eagerly.</p>"
        ]
    ops = sum(len(o) for o in families.values())
    parts.append(
        facts_table(
            [
                (
                    "rows compared",
                    " beside ".join(
                        f"{e(row)} " + " ".join(f"<span class=ver>{e(v)}</span>" for v in versions[row])
                        for row in (wrapper, wrapped)
                    ),
                ),
                ("device, mode", "default device, eager"),
                (
                    "runs",
                    "<br>".join(
                        f"{run_line(data, run_id)}: {e(', '.join(f for f in families if runs[f] == run_id))}"
                        for run_id in sorted({runs[f] for f in families}, key=data.order.__getitem__)
                    ),
                ),
                (
                    "operations both rows checked",
                    f"<details><summary>{ops} in {len(families)} families</summary>"
                    + "<br>".join(f"<b>{e(family)}</b>: {e(', '.join(o))}" for family, o in families.items())
                    + "</details>",
                ),
            ]
        )
    )
    said = Counter(c.change for c in found)
    parts.append(
        f"<p>{said[wrapper_table.REMOVED]} signature(s) removed, {said[wrapper_table.ADDED]} added (by "
        f"replay), {said[wrapper_table.UNCONFIRMED]} unconfirmed (one row shows them, the other drew no "
        "example that does, and no replay settles it).</p>"
        if found
        else "<p class=muted>The wrapper neither removes nor adds a divergence there.</p>"
    )
    if found:
        parts.append(table(HEADERS, [change_row(dash, c) for c in found]))
    mine = [f for f in removed if f.backend == wrapper]
    if mine:
        still: defaultdict[str, set[Key]] = defaultdict(set)  # entry -> its divergences on the wrapper's row
        for d in run.divergences:
            if d.backend.id == wrapper and d.known and not d.against_device:
                still[d.known].add(d.key)
        parts.append(
            f"<h3>Registry entries of {e(wrapped)} the wrapper removes ({len(mine)})</h3>"
            "<p class=muted>Every run replays each registry entry's examples on every row; these entries' "
            f"examples diverge no more on the wrapper's row. They are not fixed in {e(wrapped)} (the "
            "Versions page leaves them out of its fixed entries). Where drawn examples of the wrapper's "
            "row still matched the entry, the wrapper removes only part of it: the last column counts "
            "them, per operation.</p>"
            + table(
                ["registry entry", "wrapper version", "device", "still on the wrapper's row"],
                [
                    [
                        e(f.id),
                        f"<span class=ver>{e(f.version)}</span>",
                        e(f.device or "default device"),
                        e(
                            ", ".join(
                                f"{op} ({n})" for op, n in sorted(Counter(k.op for k in still[f.id]).items())
                            )
                        )
                        or "none",
                    ]
                    for f in mine
                ],
            )
        )
    return parts


def wrappers(dash: Context) -> None:
    rows = dash.data.wrapper_rows()
    parts = [
        "<h1>Wrappers: what a wrapper changes of its framework</h1>",
        "<p class=lead>A namespace that wraps a framework (<code>array-api:array_api_compat.torch</code> wraps "
        "<code>torch</code>) against that framework's own row, per family from the latest run that checked "
        "the family on both rows, on the default device, eagerly. Per signature of the divergences from "
        "NumPy (family, operation, kind and the registry entry they matched, or <i>new</i>): "
        "<b>removed</b>, the framework's row shows it and the wrapper's does not; <b>added</b>, only the "
        "wrapper's shows it; each <b>by replay</b>: the registry examples of its entry and operation, or "
        "the minimal examples the other row showed it on (replayed at the end of the run), diverge no more "
        "on the row that lacks it (one that diverges alike puts it on both rows: no change). "
        "<b>unconfirmed</b>, one row shows it and the other drew no example that does, and no replay settles "
        "it (<b>by draws</b>): a wrapper's row checks a share of the examples, and the two rows draw "
        "different dtypes. Only operations both rows checked count. Click an input signature for the "
        "divergence's page (the framework's for a removal, the wrapper's for an addition).</p>",
    ]
    if not rows:
        parts.append(
            "<p class=muted>No run in the store has a wrapper's row (e.g. <code>--backends "
            "torch,array-api:array_api_compat.torch</code>).</p>"
        )
    removed = removed_entries(dash, dash.data.fixed(), rows)
    for wrapper, backend in sorted(rows.items()):
        if backend.wraps is not None:
            parts += wrapper_section(dash, wrapper, backend.wraps.id, removed)
    dash.site.page(PAGE, TITLE, "\n".join(parts), here=PAGE)
