"""The static HTML dashboard: everything in the store, as pages a browser opens from disk.

``render(store, out)`` writes::

    index.html        what this is, how to read the colours, the divergence matrix
                      (backend and device x family) and the runs it shows
    family-*.html     one family's matrix by operation (the drill-down)
    versions.html     backends run at several versions (a matrix row each): per family, the
                      divergences that appeared and those gone from one version to the next
    promotion.html    per backend, dtype x dtype -> result dtype, differences from NumPy marked
    surveys.html      survey tables (observation records) and out-of-bounds indexing behaviour
    devices.html      each device against its reference device; kernel coverage of plug-ins
    history.html      divergences per run and per backend version; new and fixed since the previous run
    l/*.html          the divergence list of one matrix cell
    d/*.html          one divergence: minimal example, expected vs actual, reproducer, registry entry
    style.css         the one stylesheet (no network is needed to view any page)

What a cell shows: for each backend (id with config) at each version on each device, and
each family, the latest run that covered that family there. Divergences are
aggregated as in ``compat report`` (one per backend, device, reference, family, op, kind
and signature; counts add up). Lists and pages are capped so that the output stays
small whatever the store holds; a page says when it is capped. Every string that comes
from a record is escaped.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from packaging.version import InvalidVersion, Version

from compat.core import dtypes
from compat.results import registry as registry_module
from compat.results import store as store_module
from compat.results.records import Run
from compat.results.report import promotion_differences

EXHAUSTIVE = "every_pair_of_dtypes"  # the promotion specs that check every pair of dtypes
INVALID = "invalid_ind"                # the indexing specs of out-of-bounds and invalid indices
LIST_CAP = 100            # divergences listed on one cell's list page
PAGE_CAP = 1000           # divergence pages in all (new divergences first) ...
PAGE_BUDGET = 2_500_000   # ... and at most this many bytes of them
TABLE_CAP = 100           # rows of the other-promotion-differences and out-of-bounds tables
HISTORY_RUNS = 200        # runs shown in the history table
CHANGES_CAP = 100         # "new/fixed since the previous run" entries shown per row
VALUES_SHOWN = 12         # values of an outcome shown

CSS = "\n".join([  # written to style.css beside the pages (kept here: an installed compat has it too)
    'body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}',
    'main{padding:16px 24px 40px;max-width:1400px}',
    'nav{background:#1d2330;padding:8px 24px}nav a{color:#e8ecf3;margin-right:18px;text-decoration:none;font-weight:600}',
    'nav a:hover{text-decoration:underline}nav .here{color:#ffd27a}',
    'h1{font-size:22px;margin:8px 0 6px}h2{font-size:17px;margin:26px 0 8px}h3{font-size:15px;margin:18px 0 6px}',
    'a{color:#1a55b3}p{margin:6px 0;max-width:980px}',
    '.lead{font-size:15px;color:#2d3548}.muted,small{color:#667085}',
    'table{border-collapse:collapse;margin:6px 0 10px;background:#fff}',
    'th,td{border:1px solid #d6dbe3;padding:4px 8px;text-align:left;vertical-align:top}',
    'th{background:#eef1f6;font-weight:600}',
    'td.c{min-width:118px;text-align:center;font-weight:600}td.c a{color:inherit;text-decoration:none;display:block}',
    'td.c a:hover{text-decoration:underline}td.c small{display:block;font-weight:400}',
    '.new{background:#f7c9c9;color:#7a0d0d}.known{background:#fbe3a6;color:#6b4700}.clean{background:#cdebd0;color:#14532d}',
    '.notrun{background:#eceef2;color:#7b8394}.diff{background:#fbe3a6;font-weight:600}.raises{background:#f7c9c9}',
    '.legend span{display:inline-block;padding:2px 10px;margin-right:8px;border-radius:3px;font-weight:600}',
    '.badge{display:inline-block;padding:1px 8px;border-radius:3px;font-weight:600}',
    'pre{background:#f3f5f8;border:1px solid #d6dbe3;padding:10px;overflow-x:auto;font-size:12.5px;max-width:1100px}',
    'code{font-size:12.5px;background:#f0f2f6;padding:0 3px;border-radius:2px}',
    'td code{background:none;padding:0}.grid td,.grid th{padding:2px 5px;font-size:12px;text-align:center}',
    '.grid th.r{text-align:right}.num{text-align:right}',
    'button{font:inherit;padding:3px 10px;cursor:pointer}',
    '.cap{background:#fff6da;border:1px solid #f0d98a;padding:6px 10px;display:inline-block}',
    '.ver{display:inline-block;font-weight:600;font-size:12.5px;background:#e3e8f2;color:#1d2330;border-radius:3px;'
    'padding:0 6px;margin-left:2px}',
    'td.changed{background:#dde7f8;color:#1a3d7a}td.same{color:#667085}',
]) + "\n"
DEFAULT_REGISTRY = Path(__file__).resolve().parents[2] / "fixtures" / "known-divergences.toml"  # as the plugin's

KEY_FIELDS = ("backend_id", "device", "reference", "family", "op", "kind", "sig_inputs", "sig_expected", "sig_actual")


def e(value) -> str:
    """Escaped text for HTML (text and attribute values alike)."""
    return html.escape("" if value is None else str(value), quote=True)


def t(value) -> str:
    """Escaped text for element content only (quotes may stay: smaller pages of code)."""
    return html.escape("" if value is None else str(value), quote=False)


def slug(*parts) -> str:
    return hashlib.sha1("\x1f".join("" if p is None else str(p) for p in parts).encode()).hexdigest()[:16]


def readable(text: str, limit: int = 32) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "-", text).strip("-")[:limit] or "x"


@dataclass
class Written:
    pages: int = 0
    bytes: int = 0


@dataclass(slots=True)
class Divergence:
    """One aggregated divergence of one cell's run."""

    run_id: str
    backend_id: str
    device: str | None
    reference: str
    family: str
    op: str
    kind: str
    inputs: str
    expected: str
    actual: str
    count: int
    record_id: int
    status: str
    known: str | None
    version: str
    exhaustive: int = 0      # shown by the exhaustive promotion spec (every pair of dtypes)
    elsewhere: int = 0       # shown by another spec
    invalid: int = 0         # shown by an invalid-index spec
    _page: str | None = None

    @property
    def key(self) -> tuple:
        return (self.backend_id, self.device, self.reference, self.family, self.op, self.kind,
                self.inputs, self.expected, self.actual)

    @property
    def page(self) -> str:
        if self._page is None:
            self._page = f"d/{slug(*self.key, self.version)}.html"
        return self._page


@dataclass
class Row:
    """A matrix row: a backend (id with config) at one version on a device, against a
    reference class. Each version of a backend is a row of its own, so that a matrix of
    versions (tox's jax and jax-previous envs, CI jobs) shows them side by side."""

    backend_id: str
    version: str
    device: str | None
    devref: str              # "" for NumPy-like references; "device:<name>" for the device view
    name: str = ""
    config: str = "{}"

    @property
    def key(self) -> tuple:
        return (self.backend_id, self.version, self.device, self.devref)

    @property
    def group(self) -> tuple:
        """The row's key without the version: the rows that are versions of one another."""
        return (self.backend_id, self.device, self.devref)

    def label(self) -> str:
        return f"{self.backend_id} {self.version} on {self.device or 'default device'}" + (
            f" vs {self.devref[7:]}" if self.devref else "")


def version_order(version: str) -> tuple:
    """Sort key of backend versions: PEP 440 order (0.9.2 before 0.10.2), unparsable ones last."""
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


@dataclass
class Cell:
    run_id: str
    divergences: list[Divergence] = field(default_factory=list)
    cases: dict = field(default_factory=dict)       # op -> cases checked
    specs: set = field(default_factory=set)
    spec_cases: dict = field(default_factory=dict)  # spec -> ops it checked

    def counts(self, op: str | None = None) -> tuple[int, int]:
        chosen = [d for d in self.divergences if op is None or d.op == op]
        new = sum(1 for d in chosen if d.status == "new")
        return new, len(chosen) - new


class Data:
    """Everything the pages need, read from the store with a few aggregate queries."""

    def __init__(self, connection: sqlite3.Connection):
        self.db = connection
        self.runs = {}
        for run_id, started, meta in connection.execute("SELECT run_id, started, meta FROM runs ORDER BY started, run_id"):
            self.runs[run_id] = {"run_id": run_id, "started": started, "meta": json.loads(meta) if meta else None}
        self.order = {run_id: i for i, run_id in enumerate(self.runs)}
        self.rows: dict[tuple, Row] = {}
        self.cells: dict[tuple, Cell] = {}        # (row key, family) -> Cell of the latest run
        self.previous: dict[tuple, str] = {}      # (row key, family) -> the run before it
        self._load_cells()

    @staticmethod
    def devref(reference: str) -> str:
        return reference if reference.startswith("device:") else ""

    def _load_cells(self) -> None:
        covered = defaultdict(set)  # (row key, family) -> runs
        found = self.db.execute(
            "SELECT DISTINCT run_id, backend_id, backend_version, device, reference, family, backend_name, "
            "backend_config FROM records WHERE type IN ('divergence', 'checks')").fetchall()
        # every case of a device param is also compared with the backend's reference device,
        # named by the records of such divergences (checks records name NumPy)
        self.reference_devices = {(row[1], row[3]): row[4] for row in found if self.devref(row[4])}
        for run_id, backend_id, version, device, reference, family, name, config in found:
            for key in self.keys_of(backend_id, version, device, reference):
                self.rows.setdefault(key, Row(*key, name=name, config=config))
                covered[(key, family)].add(run_id)
        for (key, family), runs in covered.items():
            ordered = sorted(runs, key=self.order.__getitem__)
            self.cells[(key, family)] = Cell(ordered[-1])
            if len(ordered) > 1:
                self.previous[(key, family)] = ordered[-2]
        wanted = {(cell.run_id, *key, family) for (key, family), cell in self.cells.items()}
        runs = sorted({cell.run_id for cell in self.cells.values()})
        for d in self.divergences(runs):
            key = (d.backend_id, d.version, d.device, self.devref(d.reference))
            if (d.run_id, *key, d.family) in wanted:
                self.cells[(key, d.family)].divergences.append(d)
        for run_id, backend_id, version, device, reference, family, spec, op, n in self.db.execute(
                f"SELECT r.run_id, r.backend_id, r.backend_version, r.device, r.reference, r.family, r.spec, j.key, "
                f"sum(j.value) FROM records r, json_each(r.cases) j WHERE r.type = 'checks' AND r.run_id IN "
                f"({marks(runs)}) GROUP BY r.run_id, r.backend_id, r.backend_version, r.device, r.reference, r.family, "
                f"r.spec, j.key", runs):
            for key in self.keys_of(backend_id, version, device, reference):
                if (run_id, *key, family) in wanted:
                    cell = self.cells[(key, family)]
                    cell.cases[op] = cell.cases.get(op, 0) + n
                    cell.specs.add(spec)
                    cell.spec_cases.setdefault(spec, []).append(op)
        for cell in self.cells.values():
            cell.divergences.sort(key=lambda d: (d.status != "new", d.op, d.kind, d.inputs, d.expected, d.actual))

    def keys_of(self, backend_id: str, version: str, device: str | None, reference: str) -> list[tuple]:
        """The matrix rows a record counts in: its own, and for a device param's
        record against NumPy also the device view's (device against reference device)."""
        key = (backend_id, version, device, self.devref(reference))
        if device is None or key[3]:
            return [key]
        devref = self.reference_devices.get((backend_id, device), "device:its reference device")
        return [key, (backend_id, version, device, devref)]

    def divergences(self, runs: list[str]) -> list[Divergence]:
        """Aggregated divergences of these runs."""
        if not runs:
            return []
        query = (f"SELECT run_id, {', '.join(KEY_FIELDS)}, sum(count), min(id), max(status), max(known), "
                 f"max(backend_version), max(instr(spec, ?) > 0), max(instr(spec, ?) = 0), max(instr(spec, ?) > 0) "
                 f"FROM records WHERE type = 'divergence' AND run_id IN ({marks(runs)}) "
                 f"GROUP BY run_id, {', '.join(KEY_FIELDS)}")
        return [Divergence(*row) for row in self.db.execute(query, [EXHAUSTIVE, EXHAUSTIVE, INVALID, *runs])]

    def bodies(self, ids: list[int]) -> dict[int, dict]:
        found = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            for record_id, body in self.db.execute(
                    f"SELECT id, body FROM records JOIN bodies USING (digest) WHERE id IN ({marks(chunk)})", chunk):
                found[record_id] = json.loads(body)
        return found

    def rows_of(self, device_view: bool) -> list[Row]:
        return sorted((r for r in self.rows.values() if bool(r.devref) == device_view),
                      key=lambda r: (r.name != "numpy", r.backend_id, r.device or "", r.devref, version_order(r.version)))

    def version_groups(self, device_view: bool = False) -> list[list[Row]]:
        """Rows that are versions of one backend (with config) on one device, for each such
        backend run at more than one version; oldest version first."""
        groups = defaultdict(list)
        for row in self.rows_of(device_view):
            groups[row.group].append(row)
        return [rows for rows in groups.values() if len(rows) > 1]

    def families_of(self, rows: list[Row]) -> list[str]:
        keys = {r.key for r in rows}
        return sorted({family for key, family in self.cells if key in keys})


def marks(items) -> str:
    return ", ".join("?" * len(items)) or "NULL"


# -- page scaffolding ----------------------------------------------------------------

NAV = (("index.html", "Matrix"), ("versions.html", "Versions"), ("promotion.html", "Promotion"),
       ("surveys.html", "Surveys"), ("devices.html", "Devices"), ("history.html", "History"))

COPY_SCRIPT = ("<script>function copyRepro(b){var t=document.getElementById('repro').textContent,"
               "d=function(){b.textContent='Copied'};if(navigator.clipboard)navigator.clipboard.writeText(t).then(d);"
               "else{var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();"
               "document.execCommand('copy');a.remove();d()}}</script>")


class Site:
    def __init__(self, out: Path):
        self.out = out
        self.written = Written()

    def page(self, path: str, title: str, body: str, here: str = "", script: str = "") -> None:
        depth = path.count("/")
        up = "../" * depth
        nav = "".join(f'<a href="{up}{href}"{" class=here" if href == here else ""}>{label}</a>' for href, label in NAV)
        text = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f'<title>{e(title)} · compat</title><link rel="stylesheet" href="{up}style.css">{script}</head>\n'
                f'<body><nav>{nav}</nav><main>\n{body}\n</main></body></html>\n')
        data = text.encode("utf-8")
        target = self.out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.written.pages += 1
        self.written.bytes += len(data)


def table(headers: list[str], rows: list[list[str]], cls: str = "") -> str:
    """Headers and cells are HTML already."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(c if c.startswith("<td") or c.startswith("<th") else f"<td>{c}</td>" for c in row)
                     + "</tr>" for row in rows)
    return f'<table{f" class={cls}" if cls else ""}><thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>'


def facts_table(facts: list[tuple[str, str]]) -> str:
    """A two-column table of name and value (HTML)."""
    return "<table><tbody>\n" + "\n".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts) + \
        "\n</tbody></table>"


def when(started: str) -> str:
    return started.replace("T", " ").replace("+00:00", " UTC")[:23]


# -- the pieces ----------------------------------------------------------------------

def cell_html(cell: Cell | None, href: str, op: str | None = None, data: Data | None = None, newest: str = "") -> str:
    """A matrix cell: counts of new and known divergences, coloured."""
    if cell is None or (op is not None and op not in cell.cases and not any(d.op == op for d in cell.divergences)):
        return '<td class="c notrun">not run</td>'
    new, known = cell.counts(op)
    cases = sum(cell.cases.values()) if op is None else cell.cases.get(op, 0)
    if not (cases or new or known):  # the specs ran and skipped (NumPy has no autodiff)
        return f'<td class="c notrun"><a href="{href}">not checked<small>0 cases: skipped</small></a></td>'
    cls = "new" if new else "known" if known else "clean"
    text = f"{new} new / {known} known" if new or known else "no divergence"
    title = f' title="{e("from " + re.sub("<[^>]+>", "", run_line(data, cell.run_id)))}"' if data else ""
    older = (f"<small>older run: {e(when(data.runs[cell.run_id]['started'])[:16])}</small>"
             if data and newest and cell.run_id != newest else "")
    return (f'<td class="c {cls}"{title}><a href="{href}">{text}<small>{cases} case{"s" * (cases != 1)} checked</small>'
            f'{older}</a></td>')


def row_header(row: Row, data: Data, families: list[str]) -> str:
    config = "" if row.config in ("{}", "") else f" config {row.config}"
    return (f'<th title="{e(row.backend_id + " " + row.version + config)}">{e(row.backend_id)} '
            f'<span class=ver>{e(row.version)}</span><br>'
            f'<small>{e(row.device or "default device")}{" vs " + e(row.devref[7:]) if row.devref else ""}</small></th>')


def list_path(row: Row, family: str, op: str | None = None) -> str:
    return f"l/{readable(row.backend_id, 20)}-{readable(family, 16)}-{slug(*row.key, family, op)}.html"


def family_path(family: str, device_view: bool) -> str:
    return f"family-{readable(family, 24)}-{slug(family, device_view)[:8]}{'-devices' if device_view else ''}.html"


def matrix(data: Data, rows: list[Row], prefix: str = "", device_view: bool = False) -> str:
    families = data.families_of(rows)
    if not rows:
        return ("<p class=muted>No records compare a device with a reference device (records whose reference is "
                "<code>device:&lt;name&gt;</code>) in the store.</p>" if device_view else
                "<p class=muted>No divergence or checks records in the store.</p>")
    head = ["backend / device"] + [f'<a href="{prefix}{family_path(f, device_view)}">{e(f)}</a>' for f in families]
    body = []
    for row in rows:
        cells = [row_header(row, data, families)]
        runs = [data.cells[(row.key, f)].run_id for f in families if (row.key, f) in data.cells]
        newest = max(runs, key=data.order.__getitem__) if runs else ""
        for family in families:
            cells.append(cell_html(data.cells.get((row.key, family)), prefix + list_path(row, family), data=data,
                                   newest=newest))
        body.append(cells)
    return table(head, body, "matrix")


LEGEND = ('<p class=legend><span class=new>red: new</span><span class=known>amber: known only</span>'
          '<span class=clean>green: checked, no divergence</span><span class=notrun>grey: not run</span></p>')


def divergence_line(d: Divergence, prefix: str, pages: set[str]) -> list[str]:
    link = f'<a href="{prefix}{d.page}">{e(d.op)}</a>' if d.page in pages else e(d.op)
    status = f'<span class="badge {d.status}">{e(d.status)}</span>'
    what = f"{e(d.expected)} &rarr; {e(d.actual)}" + (f" <small>(reference {e(d.reference)})</small>"
                                                       if d.reference != "numpy" else "")
    return [status, e(d.kind), link, f"<code>{e(d.inputs)}</code>", what, f'<td class=num>{d.count}</td>',
            e(d.known or "")]


LIST_HEADERS = ["status", "kind", "op", "inputs", "NumPy &rarr; backend (signature)", "examples", "registry entry"]


def capped_note(shown: int, total: int, what: str) -> str:
    if total <= shown:
        return ""
    return (f'<p class=cap>Showing the first {shown} of {total} {what} (new ones first): the dashboard caps its lists '
            f'to stay small. <code>python -m compat report --all</code> lists every one.</p>')


def run_line(data: Data, run_id: str) -> str:
    run = data.runs.get(run_id, {"started": "?", "meta": None})
    meta = run["meta"] or {}
    hyp = meta.get("hypothesis") if isinstance(meta.get("hypothesis"), dict) else {}
    extra = f", mode {e(meta.get('mode', '?'))}, Hypothesis profile {e(hyp.get('profile', '?'))}" if meta else \
        " (no run.json was merged for this run)"
    return f"run <code>{e(run_id)}</code>, started {e(when(run['started']))}{extra}"


def short_run(data: Data, run_id: str) -> str:
    return f"<code>{e(run_id)}</code> ({e(when(data.runs[run_id]['started']))})"


# -- rendering -----------------------------------------------------------------------

class Dashboard:
    def __init__(self, data: Data, site: Site):
        self.data = data
        self.site = site
        self.registries: dict[str, registry_module.Registry] = {}
        self.pages: set[str] = set()
        self.choose_pages()

    def choose_pages(self) -> None:
        """Divergence pages for listed divergences within PAGE_CAP and PAGE_BUDGET: new ones
        first, then the top of every list before the rest of any, so that every cell gets some."""
        position: dict[str, int] = {}
        unique: dict[str, Divergence] = {}
        for cell in self.data.cells.values():
            by_op = defaultdict(list)
            for d in cell.divergences:
                by_op[d.op].append(d)
            for listed in [cell.divergences, *by_op.values()]:
                for i, d in enumerate(listed[:LIST_CAP]):
                    unique[d.page] = d
                    position[d.page] = min(i, position.get(d.page, i))
        ranked = sorted(unique.values(), key=lambda d: (d.status != "new", position[d.page], d.backend_id, d.family,
                                                        d.op, d.inputs))
        self.total_divergences = sum(len(c.divergences) for c in self.data.cells.values())
        self.paged = []      # (divergence, record)
        self.page_cap_hit = len(ranked) > PAGE_CAP
        size = 0
        bodies = self.data.bodies([d.record_id for d in ranked[:PAGE_CAP]])
        for d in ranked[:PAGE_CAP]:
            record = bodies[d.record_id]
            size += 2500 + len(record.get("reproducer", "")) + len(json.dumps(record.get("expected"))) \
                + len(json.dumps(record.get("actual"))) + len(record.get("detail", ""))
            if size > PAGE_BUDGET:
                self.page_cap_hit = True
                break
            self.paged.append((d, record))
        self.pages = {d.page for d, _ in self.paged}

    def registry_for(self, run_id: str) -> registry_module.Registry:
        meta = (self.data.runs.get(run_id) or {}).get("meta") or {}
        path = meta.get("registry") if isinstance(meta.get("registry"), str) else None
        candidates = [p for p in (path, DEFAULT_REGISTRY) if p and Path(p).is_file()]
        for candidate in candidates:
            if str(candidate) not in self.registries:
                try:
                    self.registries[str(candidate)] = registry_module.load(candidate)
                except registry_module.RegistryError:
                    self.registries[str(candidate)] = None
            if self.registries[str(candidate)] is not None:
                return self.registries[str(candidate)]
        return registry_module.Registry()

    def render(self) -> None:
        self.index()
        for device_view in (False, True):
            rows = self.data.rows_of(device_view)
            for family in self.data.families_of(rows):
                self.family_page(family, rows, device_view)
            for row in rows:
                for family in self.data.families_of(rows):
                    cell = self.data.cells.get((row.key, family))
                    if cell is not None:
                        self.list_page(row, family, cell)
        self.divergence_pages()
        self.promotion()
        self.surveys()
        self.devices()
        self.history()
        self.versions()

    # index and drill-down

    def index(self) -> None:
        data = self.data
        rows = data.rows_of(False)
        runs_shown = sorted({c.run_id for (key, _), c in data.cells.items() if not key[3]}, key=data.order.__getitem__)
        body = ["<h1>compat: where array frameworks disagree with NumPy</h1>",
                '<p class=lead>Each row is an array framework (with its configuration) on a device, each column a '
                'family of NumPy semantics, and each cell counts the distinct divergences from NumPy that the latest '
                'run covering it found. <b>Red</b> means at least one <b>new</b> divergence (not in the '
                'known-divergence registry: probably a bug), <b>amber</b> only <b>known</b> ones (documented, accepted '
                'differences), <b>green</b> checked with no divergence, <b>grey</b> not run; click a cell for its '
                'divergences, each with a minimal example and a reproducer, or a family name for the same matrix by '
                'operation.</p>',
                LEGEND, matrix(data, rows)]
        groups = data.version_groups()
        if groups:
            listed = "; ".join(f"{e(rows_[0].backend_id)} on {e(rows_[0].device or 'default device')}: "
                               + " &rarr; ".join(f"<span class=ver>{e(r.version)}</span>" for r in rows_) for rows_ in groups)
            body.append(f'<p>Run at more than one version (a row per version): {listed}. '
                        f'<a href="versions.html">Versions</a> lists what differs between them.</p>')
        if self.page_cap_hit:
            body.append(f'<p class=cap>{self.total_divergences} distinct divergences: to keep the dashboard small, '
                        f'pages are written for {len(self.pages)} of them (new ones first); the others are listed '
                        f'without a page.</p>')
        body.append("<h2>Runs shown</h2>")
        if runs_shown:
            items = []
            for run_id in reversed(runs_shown):
                meta = data.runs[run_id]["meta"] or {}
                listed = meta.get("backends") if isinstance(meta.get("backends"), list) else []
                backends = ", ".join(f"{b.get('id')} {b.get('version')}" for b in listed if isinstance(b, dict))
                items.append(f"<li>{run_line(data, run_id)}{': ' + e(backends) if backends else ''}</li>")
            body.append("<ul>" + "".join(items) + "</ul>")
        else:
            body.append("<p class=muted>None: no run in the store has divergence or checks records.</p>")
        total_runs = len(data.runs)
        records = data.db.execute("SELECT count(*) FROM records").fetchone()[0]
        body.append(f"<p class=muted>The store holds {total_runs} run(s) and {records} record(s); "
                    f'<a href="history.html">History</a> compares them.</p>')
        self.site.page("index.html", "Divergence matrix", "\n".join(body), here="index.html")

    def family_page(self, family: str, rows: list[Row], device_view: bool) -> None:
        data = self.data
        rows = [r for r in rows if (r.key, family) in data.cells]
        ops = sorted({op for r in rows for op in data.cells[(r.key, family)].cases}
                     | {d.op for r in rows for d in data.cells[(r.key, family)].divergences})
        head = ["backend / device"] + [f"<code>{e(op)}</code>" for op in ops]
        body = []
        for row in rows:
            cell = data.cells[(row.key, family)]
            body.append([row_header(row, data, [family])]
                        + [cell_html(cell, list_path(row, family, op), op, data) for op in ops])
        back = "devices.html" if device_view else "index.html"
        text = [f"<h1>{e(family)}{' (devices)' if device_view else ''}: by operation</h1>",
                f'<p>The <a href="{back}">matrix</a>\'s {e(family)} column, one column per operation. '
                'A cell links to the divergences of that operation.</p>', LEGEND, table(head, body, "matrix")]
        self.site.page(family_path(family, device_view), f"{family} by operation", "\n".join(text),
                       here=back)

    def list_page(self, row: Row, family: str, cell: Cell) -> None:
        ops = [None] + sorted({d.op for d in cell.divergences} | set(cell.cases))
        for op in ops:
            chosen = [d for d in cell.divergences if op is None or d.op == op]
            what = f"{family}" + (f" · {op}" if op is not None else "")
            new, known = cell.counts(op)
            parts = [f"<h1>{e(row.label())} · {e(what)}</h1>",
                     f"<p>{new} new and {known} known distinct divergence(s) in {run_line(self.data, cell.run_id)}; "
                     f"{sum(cell.cases.values()) if op is None else cell.cases.get(op, 0)} case(s) checked. "
                     f"Click an operation for the divergence's page.</p>"]
            if chosen:
                parts.append(capped_note(LIST_CAP, len(chosen), "divergences"))
                parts.append(table(LIST_HEADERS, [divergence_line(d, "../", self.pages) for d in chosen[:LIST_CAP]]))
                if any(d.page not in self.pages for d in chosen[:LIST_CAP]):
                    parts.append(f"<p class=muted>Operations without a link have no page: to keep the dashboard "
                                 f"small, pages are written for {len(self.pages)} divergences, new ones first.</p>")
            else:
                parts.append("<p>No divergence: every case checked agreed with the reference.</p>")
            if op is None and len(ops) > 2:
                links = ", ".join(f'<a href="../{list_path(row, family, o)}"><code>{e(o)}</code></a>' for o in ops[1:])
                parts.append(f"<p>By operation: {links}</p>")
            self.site.page(list_path(row, family, op), f"{row.label()} {what}", "\n".join(parts), here="index.html")

    # divergence pages

    def divergence_pages(self) -> None:
        for d, record in self.paged:
            self.divergence_page(d, record)

    def divergence_page(self, d: Divergence, record: dict) -> None:
        backend = record["backend"]
        title = f"{d.backend_id} {d.op}({d.inputs}): {d.kind}"
        cell_row = Row(d.backend_id, d.version, d.device, self.data.devref(d.reference))
        meaning = ("a divergence the registry does not know: probably a bug of the backend (or of its adapter)"
                   if d.status == "new" else "a known, documented divergence")
        parts = [f"<h1>{e(title)}</h1>",
                 f'<p><span class="badge {e(d.status)}">{e(d.status)}</span> {meaning} &middot; back to '
                 f'<a href="../{list_path(cell_row, d.family)}">{e(d.family)} on {e(cell_row.label())}</a></p>']
        config = json.dumps(backend.get("config", {}), sort_keys=True)
        facts = [("backend", f"{e(backend['id'])} {e(backend['version'])} <small>config {e(config)}</small>"),
                 ("device", e(d.device or "default device")), ("reference", e(d.reference)),
                 ("family / operation", f"{e(d.family)} / <code>{e(d.op)}</code>"), ("kind", e(d.kind)),
                 ("signature", f"inputs <code>{e(d.inputs)}</code>: expected {e(d.expected)}, got {e(d.actual)}"),
                 ("examples", f"{d.count} example(s) showed it"), ("spec", f"<code>{e(record.get('spec'))}</code>"),
                 ("run", run_line(self.data, d.run_id))]
        parts.append(facts_table(facts))
        parts.append("<h2>Expected vs actual</h2>")
        parts.append(table(["", e(d.reference), e(f"{backend['id']} {backend['version']}")],
                           outcome_rows(record.get("expected") or {}, record.get("actual") or {})))
        parts.append(f"<p><b>Detail:</b> {e(record.get('detail'))}</p>")
        example = record.get("example") or {}
        source = "\n".join(f"{name} = {value}" for name, value in (example.get("inputs") or {}).items())
        parts.append("<h2>Minimal example</h2>")
        parts.append(f"<pre>{t(source)}\n{t(example.get('call'))}</pre>")
        parts.append('<h2>Reproducer <button type=button onclick="copyRepro(this)">Copy</button></h2>')
        parts.append("<p class=muted>Runs from a checkout of compat (or with compat installed) and prints both results.</p>")
        parts.append(f'<pre id="repro">{t(record.get("reproducer"))}</pre>')
        parts.append("<h2>Registry</h2>")
        if d.known:
            entry = self.registry_for(d.run_id).by_id().get(d.known)
            if entry is None:
                parts.append(f"<p>Matched registry entry <code>{e(d.known)}</code> (not in the registry found for "
                             f"this run).</p>")
            else:
                source_link = (f'<a href="{e(entry.source)}">{e(entry.source)}</a>'
                               if entry.source.startswith(("https://", "http://")) else e(entry.source or "none given"))
                parts.append(facts_table([("entry", f"<code>{e(entry.id)}</code>"), ("differs", e(entry.differs)),
                                          ("reason", e(entry.reason)), ("source", source_link)]))
        else:
            parts.append("<p>No registry entry matches. If the difference is intended, document it in the registry "
                         "(<code>fixtures/known-divergences.toml</code>) with a reason and a source.</p>")
        self.site.page(d.page, title, "\n".join(parts), here="index.html", script=COPY_SCRIPT)

    # promotion

    def promotion(self) -> None:
        data = self.data
        rows = [r for r in data.rows_of(False) if (r.key, "promotion") in data.cells and r.name != "numpy"]
        names = list(dtypes.ALL)
        baseline = {}
        for a in names:
            for b in names:
                try:
                    baseline[(a, b)] = dtypes.name_of(np.result_type(dtypes.to_numpy(a), dtypes.to_numpy(b)))
                except (TypeError, LookupError):
                    baseline[(a, b)] = None
        parts = ["<h1>Type promotion: result dtypes against NumPy</h1>",
                 "<p class=lead>For each backend: the result dtype of an operation on arrays of dtype A (row) and B "
                 "(column). A plain cell is NumPy's result (<code>np.result_type(A, B)</code>) where the backend agrees; "
                 "an <span class=diff>amber</span> cell shows the backend's dtype where it differs (hover for NumPy's "
                 "and the operations), a <span class=raises>red</span> one where the backend raised and NumPy did not; "
                 "a dash marks a pair NumPy defines no result for. Results of one operation that differ from the "
                 "common dtype (true_divide of integers, comparisons) are marked with *.</p>"]
        if not rows:
            parts.append("<p class=muted>No promotion records in the store.</p>")
        for row in rows:
            cell = data.cells[(row.key, "promotion")]
            mine = [d for d in cell.divergences if d.reference == "numpy" and d.exhaustive]
            differences = promotion_differences(Run(cell.run_id, divergences=[as_record(d) for d in mine]))
            differences = differences.get(row.backend_id, [])
            others = promotion_differences(Run(cell.run_id, divergences=[
                as_record(d) for d in cell.divergences if d.reference == "numpy" and d.elsewhere])).get(row.backend_id, [])
            exhaustive = any(EXHAUSTIVE in spec for spec in cell.specs)
            grid = defaultdict(list)   # (a, b) -> [(text, title, cls)]
            for diff in differences:
                pair = tuple(diff["inputs"].split(","))
                if len(pair) == 2 and pair in baseline:
                    marked = "" if diff["numpy"] == baseline[pair] else "*"
                    grid[pair].append((diff["backend"] + marked, f"NumPy {diff['numpy']}, {row.backend_id} {diff['backend']}: "
                                       + ", ".join(diff["ops"]), "diff"))
                else:
                    others.append(diff)
            raised = defaultdict(set)
            for d in mine:
                pair = tuple(d.inputs.split(","))
                if d.kind == "error" and d.expected == "ok" and len(pair) == 2 and pair in baseline:
                    raised[pair].add(d.op)
            for pair, ops in raised.items():
                grid[pair].append(("raises", f"{row.backend_id} raised where NumPy did not: " + ", ".join(sorted(ops)),
                                   "raises"))
            parts.append(f"<h2>{e(row.label())}</h2>")
            checked_ops = sorted({op for spec in cell.specs if EXHAUSTIVE in spec for op in self.spec_ops(cell, spec)})
            if exhaustive:
                parts.append(f"<p class=muted>From {run_line(data, cell.run_id)}; every pair of dtypes checked for "
                             f"{e(', '.join(checked_ops) or 'the operations of the exhaustive spec')}.</p>")
                head = ["A \\ B"] + [e(b) for b in names]
                body = []
                for a in names:
                    cells = [f"<th class=r>{e(a)}</th>"]
                    for b in names:
                        entries = grid.get((a, b))
                        if entries:
                            cls = "raises" if all(c == "raises" for _, _, c in entries) else "diff"
                            text = " ".join(t for t, _, _ in entries)
                            cells.append(f'<td class={cls} title="{e(" | ".join(t for _, t, _ in entries))}">{e(text)}</td>')
                        elif baseline[(a, b)] is None:
                            cells.append('<td class=notrun title="NumPy defines no result">&ndash;</td>')
                        else:
                            cells.append(f"<td>{e(baseline[(a, b)])}</td>")
                    body.append(cells)
                parts.append(table(head, body, "grid"))
            else:
                parts.append(f"<p class=muted>From {run_line(data, cell.run_id)}; the exhaustive spec (every pair of "
                             f"dtypes) did not run for this backend, so there is no table.</p>")
            if not differences and not others and not raised:
                parts.append(f"<p>No promotion difference from NumPy in {sum(cell.cases.values())} case(s) checked.</p>")
            if others:
                parts.append("<h3>Other promotion differences (Python scalars, 0-d arrays, unary functions, reductions)</h3>")
                parts.append(table(["inputs", "NumPy", e(row.backend_id), "operations"],
                                   [[f"<code>{e(o['inputs'])}</code>", e(o["numpy"]), f"<td class=diff>{e(o['backend'])}</td>",
                                     e(", ".join(o["ops"]))] for o in others[:TABLE_CAP]]))
                parts.append(capped_note(TABLE_CAP, len(others), "differences"))
        self.site.page("promotion.html", "Promotion tables", "\n".join(parts), here="promotion.html")

    def spec_ops(self, cell: Cell, spec: str) -> list[str]:
        return cell.spec_cases.get(spec, [])

    # surveys

    def surveys(self) -> None:
        data = self.data
        parts = ["<h1>Survey tables</h1>",
                 "<p class=lead>What each backend does where there is no single right answer or where NumPy raises: "
                 "one table per survey, a column per backend (latest run that recorded it; a column per version "
                 "for a backend recorded at several). Cells that differ from the most common answer of their row are "
                 "<span class=diff>amber</span>.</p>"]
        latest = {}   # (table, row, column) -> (order, value, detail)
        observed = data.db.execute(
            "SELECT run_id, survey, survey_row, survey_value, backend_id, backend_version, device, "
            "json_extract(body, '$.detail') FROM records JOIN bodies USING (digest) WHERE type = 'observation'").fetchall()
        versions = defaultdict(set)
        for row in observed:
            versions[row[4]].add(row[5])
        for run_id, survey, case, value, backend_id, version, device, detail in observed:
            column = backend_id + (f" {version}" if len(versions[backend_id]) > 1 else "") + (f" on {device}" if device else "")
            order = data.order.get(run_id, -1)
            key = (survey, case, column)
            if key not in latest or latest[key][0] <= order:
                latest[key] = (order, value, detail)
        tables = defaultdict(dict)
        for (survey, case, column), (_, value, detail) in latest.items():
            tables[survey][(case, column)] = (value, detail)
        if not tables:
            parts.append("<p class=muted>No observation records in the store.</p>")
        for survey in sorted(tables):
            cells = tables[survey]
            columns = sorted({c for _, c in cells})
            cases = sorted({r for r, _ in cells})
            body = []
            for case in cases:
                values = Counter(cells[(case, c)][0] for c in columns if (case, c) in cells)
                common = values.most_common(1)[0][0] if len(values) > 1 else None
                row = [e(case)]
                for column in columns:
                    if (case, column) not in cells:
                        row.append("<td class=notrun>not recorded</td>")
                        continue
                    value, detail = cells[(case, column)]
                    cls = " class=diff" if common is not None and value != common else ""
                    row.append(f'<td{cls} title="{e(detail or "")}">{e(value)}</td>')
                body.append(row)
            parts.append(f"<h2>{e(survey)}</h2>")
            parts.append(table(["case"] + [e(c) for c in columns], body))
        parts.append(self.out_of_bounds())
        self.site.page("surveys.html", "Survey tables", "\n".join(parts), here="surveys.html")

    def out_of_bounds(self) -> str:
        """Indexing divergences of the invalid-index specs: what each backend did where NumPy raised."""
        data = self.data
        rows = [r for r in data.rows_of(False) if (r.key, "indexing") in data.cells]
        covering = [r for r in rows if any(invalid_spec(s) for s in data.cells[(r.key, "indexing")].specs)
                    and r.name != "numpy"]
        found = {}
        for row in covering:
            for d in data.cells[(row.key, "indexing")].divergences:
                if d.invalid:
                    found.setdefault((d.inputs, d.expected), {}).setdefault(row.key, d)
        parts = ["<h2>Out-of-bounds and invalid indices</h2>"]
        if not found:
            parts.append("<p class=muted>No divergence recorded by an invalid-index spec.</p>")
            return "\n".join(parts)
        parts.append("<p>Where NumPy raises for an index (out of range, a float, too many indices), what each backend "
                     "did instead, from the divergences of the invalid-index spec. <span class=clean>Same as NumPy</span> "
                     "means the spec ran and found no divergence of that index kind; hover a cell for the example.</p>")
        body = []
        ordered = sorted(found.items())
        bodies = data.bodies([d.record_id for _, per in ordered[:TABLE_CAP] for d in per.values()])
        for (inputs, expected), per in ordered[:TABLE_CAP]:
            first = bodies[next(iter(per.values())).record_id]
            numpy_side = describe_outcome(first.get("expected") or {})
            row = [f"<code>{e(inputs)}</code>", e(numpy_side)]
            for r in covering:
                d = per.get(r.key)
                if d is None:
                    row.append("<td class=clean>same as NumPy</td>")
                    continue
                record = bodies[d.record_id]
                text = describe_outcome(record.get("actual") or {})
                call = (record.get("example") or {}).get("call", "")
                link = f'<a href="{d.page}">{e(text)}</a>' if d.page in self.pages else e(text)
                row.append(f'<td class={"new" if d.status == "new" else "known"} title="{e(call)}">{link}</td>')
            body.append(row)
        parts.append(table(["index kind (dtype, index)", "NumPy"]
                           + [f"{e(r.backend_id)} <span class=ver>{e(r.version)}</span>" for r in covering], body))
        parts.append(capped_note(TABLE_CAP, len(ordered), "index kinds"))
        return "\n".join(parts)

    # devices

    def devices(self) -> None:
        data = self.data
        rows = data.rows_of(True)
        parts = ["<h1>Devices</h1>",
                 "<p class=lead>Each device against its reference device (the same framework on its CPU, or the "
                 "reference plug-in device): the same colours as the main matrix, the reference device in place of "
                 "NumPy.</p>", LEGEND, matrix(data, rows, device_view=True), "<h2>Kernel coverage of plug-in devices</h2>",
                 "<p>Per kernel, how many launches of a plug-in device ran on the device and how many fell back to "
                 "the CPU (latest run per device); kernels that fell back come first. Only what the plug-in sees is "
                 "counted: an op that TensorFlow's soft placement sends to the CPU never reaches the APU, so it is "
                 "missing here and shows as a <code>device</code> divergence instead.</p>"]
        latest = {}
        for run_id, backend_id, device, body in data.db.execute(
                "SELECT run_id, backend_id, device, body FROM records JOIN bodies USING (digest) "
                "WHERE type = 'coverage'"):
            key = (backend_id, device)
            order = data.order.get(run_id, -1)
            if key not in latest or latest[key][0] < order:
                latest[key] = (order, run_id, [])
            if latest[key][0] == order:
                latest[key][2].append(json.loads(body)["ops"])
        if not latest:
            parts.append("<p class=muted>No coverage records in the store.</p>")
        for (backend_id, device), (_, run_id, op_maps) in sorted(latest.items(),
                                                                            key=lambda kv: (kv[0][0], kv[0][1] or "")):
            totals = defaultdict(lambda: [0, 0])
            for ops in op_maps:
                for op, n in ops.items():
                    totals[op][0] += n.get("device", 0)
                    totals[op][1] += n.get("fallback", 0)
            body = []
            for op, (on, back) in sorted(totals.items(), key=lambda kv: (-kv[1][1], kv[0])):
                share = on / (on + back) if on + back else 0
                cls = "clean" if back == 0 else "known" if on else "new"
                verdict = ("ran on the device" if back == 0 else f"fell back to the CPU {back} time(s)" if on
                           else "always fell back")
                body.append([f"<code>{e(op)}</code>", f"<td class=num>{on}</td>", f"<td class=num>{back}</td>",
                             f"<td class=num>{share:.0%}</td>", f"<td class={cls}>{verdict}</td>"])
            parts.append(f"<h3>{e(backend_id)} on {e(device or 'default device')}</h3>"
                         f"<p class=muted>{run_line(data, run_id)}</p>")
            parts.append(table(["kernel", "launches on the device", "fell back to the CPU", "share on the device",
                                "verdict"], body))
        self.site.page("devices.html", "Devices", "\n".join(parts), here="devices.html")

    # history

    def history(self) -> None:
        data = self.data
        per_run = defaultdict(lambda: [0, 0])        # (run, backend id) -> [new, known]
        per_version = defaultdict(lambda: [0, 0])    # (run, backend id, version)
        for run_id, backend_id, version, status, n in data.db.execute(
                "SELECT run_id, backend_id, backend_version, status, count(*) FROM ("
                f"SELECT DISTINCT run_id, backend_version, status, {', '.join(KEY_FIELDS)} FROM records "
                "WHERE type = 'divergence') GROUP BY run_id, backend_id, backend_version, status"):
            slot = 0 if status == "new" else 1
            per_run[(run_id, backend_id)][slot] += n
            per_version[(run_id, backend_id, version)][slot] += n
        versions = defaultdict(list)  # (backend id, version) -> runs
        for run_id, backend_id, version in data.db.execute(
                "SELECT DISTINCT run_id, backend_id, backend_version FROM records WHERE type IN ('divergence', 'checks')"):
            versions[(backend_id, version)].append(run_id)
        backends = sorted({b for b, _ in versions})
        parts = ["<h1>History</h1>",
                 "<p class=lead>Distinct divergences (new / known) per run and backend, latest run first; then per "
                 "backend version; then, for each backend and family, what changed since the run before the latest.</p>",
                 "<h2>Divergences per run</h2>"]
        runs = list(reversed(data.runs))[:HISTORY_RUNS]
        body = []
        ran = {(r, b): v for (b, v), rs in versions.items() for r in rs}  # (run, backend id) -> version
        for run_id in runs:
            run = data.runs[run_id]
            row = [e(when(run["started"])), f"<code>{e(run_id)}</code>"]
            for backend_id in backends:
                if (run_id, backend_id) not in ran:
                    row.append("<td class=notrun></td>")
                    continue
                new, known = per_run.get((run_id, backend_id), (0, 0))
                cls = "new" if new else "known" if known else "clean"
                row.append(f'<td class="c {cls}">{new} / {known}<small>{e(ran[(run_id, backend_id)])}</small></td>')
            body.append(row)
        parts.append(table(["started", "run"] + [f"{e(b)}<br><small>new / known</small>" for b in backends], body))
        if len(data.runs) > HISTORY_RUNS:
            parts.append(capped_note(HISTORY_RUNS, len(data.runs), "runs"))
        parts.append("<h2>Per backend version</h2>")
        body = []
        for (backend_id, version), run_ids in sorted(versions.items(), key=lambda kv: (kv[0][0], version_order(kv[0][1]))):
            ordered = sorted(run_ids, key=lambda r: data.order.get(r, -1))
            last = ordered[-1]
            new, known = per_version.get((last, backend_id, version), (0, 0))
            body.append([e(backend_id), e(version), f"<td class=num>{len(ordered)}</td>",
                         e(when(data.runs[ordered[0]]["started"])), e(when(data.runs[last]["started"])),
                         f'<td class="c {"new" if new else "known" if known else "clean"}">{new} / {known}</td>'])
        parts.append(table(["backend", "version", "runs", "first run", "latest run", "new / known in its latest run"], body))
        parts.append(self.changes())
        self.site.page("history.html", "History", "\n".join(parts), here="history.html")

    def changes(self) -> str:
        """New and fixed divergences per (row, family) between its latest and previous run."""
        data = self.data
        previous_runs = sorted(set(data.previous.values()))
        before = defaultdict(dict)
        for d in data.divergences(previous_runs):
            before[(d.run_id, (d.backend_id, d.version, d.device, data.devref(d.reference)), d.family)][d.key] = d
        parts = ["<h2>Since the previous run</h2>",
                 "<p>For each backend, device and family: divergences of the latest run that the run before it did not "
                 "show (<b>new since</b>), and divergences of the run before that the latest run no longer shows for "
                 "an operation it checked (<b>fixed since</b>). Hypothesis specs draw other examples in each run, so "
                 "a divergence that comes and goes may just not have been drawn.</p>"]
        any_change = False
        ordered = sorted(data.cells.items(), key=lambda kv: (kv[0][0][0], version_order(kv[0][0][1]), kv[0][0][2] or "",
                                                             kv[0][0][3], kv[0][1]))
        for (key, family), cell in ordered:
            if (key, family) not in data.previous:
                continue
            previous = data.previous[(key, family)]
            old = before[(previous, key, family)]
            now = {d.key: d for d in cell.divergences}
            appeared = [d for k, d in now.items() if k not in old]
            fixed = [d for k, d in old.items() if k not in now and d.op in cell.cases]
            if not appeared and not fixed:
                continue
            any_change = True
            row = data.rows[key]
            parts.append(f"<h3>{e(row.label())} · {e(family)}</h3><p class=muted>latest: {short_run(data, cell.run_id)}; "
                         f"previous: {short_run(data, previous)}</p>")
            for label, items in (("new since the previous run", appeared), ("fixed since the previous run", fixed)):
                if items:
                    items = sorted(items, key=lambda d: (d.status != "new", d.op, d.inputs))
                    linked = self.pages if label.startswith("new") else set()
                    lines = [divergence_line(d, "", linked) for d in items[:CHANGES_CAP]]
                    parts.append(f"<details{' open' if len(items) <= 5 else ''}><summary><b>{label}</b> ({len(items)})"
                                 f"</summary>" + table(LIST_HEADERS, lines) + capped_note(CHANGES_CAP, len(items), "entries")
                                 + "</details>")
        if not any_change:
            parts.append("<p class=muted>No backend and family has changed between its two latest runs "
                         "(or none was run twice).</p>")
        return "\n".join(parts)

    # versions

    def versions(self) -> None:
        """What differs between the versions of a backend in the store: the latest run of each version."""
        data = self.data
        parts = ["<h1>Versions: what changed from one version of a backend to the next</h1>",
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
                 LEGEND]
        groups = data.version_groups(False) + data.version_groups(True)
        if not groups:
            parts.append("<p class=muted>No backend was run at more than one version. Run one env or CI job per "
                         "version (e.g. <code>tox -p -e jax,jax-previous,dashboard</code>) and merge their records "
                         "into one store.</p>")
        for rows in groups:
            first = rows[0]
            where = (first.device or "default device") + (f" vs {first.devref[7:]}" if first.devref else "")
            steps = list(zip(rows, rows[1:]))
            families = sorted({family for (key, family) in data.cells if key in {r.key for r in rows}})
            diffs = {(a.version, b.version, family): self.version_step(a, b, family) for a, b in steps for family in families}
            parts.append(f"<h2>{e(first.backend_id)} on {e(where)}: "
                         + " &rarr; ".join(f"<span class=ver>{e(r.version)}</span>" for r in rows) + "</h2>")
            head = ["family"] + [f"{e(r.backend_id)} <span class=ver>{e(r.version)}</span>" for r in rows] \
                + [f"changes <span class=ver>{e(a.version)}</span> &rarr; <span class=ver>{e(b.version)}</span>"
                   for a, b in steps]
            body = []
            for family in families:
                cells = [f"<th>{e(family)}</th>"]
                cells += [cell_html(data.cells.get((r.key, family)), list_path(r, family), data=data) for r in rows]
                for a, b in steps:
                    diff = diffs[(a.version, b.version, family)]
                    if diff is None:
                        cells.append('<td class="c notrun">not run in both</td>')
                    elif not diff[0] and not diff[1]:
                        cells.append('<td class="c same">no change</td>')
                    else:
                        anchor = slug(*first.group, a.version, b.version, family)
                        cells.append(f'<td class="c changed"><a href="#{anchor}">{len(diff[0])} appeared<br>'
                                     f'{len(diff[1])} gone</a></td>')
                body.append(cells)
            parts.append(table(head, body, "matrix"))
            for a, b in steps:
                for family in families:
                    diff = diffs[(a.version, b.version, family)]
                    if not diff or not (diff[0] or diff[1]):
                        continue
                    appeared, gone, only_one = diff
                    anchor = slug(*first.group, a.version, b.version, family)
                    parts.append(f'<h3 id="{anchor}">{e(family)}: <span class=ver>{e(a.version)}</span> &rarr; '
                                 f'<span class=ver>{e(b.version)}</span></h3>'
                                 f"<p class=muted>{e(a.version)}: {run_line(data, data.cells[(a.key, family)].run_id)}<br>"
                                 f"{e(b.version)}: {run_line(data, data.cells[(b.key, family)].run_id)}"
                                 + (f"<br>{only_one} operation(s) checked by only one of them are left out" if only_one else "")
                                 + "</p>")
                    for label, items in ((f"appeared in {b.version}", appeared), (f"gone in {b.version}", gone)):
                        if items:
                            items = sorted(items, key=lambda d: (d.status != "new", d.op, d.inputs))
                            lines = [divergence_line(d, "", self.pages) for d in items[:CHANGES_CAP]]
                            parts.append(f"<details{' open' if len(items) <= 10 else ''}><summary><b>{e(label)}</b> "
                                         f"({len(items)})</summary>" + table(LIST_HEADERS, lines)
                                         + capped_note(CHANGES_CAP, len(items), "entries") + "</details>")
        self.site.page("versions.html", "Versions", "\n".join(parts), here="versions.html")

    def version_step(self, older: Row, newer: Row, family: str) -> tuple[list, list, int] | None:
        """(appeared, gone, operations checked by only one) from one version's latest run of
        a family to the next's; None if either did not run it."""
        a, b = self.data.cells.get((older.key, family)), self.data.cells.get((newer.key, family))
        if a is None or b is None:
            return None
        before, after = {d.key: d for d in a.divergences}, {d.key: d for d in b.divergences}
        both = (set(a.cases) | {d.op for d in a.divergences}) & (set(b.cases) | {d.op for d in b.divergences})
        appeared = [d for k, d in after.items() if k not in before and d.op in both]
        gone = [d for k, d in before.items() if k not in after and d.op in both]
        only_one = len((set(a.cases) | set(b.cases)) - both)
        return appeared, gone, only_one


def invalid_spec(spec: str) -> bool:
    return INVALID in spec


def as_record(d: Divergence) -> dict:
    """The fields of a divergence record that compat.results.report's helpers read."""
    return {"backend": {"id": d.backend_id}, "device": d.device, "reference": d.reference, "family": d.family,
            "op": d.op, "kind": d.kind, "signature": {"inputs": d.inputs, "expected": d.expected, "actual": d.actual},
            "count": d.count, "status": d.status, "known": d.known}


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
        differ = json.dumps(expected.get(name), sort_keys=True) != json.dumps(actual.get(name), sort_keys=True)
        for side in (expected, actual):
            value = side.get(name)
            if value is None:
                text = "&ndash;"
            elif name == "values":
                shown = json.dumps(value[:VALUES_SHOWN])
                text = f"<code>{e(shown if len(value) <= VALUES_SHOWN else shown[:-1] + ', ...]')}</code>"
            elif name == "error":
                text = (f"{e(value.get('type'))} ({e(value.get('category'))})<br><small>{e(value.get('message'))}</small>")
            else:
                text = f"<code>{e(json.dumps(value) if not isinstance(value, str) else value)}</code>"
            cells.append(f"<td{' class=diff' if differ and side is actual else ''}>{text}</td>")
        rows.append(cells)
    return rows


def render(store: Path | str, out: Path | str) -> Written:
    """Write the dashboard of the store into ``out`` (created; its old pages replaced)."""
    out = Path(out)
    connection = store_module.connect(store, create=False)
    try:
        data = Data(connection)
        if out.exists() and not out.is_dir():
            raise store_module.StoreError(f"cannot write the dashboard to {out}: not a directory")
        try:
            out.mkdir(parents=True, exist_ok=True)
            # pages of an earlier dashboard in the same place would linger unlinked
            for stale in [*out.glob("family-*.html"), *out.glob("l/*.html"), *out.glob("d/*.html")]:
                stale.unlink()
            site = Site(out)
            Dashboard(data, site).render()
            css = CSS.encode("utf-8")
            (out / "style.css").write_bytes(css)
            site.written.bytes += len(css)
        except OSError as error:
            raise store_module.StoreError(f"cannot write the dashboard to {out}: {error.strerror or error}") from None
        return site.written
    except sqlite3.Error as error:
        raise store_module.StoreError(f"cannot read store {store}: {error}") from None
    finally:
        connection.close()
