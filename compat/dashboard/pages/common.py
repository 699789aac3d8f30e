"""Pieces that several pages draw: matrix cells and rows, divergence lines, runs, outcomes."""

from __future__ import annotations

import json
import re
from typing import NamedTuple

from compat.dashboard import trends
from compat.dashboard.causes import Line
from compat.dashboard.charts.lines import sparkline
from compat.dashboard.context import Context
from compat.dashboard.data import Cell, Data, MatrixRow, StoredDivergence, version_order
from compat.dashboard.html import e, readable, slug, table, when

VALUES_SHOWN = 12  # values of an outcome shown
SPARK_RUNS = 20  # runs a matrix cell's sparkline draws
INPUTS_SHOWN = 6  # input signatures of a line on a cell's page (its cause's page shows every one)
VIEW_PAGES = {
    "": "index.html",
    "device": "devices.html",
    "mode": "modes.html",
}  # the page of each view's matrix
NO_ROWS = {
    "": "<p class=muted>No divergence or checks records in the store.</p>",
    "device": "<p class=muted>No records compare a device with a reference device (records whose reference is "
    "<code>device:&lt;name&gt;</code>) in the store.</p>",
    "mode": "<p class=muted>No records compare an execution mode with eager (records whose reference is "
    "<code>mode:eager</code>, or of a backend id such as <code>jax[x64]~jit</code>) in the store.</p>",
}


def cell_html(
    cell: Cell | None,
    href: str,
    op: str | None = None,
    data: Data | None = None,
    newest: str = "",
    spark: str = "",
    titled: bool = True,
) -> str:
    """A matrix cell: counts of new and known divergences, coloured, and of the operations
    the backend declares unsupported; ``spark``, its sparkline (SVG). A cell leads to its divergences
    where it has some (a list of none would say nothing the cell does not)."""
    if cell is None or (
        op is not None
        and op not in cell.cases
        and op not in cell.unsupported
        and not any(d.op == op for d in cell.divergences)
    ):
        return '<td class="c notrun">not run</td>'
    new, known = cell.counts(op)
    cases = sum(cell.cases.values()) if op is None else cell.cases.get(op, 0)
    unsupported = len(cell.unsupported) if op is None else int(op in cell.unsupported)
    declared = f"<small>{unsupported} unsupported</small>" if unsupported else ""
    reason = f' title="unsupported: {e(cell.unsupported[op])}"' if op is not None and unsupported else ""
    opened, closed = (f'<a href="{href}">', "</a>") if new or known else ("", "")
    if not (cases or new or known):  # the specs ran and skipped (NumPy has no autodiff)
        return f'<td class="c notrun"{reason}>{opened}not checked<small>0 cases: skipped</small>{declared}{closed}</td>'
    cls = "new" if new else "known" if known else "clean"
    text = f"{new} new / {known} known" if new or known else "no divergence"
    title = (
        f' title="{e("from " + re.sub("<[^>]+>", "", run_line(data, cell.run_id)))}"'
        if data and titled
        else ""
    )
    older = (
        f"<small>older run: {e(when(data.runs[cell.run_id]['started'])[:16])}</small>"
        if data and newest and cell.run_id != newest
        else ""
    )
    return (
        f'<td class="c {cls}"{title or reason}>{opened}{text}<small>{cases} case{"s" * (cases != 1)} checked</small>'
        f"{declared}{older}{closed}{spark}</td>"
    )


def row_header(row: MatrixRow, data: Data, families: list[str]) -> str:
    config = "" if row.config in ("{}", "") else f" config {row.config}"
    return (
        f'<th title="{e(row.backend_id + " " + row.version + config)}">{e(row.backend_id)} '
        f"<span class=ver>{e(row.version)}</span><br>"
        f"<small>{e(row.device or 'default device')}{' vs ' + e(row.versus) if row.against else ''}</small></th>"
    )


def list_path(row: MatrixRow, family: str, op: str | None = None) -> str:
    """A cell's list page; with ``op``, the place of that operation on it."""
    path = f"l/{readable(row.backend_id, 20)}-{readable(family, 16)}-{slug(*row.key, family, None)}.html"
    return path if op is None else f"{path}#{op_anchor(op)}"


def op_anchor(op: str) -> str:
    """An operation's place on a cell's page: its name where that is a plain one."""
    return (
        f"op-{op}"
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]{0,40}", op)
        else f"op-{readable(op, 24)}-{slug(op)[:6]}"
    )


def family_path(family: str, view: str) -> str:
    return f"family-{readable(family, 24)}-{slug(family, view)[:8]}{f'-{view}s' if view else ''}.html"


def matrix(data: Data, rows: list[MatrixRow], prefix: str = "", view: str = "") -> str:
    families = data.families_of(rows)
    if not rows:
        return NO_ROWS[view]
    head = ["backend / device"] + [f'<a href="{prefix}{family_path(f, view)}">{e(f)}</a>' for f in families]
    body = []
    for row in rows:
        cells = [row_header(row, data, families)]
        runs = [data.cells[(row.key, f)].run_id for f in families if (row.key, f) in data.cells]
        newest = max(runs, key=data.order.__getitem__) if runs else ""
        for family in families:
            cells.append(
                cell_html(
                    data.cells.get((row.key, family)),
                    prefix + list_path(row, family),
                    data=data,
                    newest=newest,
                    spark=cell_spark(data, row, family),
                )
            )
        body.append(cells)
    return table(head, body, "matrix")


def cell_spark(data: Data, row: MatrixRow, family: str) -> str:
    """The sparkline of a matrix cell: its distinct divergences in each run that covered it (the last
    SPARK_RUNS), where more than one did."""
    counts = trends.cell_counts(data, row.key, family)[-SPARK_RUNS:]
    if len(counts) < 2:
        return ""
    said = ", ".join(f"{new + known} ({new} new)" for _, new, known in counts)
    return sparkline(
        [new + known for _, new, known in counts],
        f"{family} on {row.label()}: distinct divergences in its last {len(counts)} runs, oldest first: {said}",
    )


def divergence_line(
    dash: Context, d: StoredDivergence, prefix: str, reference: str = "numpy", linked: bool = True
) -> list[str]:
    """A divergence as a row of a list, its operation leading to where it is shown (``linked``)
    and its cause to the cause's page; its reference is named when it is not the list's."""
    href = dash.href(d, prefix) if linked else None
    link = f'<a href="{href}">{e(d.op)}</a>' if href else e(d.op)
    status = f'<span class="badge {d.status}">{e(d.status)}</span>'
    what = f"{e(d.expected)} &rarr; {e(d.actual)}" + (
        f" <small>(reference {e(d.reference)})</small>" if d.reference != reference else ""
    )
    cause = dash.causes.link(d) if linked else None
    named = e(d.known) if d.known else "new cause" if d.status == "new" else e(d.status)
    return [
        status,
        e(d.kind),
        link,
        f"<code>{e(d.inputs)}</code>",
        what,
        f"<td class=num>{d.count}</td>",
        f'<a href="{prefix}{cause}">{named}</a>' if cause else (e(d.known) if d.known else ""),
    ]


def inputs_html(dash: Context, line: Line, prefix: str, cap: int | None = None) -> str:
    """A line's input signatures (``;`` between them), those with a page of their own in bold, leading
    to it; the first ``cap`` of them, and how many more."""
    shown, seen = [], set()  # a line of several rows may hold one signature on each
    for d in line.divergences:
        paged = d.page in dash.pages
        if d.inputs in seen and not paged:
            continue
        seen.add(d.inputs)
        shown.append(f'<a href="{prefix}{d.page}"><b>{e(d.inputs)}</b></a>' if paged else e(d.inputs))
    more = len(shown) - len(shown[:cap])
    shown = shown[:cap]
    return f"<code>{'; '.join(shown)}</code>" + (f" <small>and {more} more</small>" if more else "")


def cell_line(dash: Context, line: Line, prefix: str) -> list[str]:
    """A line of a cell's list (CELL_HEADERS): kind, operation (to its line on the cause's page),
    inputs, what differs, examples, the cause: its registry entry, or its status, in its colour."""
    page = dash.causes.page(line.divergences[0])
    named = e(line.known) if line.known else "new: no entry" if line.status == "new" else e(line.status)
    return [
        e(line.kind),
        f'<a href="{prefix}{page}#{line.anchor}">{e(line.op)}</a>',
        inputs_html(dash, line, prefix, INPUTS_SHOWN),
        f"{e(line.expected)} &rarr; {e(line.actual)}",
        f"<td class=num>{line.count}</td>",
        f"<td class={line.status}>{named}</td>",
    ]


CELL_HEADERS = [
    "kind",
    "op",
    "inputs",
    "NumPy &rarr; backend (signature)",
    "examples",
    "cause: registry entry",
]


LIST_HEADERS = [
    "status",
    "kind",
    "op",
    "inputs",
    "NumPy &rarr; backend (signature)",
    "examples",
    "cause (registry entry)",
]


def run_line(data: Data, run_id: str) -> str:
    run = data.runs.get(run_id, {"started": "?", "meta": None})
    meta = run["meta"] or {}
    hyp = meta.get("hypothesis") if isinstance(meta.get("hypothesis"), dict) else {}
    extra = (
        f", mode {e(meta.get('mode', '?'))}, Hypothesis profile {e(hyp.get('profile', '?'))}"
        if meta
        else " (no run.json was merged for this run)"
    )
    return f"run <code>{e(run_id)}</code>, started {e(when(run['started']))}{extra}"


def short_run(data: Data, run_id: str) -> str:
    return f"<code>{e(run_id)}</code> ({e(when(data.runs[run_id]['started']))})"


class Column(NamedTuple):
    """A column of the survey tables: a backend row as recorded (id with config and mode)
    on its device, at its version when the backend was recorded at several."""

    backend_id: str
    version: str  # "" when the backend was recorded at one version only
    device: str  # "" for the default device
    name: str  # the adapter's: NumPy's column comes first

    def header(self) -> str:
        """The column's header (HTML), reading "<backend id>[ <version>][ on <device>]", that
        may wrap before the mode and the device."""
        version = f" <span class=ver>{e(self.version)}</span>" if self.version else ""
        device = f" <small>on {e(self.device)}</small>" if self.device else ""
        return e(self.backend_id).replace("~", "<wbr>~") + version + device

    def order(self) -> tuple:
        return (self.name != "numpy", self.backend_id, self.device, version_order(self.version))


def survey_cells(data: Data) -> dict[str, dict[tuple[str, Column], str]]:
    """survey -> (row, column) -> value, each cell from the latest run that recorded it."""
    observed = data.observations()
    versions = {}
    for row in observed:
        versions.setdefault(row[4], set()).add(row[5])
    latest = {}  # (survey, row, column) -> (order, value)
    for run_id, survey, case, value, backend_id, version, device, name in observed:
        column = Column(backend_id, version if len(versions[backend_id]) > 1 else "", device or "", name)
        order = data.order.get(run_id, -1)
        key = (survey, case, column)
        if key not in latest or latest[key][0] <= order:
            latest[key] = (order, value)
    tables = {}
    for (survey, case, column), (_, value) in latest.items():
        tables.setdefault(survey, {})[(case, column)] = value
    return tables


def columns_of(cells: dict[tuple[str, Column], str]) -> list[Column]:
    return sorted({c for _, c in cells}, key=Column.order)


def describe_outcome(outcome: dict) -> str:
    error = outcome.get("error")
    if error:
        return f"raises {str(error.get('type', '?')).rsplit('.', 1)[-1]} ({error.get('category', '?')})"
    values = outcome.get("values")
    shape = outcome.get("shape")
    text = f"returns {outcome.get('dtype', '?')}{list(shape) if shape is not None else ''}"
    if values is not None:
        shown = json.dumps(values[:6])
        text += " " + (shown[:-1] + ", ...]" if len(values) > 6 else shown)
    return text


def outcome_rows(expected: dict, actual: dict) -> list[list[str]]:
    rows = []
    for name in ("dtype", "shape", "values", "device", "error"):
        if name not in expected and name not in actual:
            continue
        cells = [f"<th>{name}</th>"]
        differ = json.dumps(expected.get(name), sort_keys=True) != json.dumps(
            actual.get(name), sort_keys=True
        )
        for side in (expected, actual):
            value = side.get(name)
            if value is None:
                text = "&ndash;"
            elif name == "values":
                shown = json.dumps(value[:VALUES_SHOWN])
                text = f"<code>{e(shown if len(value) <= VALUES_SHOWN else shown[:-1] + ', ...]')}</code>"
            elif name == "error":
                kind, category = e(value.get("type")), e(value.get("category"))
                text = f"{kind} ({category})<br><small>{e(value.get('message'))}</small>"
            else:
                text = f"<code>{e(json.dumps(value) if not isinstance(value, str) else value)}</code>"
            cells.append(f"<td{' class=diff' if differ and side is actual else ''}>{text}</td>")
        rows.append(cells)
    return rows
