"""What changed from one version of a backend to the next."""

from __future__ import annotations

import itertools

from compat.dashboard.charts.lines import Series, line_chart
from compat.dashboard.context import Context
from compat.dashboard.data import VIEWS, MatrixRow
from compat.dashboard.html import LEGEND, capped_note, e, slug, table
from compat.dashboard.pages import wrappers
from compat.dashboard.pages.common import LIST_HEADERS, cell_html, divergence_line, list_path, run_line

CHANGES_CAP = 100  # entries shown per change


def versions(dash: Context) -> None:
    """What differs between the versions of a backend in the store: the latest run of each version."""
    data = dash.data
    parts = [
        "<h1>Versions: what changed from one version of a backend to the next</h1>",
        "<p class=lead>Each backend (with its configuration) on a device that the store holds at more than "
        "one version, as a tox env or CI job per version leaves it: first the latest run of each version, "
        "family by family, in the colours of the matrix; then, from each version to the next, the "
        "divergences that <b>appeared</b> (the newer version shows them, the older did not) and those "
        "<b>gone</b> (the older version showed them, the newer does not), among the operations both "
        "checked. Runs of the derandomized <code>ci</code> Hypothesis profile (tox's envs use it) draw the "
        "same examples for every version (until a spec's draws depend on the backend's answers), so what "
        "differs is mostly the version's doing; in runs of other profiles each run draws other examples, "
        "and a divergence seen in few examples may just not have been drawn in the other run (the "
        "examples column says how often it was seen).</p>",
        LEGEND,
    ]
    fixed = data.fixed()
    removed = wrappers.removed_entries(dash, fixed, data.wrapper_rows())
    fixed = [f for f in fixed if f not in removed]
    if removed:
        parts.append(
            f"<p class=muted>{len(removed)} registry entr{'ies' if len(removed) > 1 else 'y'} of a framework "
            "whose examples do not diverge on a wrapper's row (array_api_compat.torch of torch's) "
            'are not fixed: the wrapper removes them (the <a href="wrappers.html">Wrappers</a> page).</p>'
        )
    if fixed:
        parts.append(
            "<h2>Fixed: registry entries whose examples no longer diverge</h2>"
            "<p class=muted>Every run replays each registry entry's examples first; these showed no "
            "divergence of their entry any more on the version named. Narrow the entry's "
            "<code>versions</code> or remove it.</p>"
        )
        parts.append(
            table(
                ["registry entry", "fixed in", "backend", "device"],
                [
                    [
                        e(f.id),
                        f"{e(f.name)} <span class=ver>{e(f.version)}</span>",
                        e(f.backend),
                        e(f.device or ""),
                    ]
                    for f in fixed
                ],
            )
        )
    groups = [rows for view in VIEWS for rows in data.version_groups(view)]
    if not groups:
        parts.append(
            "<p class=muted>No backend was run at more than one version. Run one env or CI job per "
            "version (e.g. <code>tox -p -e jax,jax-previous,dashboard</code>) and merge their records "
            "into one store.</p>"
        )
    for rows in groups:
        first = rows[0]
        where = (first.device or "default device") + (f" vs {first.versus}" if first.against else "")
        steps = list(itertools.pairwise(rows))
        families = sorted({family for (key, family) in data.cells if key in {r.key for r in rows}})
        diffs = {
            (a.version, b.version, family): version_step(dash, a, b, family)
            for a, b in steps
            for family in families
        }
        parts.append(
            f"<h2>{e(first.backend_id)} on {e(where)}: "
            + " &rarr; ".join(f"<span class=ver>{e(r.version)}</span>" for r in rows)
            + "</h2>"
        )
        head = (
            ["family"]
            + [f"{e(r.backend_id)} <span class=ver>{e(r.version)}</span>" for r in rows]
            + [
                f"changes <span class=ver>{e(a.version)}</span> &rarr; <span class=ver>{e(b.version)}</span>"
                for a, b in steps
            ]
        )
        body = []
        for family in families:
            cells = [f"<th>{e(family)}</th>"]
            cells += [
                cell_html(data.cells.get((r.key, family)), list_path(r, family), data=data) for r in rows
            ]
            for a, b in steps:
                diff = diffs[(a.version, b.version, family)]
                if diff is None:
                    cells.append('<td class="c notrun">not run in both</td>')
                elif not diff[0] and not diff[1]:
                    cells.append('<td class="c same">no change</td>')
                else:
                    anchor = slug(*first.group, a.version, b.version, family)
                    cells.append(
                        f'<td class="c changed"><a href="#{anchor}">{len(diff[0])} appeared<br>'
                        f"{len(diff[1])} gone</a></td>"
                    )
            body.append(cells)
        parts.append(version_chart(dash, rows, families, diffs))
        parts.append(table(head, body, "matrix"))
        for a, b in steps:
            for family in families:
                diff = diffs[(a.version, b.version, family)]
                if not diff or not (diff[0] or diff[1]):
                    continue
                appeared, gone, only_one = diff
                anchor = slug(*first.group, a.version, b.version, family)
                parts.append(
                    f'<h3 id="{anchor}">{e(family)}: <span class=ver>{e(a.version)}</span> &rarr; '
                    f"<span class=ver>{e(b.version)}</span></h3>"
                    f"<p class=muted>{e(a.version)}: {run_line(data, data.cells[(a.key, family)].run_id)}<br>"
                    f"{e(b.version)}: {run_line(data, data.cells[(b.key, family)].run_id)}"
                    + (
                        f"<br>{only_one} operation(s) checked by only one of them are left out"
                        if only_one
                        else ""
                    )
                    + "</p>"
                )
                for label, items in ((f"appeared in {b.version}", appeared), (f"gone in {b.version}", gone)):
                    if items:
                        items = sorted(items, key=lambda d: (d.status != "new", d.op, d.inputs))
                        lines = [divergence_line(dash, d, "") for d in items[:CHANGES_CAP]]
                        parts.append(
                            f"<details{' open' if len(items) <= 10 else ''}><summary><b>{e(label)}</b> "
                            f"({len(items)})</summary>"
                            + table(LIST_HEADERS, lines)
                            + capped_note(CHANGES_CAP, len(items), "entries")
                            + "</details>"
                        )
    dash.site.page("versions.html", "Versions", "\n".join(parts), here="versions.html")


def version_chart(dash: Context, rows: list[MatrixRow], families: list[str], diffs: dict) -> str:
    """New and known divergences at each version (its latest run of each family), and those fixed
    from the version before (gone, among the operations both checked)."""
    new, known, fixed = [], [], []
    for i, row in enumerate(rows):
        cells = [dash.data.cells[(row.key, f)] for f in families if (row.key, f) in dash.data.cells]
        new.append(sum(c.counts()[0] for c in cells))
        known.append(sum(c.counts()[1] for c in cells))
        if i == 0:
            fixed.append(None)
            continue
        steps = [diffs[(rows[i - 1].version, row.version, f)] for f in families]
        fixed.append(sum(len(step[1]) for step in steps if step))
    first = rows[0]
    where = (first.device or "default device") + (f" vs {first.versus}" if first.against else "")
    return line_chart(
        f"{first.backend_id} on {where}: divergences per version",
        [r.version for r in rows],
        [Series("new", new, 0), Series("known", known, 1), Series("fixed", fixed, 2)],
        f"{first.name or first.backend_id} version (oldest first)",
        "divergences (count)",
    ) + (
        "<p class=muted>New (solid, circles) and known (dashed, squares) in each version's latest runs; fixed "
        "(dotted, triangles): gone since the version before, among the operations both checked.</p>"
    )


def version_step(
    dash: Context, older: MatrixRow, newer: MatrixRow, family: str
) -> tuple[list, list, int] | None:
    """(appeared, gone, operations checked by only one) from one version's latest run of
    a family to the next's; None if either did not run it."""
    a, b = dash.data.cells.get((older.key, family)), dash.data.cells.get((newer.key, family))
    if a is None or b is None:
        return None
    before, after = {d.key: d for d in a.divergences}, {d.key: d for d in b.divergences}
    both = (set(a.cases) | {d.op for d in a.divergences}) & (set(b.cases) | {d.op for d in b.divergences})
    appeared = [d for k, d in after.items() if k not in before and d.op in both]
    gone = [d for k, d in before.items() if k not in after and d.op in both]
    only_one = len((set(a.cases) | set(b.cases)) - both)
    return appeared, gone, only_one
