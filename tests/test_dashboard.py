"""The static dashboard: rendered from the recorded fixture runs, checked against the
records themselves, in a real headless browser, and at the scale of tens of thousands of records."""

from __future__ import annotations

import datetime
import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import pytest

from compat import dashboard
from compat.core import dtypes, ops, standard
from compat.results import aggregate, coverage, records, store
from tests.helpers import REPO, checks_record, common, divergence_record, output, run, subprocess_env

pytestmark = pytest.mark.xdist_group("dashboard")  # one worker: the module's fixtures are made once

FIXTURE = REPO / "fixtures" / "results"
CHROMIUM = Path("/usr/bin/chromium")
SCRIPT = "<script>window.__xss = 1</script>"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The dashboard of the fixture runs, made with the command line."""
    tmp = tmp_path_factory.mktemp("dashboard")
    process = run(
        [
            "-m",
            "compat",
            "dashboard",
            "--store",
            str(tmp / "store.sqlite"),
            "--results",
            str(FIXTURE),
            "-o",
            str(tmp / "site"),
        ],
        tmp,
    )
    assert process.returncode == 0, output(process)
    assert (tmp / "site" / "index.html").exists(), output(process)
    return tmp / "site"


@pytest.fixture(scope="module")
def loaded() -> records.Loaded:
    result = records.load(FIXTURE)
    assert result.problems == []
    return result


class Page(HTMLParser):
    """Tables (rows of cells: text, class, links), links and text of one page."""

    def __init__(self, path: Path):
        super().__init__(convert_charrefs=True)
        self.path = path
        self.tables: list[list[list[dict]]] = []
        self.links: list[str] = []
        self.text: list[str] = []
        self.pre: dict[str, str] = {}
        self._cell = None
        self._pre = None
        self.scripts = 0
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self._cell = {
                "text": "",
                "class": attrs.get("class") or "",
                "links": [],
                "title": attrs.get("title") or "",
            }
            self.tables[-1][-1].append(self._cell)
        elif tag == "a" and "href" in attrs:
            self.links.append(attrs["href"])
            if self._cell is not None:
                self._cell["links"].append(attrs["href"])
        elif tag == "pre":
            self._pre = attrs.get("id") or f"pre-{len(self.pre)}"
            self.pre[self._pre] = ""
        elif tag == "script":
            self.scripts += 1

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None
        elif tag == "pre":
            self._pre = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell["text"] += data
        if self._pre is not None:
            self.pre[self._pre] += data

    def all_text(self) -> str:
        return "".join(self.text)


def matrix_cells(page: Page) -> dict[tuple[str, str], dict]:
    """(backend id, column header) -> cell of the page's first table."""
    head, *rows = page.tables[0]
    columns = [c["text"].strip() for c in head]
    cells = {}
    for row in rows:
        backend = row[0]["text"].split()[0]
        for column, cell in zip(columns[1:], row[1:]):
            cells[(backend, column)] = cell
    return cells


def latest_runs(loaded: records.Loaded) -> dict[tuple[str, str], records.Run]:
    """(backend id, family) -> the latest run with records of it, straight from the record files."""
    chosen = {}
    for run_ in sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id)):
        for record in run_.divergences + run_.checks:
            chosen[(record.backend.id, record.family)] = run_
    return chosen


# -- what the pages say --------------------------------------------------------------


def test_every_link_resolves_and_no_page_needs_the_network(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    for path in pages:
        page = Page(path)
        for href in page.links:
            if href.startswith(("http://", "https://")):
                continue  # registry sources are links out, not resources of the page
            target = (path.parent / href.split("#")[0]).resolve()
            assert target.is_file(), (path, href)
        text = path.read_text()
        assert not re.search(
            r"""(src|href)=["']?(https?:)?//""",
            text.replace('href="https://', "").replace('href="http://', ""),
        ), path
        assert re.findall(r'<link rel="stylesheet" href="([^"]+)"', text) in (
            ["style.css"],
            ["../style.css"],
        ), path


def test_record_strings_are_escaped_everywhere(site):
    pages = {path: path.read_text() for path in site.rglob("*.html")}
    assert not any(SCRIPT in text for text in pages.values())
    showing = [
        path
        for path, text in pages.items()
        if html.escape(SCRIPT) in text or html.escape(SCRIPT, quote=False) in text
    ]
    assert showing, "the injected record is not shown at all"
    for path in showing:
        assert SCRIPT in Page(path).all_text()
    for path, text in pages.items():  # the only script is the copy button's
        assert text.count("<script") == text.count('copy.js"></script>'), path
    assert "function copyRepro" in (site / "copy.js").read_text()


def test_matrix_counts_are_those_of_each_cells_latest_run(site, loaded):
    cells = matrix_cells(Page(site / "index.html"))
    chosen = latest_runs(loaded)
    assert {backend for backend, _ in chosen} == {b for b, _ in cells}
    for (backend, family), run_ in chosen.items():
        cell = cells[(backend, family)]
        rows = [
            r
            for r in aggregate.summary(run_.checks, run_.divergences)
            if (r.backend, r.family) == (backend, family)
        ]
        (row,) = rows
        if row.new or row.known:
            assert f"{row.new} new / {row.known} known" in cell["text"], (backend, family, cell)
        assert f"{row.cases} case" in cell["text"], (backend, family, cell)
        assert cell["class"].split()[-1] == ("new" if row.new else "known" if row.known else "clean")
        assert run_.run_id in cell["title"]
    families = {f for _, f in cells}
    for backend in {b for b, _ in cells}:
        for family in families:
            if (backend, family) not in chosen:
                assert cells[(backend, family)]["class"].split()[-1] == "notrun"


def test_a_cell_leads_to_its_divergences_and_each_to_its_page(site, loaded):
    cells = matrix_cells(Page(site / "index.html"))
    chosen = latest_runs(loaded)
    backend, family = next(
        k
        for k, r in sorted(chosen.items())
        if any(d.backend.id == k[0] and d.family == k[1] for d in r.divergences)
    )
    (href,) = cells[(backend, family)]["links"]
    listing = Page(site / href)
    merged = [
        d
        for d in aggregate.distinct(chosen[(backend, family)].divergences)
        if d.backend.id == backend and d.family == family
    ]
    rows = listing.tables[0][1:]
    # a line per operation and cause, its signatures' inputs separated by ";" (none left out here)
    shown = [(r[1]["text"], inputs.strip()) for r in rows for inputs in r[2]["text"].split(";")]
    assert not any("more" in r[2]["text"] for r in rows)
    assert len(shown) == len(merged)
    assert set(shown) == {(d.op, d.signature["inputs"]) for d in merged}
    for row in rows:
        (link,) = row[1]["links"]  # to the line on its cause's page
        path, _, anchor = link.partition("#")
        page = Page((site / href).parent / path)
        text = page.all_text()
        assert all(inputs.strip() in text for inputs in row[2]["text"].split(";")) and row[1]["text"] in text
        assert f'id="{anchor}"' in page.path.read_text()
        assert page.pre["repro"].strip()
        for own in row[2]["links"]:  # a new divergence's own page, with its reproducer
            page = Page((site / href).parent / own)
            assert row[1]["text"] in page.all_text() and page.pre["repro"].strip()


def test_promotion_table_shows_the_backends_dtype_where_it_differs(site, loaded):
    chosen = latest_runs(loaded)
    sections = (site / "promotion.html").read_text().split("<h2>")[1:]
    grids = {}
    for section in sections:
        backend = html.unescape(section.split(" on default device")[0]).split()[0]  # "torch 2.13.0+cpu"
        (site / "section.tmp").write_text(section)
        tables = [t for t in Page(site / "section.tmp").tables if t[0][0]["text"].startswith("A")]
        if tables:
            grids[backend] = tables[0]
    (site / "section.tmp").unlink()
    exhaustive = {
        b
        for (b, f), r in chosen.items()
        if f == "promotion"
        and b != "numpy"
        and any("promotion-grid" in c.tables for c in r.checks if c.backend.id == b)
    }
    assert exhaustive and set(grids) == exhaustive
    for backend, grid in grids.items():
        columns = [c["text"] for c in grid[0]]
        cells = {(row[0]["text"], columns[i]): cell for row in grid[1:] for i, cell in enumerate(row) if i}
        assert len(cells) == len(dtypes.ALL) ** 2
        expected = defaultdict(set)
        for d in chosen[(backend, "promotion")].divergences:
            if d.backend.id == backend and "promotion-grid" in d.tables and d.kind == "dtype":
                a, b = d.signature["inputs"].split(",")
                expected[(a, b)].add(d.signature["actual"])
        assert expected
        for pair, cell in cells.items():
            if pair in expected:
                assert "diff" in cell["class"], (backend, pair, cell)
                assert all(dtype in cell["text"] for dtype in expected[pair]), (backend, pair, cell)
            else:
                assert "diff" not in cell["class"], (backend, pair, cell)


def test_surveys_show_every_observation_and_the_out_of_bounds_behaviours(site, loaded):
    page = Page(site / "surveys.html")
    observations = [r for run_ in loaded.runs.values() for r in run_.observations]
    assert observations
    by_table = {}
    for table_ in page.tables:
        header = [c["text"] for c in table_[0]]
        for row in table_[1:]:
            for column, cell in zip(header[1:], row[1:]):
                by_table[(row[0]["text"], column)] = cell["text"]
    for record in observations:
        assert by_table[(record.row, record.backend.id)] == record.value, record
    invalid = [d for run_ in loaded.runs.values() for d in run_.divergences if "invalid-indices" in d.tables]
    assert invalid
    text = page.all_text()
    for record in invalid:
        if record.run_id == latest_runs(loaded)[(record.backend.id, "indexing")].run_id:
            error = record.actual.get("error")
            assert (
                f"raises {error['type'].rsplit('.', 1)[-1]}" if error else f"returns {record.actual['dtype']}"
            ) in text


def test_devices_page_shows_kernel_coverage(site, loaded):
    coverage = [r for run_ in loaded.runs.values() for r in run_.coverage]
    assert coverage
    page = Page(site / "devices.html")
    rows = {row[0]["text"]: [c["text"] for c in row] for t in page.tables for row in t[1:]}
    for record in coverage:
        for op, n in record.ops.items():
            assert rows[op][1:3] == [str(n["device"]), str(n["fallback"])], (op, rows.get(op))


def test_history_lists_what_is_new_and_fixed_since_the_previous_run(site, loaded):
    runs = sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id))
    assert len(runs) >= 2
    previous, latest = runs[-2], runs[-1]

    def keys(run_, backend, family):
        return {
            (d.op, d.kind, d.signature["inputs"], d.signature["expected"], d.signature["actual"])
            for d in run_.divergences
            if (d.backend.id, d.family) == (backend, family)
        }

    text = Page(site / "history.html").all_text()
    compared = 0
    versions = {d.backend.id: d.backend.version for d in latest.divergences}
    for backend, family in sorted({(d.backend.id, d.family) for d in latest.divergences}):
        if not any((r.backend.id, r.family) == (backend, family) for r in previous.checks):
            continue
        now, before = keys(latest, backend, family), keys(previous, backend, family)
        checked = {
            op for r in latest.checks if (r.backend.id, r.family) == (backend, family) for op in r.cases
        }
        new, fixed = len(now - before), len({k for k in before - now if k[0] in checked})
        section = text.split(f"{backend} {versions[backend]} on default device · {family}")
        if new or fixed:
            assert len(section) == 2, (backend, family)
            body = section[1].split(" on default device · ")[0]
            assert (f"new since the previous run ({new})" in body) == bool(new), (
                backend,
                family,
                new,
                body[:300],
            )
            assert (f"fixed since the previous run ({fixed})" in body) == bool(fixed), (
                backend,
                family,
                fixed,
            )
            compared += 1
    assert compared


def test_device_divergences_have_their_own_matrix(tmp_path, loaded):
    """A device compared with its reference device (no fixture run has one: made from a real record)."""
    real = next(
        d for run_ in loaded.runs.values() for d in run_.divergences if d.backend.name == "torch"
    ).to_json()
    run_directory = tmp_path / "results" / "device-run"
    run_directory.mkdir(parents=True)
    device = {
        **real,
        "device": "apu:0",
        "reference": "device:cpu",
        "status": "new",
        "known": None,
        "run_id": "device-run",
    }
    checks = {key: real[key] for key in ("schema", "worker", "family", "spec", "backend")}
    checks.update(
        record="checks", run_id="device-run", device="apu:0", reference="device:cpu", cases={real["op"]: 5}
    )
    (run_directory / "records-main.jsonl").write_text(json.dumps(device) + "\n" + json.dumps(checks) + "\n")
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results", FIXTURE])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    page = Page(tmp_path / "site" / "devices.html")
    cells = matrix_cells(page)
    assert list(cells) == [("torch", real["family"])]
    cell = cells[("torch", real["family"])]
    assert "1 new / 0 known" in cell["text"] and "new" in cell["class"]
    header = page.tables[0][1][0]["text"]
    assert "apu:0" in header and "cpu" in header
    # and it stays out of the NumPy matrix
    assert "apu:0" not in (tmp_path / "site" / "index.html").read_text()


def test_device_params_without_device_divergences_show_in_the_device_matrix(tmp_path, loaded):
    """The plugin writes a device param's checks against NumPy; each of those cases was also
    compared with the reference device, so the device matrix has the row, green, with its
    cases; and a spec that checked nothing (NumPy has no autodiff) is not green, and says
    what the adapter declared unsupported."""
    real = next(
        c for run_ in loaded.runs.values() for c in run_.checks if c.backend.name == "torch"
    ).to_json()
    run_directory = tmp_path / "results" / "20261122T070000Z-d0d0d0"
    run_directory.mkdir(parents=True)
    common = {key: real[key] for key in ("schema", "worker", "backend")}
    on_device = {
        **common,
        "record": "checks",
        "run_id": run_directory.name,
        "family": "promotion",
        "spec": "s[torch@apu:0]",
        "device": "apu:0",
        "reference": "numpy",
        "cases": {"add": 7},
    }
    skipped = {
        **on_device,
        "family": "gradients",
        "spec": "g[numpy]",
        "device": None,
        "cases": {},
        "backend": {**real["backend"], "name": "numpy", "id": "numpy"},
        "unsupported": {"grad": "NumPy has no automatic differentiation"},
    }
    (run_directory / "records-main.jsonl").write_text(
        json.dumps(on_device) + "\n" + json.dumps(skipped) + "\n"
    )
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    cells = matrix_cells(Page(tmp_path / "site" / "devices.html"))
    assert list(cells) == [("torch", "promotion")], cells
    assert (
        "no divergence" in cells[("torch", "promotion")]["text"]
        and "7 cases" in cells[("torch", "promotion")]["text"]
    )
    numpy_cell = matrix_cells(Page(tmp_path / "site" / "index.html"))[("numpy", "gradients")]
    assert "not checked" in numpy_cell["text"] and "clean" not in numpy_cell["class"], numpy_cell
    assert "1 unsupported" in numpy_cell["text"], numpy_cell  # declared, though no case was checked


# -- execution modes -------------------------------------------------------------------


def test_execution_modes_have_their_own_matrix(tmp_path):
    """A mode row (jax.jit: backend config {"mode": "jit"}) is compared with NumPy and with the
    same backend run eagerly: its divergence from eager is counted on the modes page, its
    divergence from NumPy in the main matrix, each cell with the cases of its checks records
    (they name NumPy); a device row stays on the devices page."""
    run_id = "20261122T080000Z-e0e0e0"
    jax = {"name": "jax", "id": "jax[x64]", "version": "0.10.2", "config": {"x64": True}}
    jit = {**jax, "config": {"x64": True, "mode": "jit"}}
    lines = [
        checks_record(run_id=run_id, cases={"add": 4, "multiply": 4}) | {"backend": jax},
        checks_record(run_id=run_id, cases={"add": 3, "multiply": 3}) | {"backend": jit},
        divergence_record("add", run_id=run_id) | {"backend": jit},
        divergence_record("multiply", run_id=run_id) | {"backend": jit, "reference": "mode:eager"},
        checks_record(run_id=run_id, cases={"add": 2}) | {"backend": jax, "device": "cpu:1"},
        divergence_record("add", run_id=run_id)
        | {"backend": jax, "device": "cpu:1", "reference": "device:cpu:0"},
    ]
    run_directory = tmp_path / "results" / run_id
    run_directory.mkdir(parents=True)
    (run_directory / "records-main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    site = tmp_path / "site"

    modes = Page(site / "modes.html")
    cells = matrix_cells(modes)
    assert list(cells) == [("jax[x64]~jit", "promotion")], cells
    cell = cells[("jax[x64]~jit", "promotion")]
    assert (
        "1 new / 0 known" in cell["text"] and "6 cases checked" in cell["text"] and "new" in cell["class"]
    ), cell
    assert "vs eager" in modes.tables[0][1][0]["text"]
    (listed,) = modes.tables[1:]  # the mode row's divergences from eager, with a page each
    assert [(row[0]["text"], row[3]["text"]) for row in listed[1:]] == [("promotion", "multiply")]
    assert all((site / link.split("#")[0]).is_file() for link in modes.links)
    (href,) = cell["links"]
    assert [row[1]["text"] for row in Page(site / href).tables[0][1:]] == ["multiply"]
    assert "cpu:1" not in modes.all_text()

    index = Page(site / "index.html")
    assert "modes.html" in index.links
    cell = matrix_cells(index)[("jax[x64]~jit", "promotion")]
    assert "1 new / 0 known" in cell["text"] and "6 cases checked" in cell["text"], cell
    (href,) = cell["links"]
    assert [row[1]["text"] for row in Page(site / href).tables[0][1:]] == ["add"]

    devices = Page(site / "devices.html")
    cells = matrix_cells(devices)
    assert list(cells) == [("jax[x64]", "promotion")], cells
    assert "1 new / 0 known" in cells[("jax[x64]", "promotion")]["text"]
    assert "cpu:1" in devices.tables[0][1][0]["text"] and "~jit" not in devices.all_text()


def test_a_store_without_modes_says_so_on_the_modes_page(site):
    text = " ".join(Page(site / "modes.html").all_text().split())
    assert "No records compare an execution mode with eager" in text
    assert "modes.html" in Page(site / "index.html").links


# -- coverage of the standard -------------------------------------------------------------


def test_the_coverage_page_marks_each_function_per_row_and_the_index_counts_them(tmp_path):
    """A function counts where a case of it was checked (NumPy's power for the standard's pow);
    one the adapter declared unsupported shows the reason; the index repeats each row's count."""
    run_id = "20261126T080000Z-c0c0c0"
    torch = {"name": "torch", "id": "torch", "version": "2.13.0", "config": {}}
    lines = [
        checks_record(run_id=run_id, cases={"add": 4, "power": 1}),
        checks_record(run_id=run_id, cases={"add": 4}) | {"backend": torch, "unsupported": {"sqrt": "none"}},
    ]
    run_directory = tmp_path / "results" / run_id
    run_directory.mkdir(parents=True)
    (run_directory / "records-main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    page = Page(tmp_path / "site" / "coverage.html")
    counts, grid = page.tables
    assert [[c["text"] for c in row] for row in counts[1:]] == [
        ["numpy 2.0.0", "2 of 135 functions, 0 operator forms checked"],
        ["torch 2.13.0", "1 of 135 functions, 0 operator forms checked"],
    ]
    cells = {row[0]["text"]: [c["text"] for c in row[2:]] for row in grid[1:]}
    assert len(cells) == len(standard.FUNCTIONS) + len(coverage.operator_forms())
    assert cells["pow"] == ["checked", "not checked"] and cells["add"] == ["checked", "checked"]
    assert cells["sqrt"][1].startswith("unsupported") and "none" in cells["sqrt"][1]
    index = Page(tmp_path / "site" / "index.html")
    assert "coverage.html" in index.links
    assert "1 of 135 functions, 0 operator forms checked" in index.all_text()


def test_the_coverage_pages_counts_are_its_checked_cells(site):
    counts, grid = Page(site / "coverage.html").tables
    for column, row in enumerate(counts[1:], start=2):
        functions = [cells for cells in grid[1:] if cells[0]["text"] in standard.FUNCTIONS]
        checked = sum(1 for cells in functions if cells[column]["text"] == "checked")
        assert row[1]["text"].startswith(f"{checked} of 135 functions"), row


# -- accuracy --------------------------------------------------------------------------

ACCURACY = "accuracy: worst error in ULPs"  # compat/specs/numerics.py's test_accuracy_survey


def observation_record(row: str, value: str, backend: dict, run_id: str, table: str = ACCURACY) -> dict:
    return {
        **common(run_id=run_id, spec="compat/specs/numerics.py::test_accuracy_survey[exp]"),
        "family": "numerics",
        "record": "observation",
        "table": table,
        "row": row,
        "value": value,
        "backend": backend,
    }


def test_accuracy_page_has_a_table_per_function_marked_against_the_bound(tmp_path):
    """Two backend rows, one of them a mode (jax.jit): a table per function, a row per dtype
    (in the dtypes' order) with the function's published accuracy there, a column per backend
    row; the latest run's value in each cell, the input that reached it in the cell's title,
    amber beyond the published accuracy of that function and dtype (tanh float32: 2 ULP, exp
    float32: 3), flushed results as a note, and what a call raised or a non-finite error as
    text. The surveys page links to it."""
    numpy = {"name": "numpy", "id": "numpy", "version": "2.0.0", "config": {}}
    jit = {"name": "jax", "id": "jax[x64]", "version": "0.10.2", "config": {"x64": True, "mode": "jit"}}
    older, latest = "20261123T080000Z-a0a0a0", "20261123T090000Z-a1a1a1"
    runs = {
        older: [observation_record("exp float32", "1 ULP at exp(1.5)", jit, older)],
        latest: [
            observation_record("exp float64", "0 ULP (all 1024 inputs)", numpy, latest),
            observation_record("exp float32", "2 ULP at exp(-45.3402214050293)", numpy, latest),
            observation_record("exp float32", "5.37e+06 ULP at exp(-87.78279113769531)", jit, latest),
            observation_record("exp float64", "inf ULP at exp(530.5677121906018)", jit, latest),
            observation_record("tanh float16", "0.498 ULP at tanh(0.09033203125)", numpy, latest),
            observation_record("tanh float32", "4 ULP at tanh(8.022161483764648)", jit, latest),
            observation_record(
                "tanh float32",
                "1 ULP at tanh(-8.263702392578125); 3 subnormal results flushed to zero",
                numpy,
                latest,
            ),
            observation_record("tanh float16", f"raised TypeError (unsupported): no {SCRIPT}", jit, latest),
            observation_record("floor(x) at x=0.5", "float32[1] [0.0]", jit, latest, "gradient conventions"),
        ],
    }
    for run_id, lines in runs.items():
        (tmp_path / "results" / run_id).mkdir(parents=True)
        (tmp_path / "results" / run_id / "records-main.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in lines)
        )
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    site = tmp_path / "site"

    page = Page(site / "accuracy.html")
    text = " ".join(page.all_text().split())
    assert "published accuracy" in text and "1024 inputs" in text, text
    exp, tanh = page.tables
    assert [c["text"] for c in exp[0]] == ["dtype", "numpy", "jax[x64]~jit"]
    published = {"exp": ops.PUBLISHED_ULPS["exp"], "tanh": ops.PUBLISHED_ULPS["tanh"]}
    assert [row[0]["text"].split() for row in exp[1:]] == [
        ["float32", f"{published['exp'][0]}", "ULP"],
        ["float64", f"{published['exp'][1]}", "ULP"],
    ]
    assert [row[0]["text"].split() for row in tanh[1:]] == [
        ["float16", f"{ops.NARROW_ULPS}", "ULP"],
        ["float32", f"{published['tanh'][0]}", "ULP"],
    ]
    cells = {
        (name, row[0]["text"].split()[0], column): cell
        for name, table_ in (("exp", exp), ("tanh", tanh))
        for row in table_[1:]
        for column, cell in zip(("numpy", "jit"), row[1:])
    }
    assert (
        cells[("exp", "float32", "numpy")]["text"] == "2"
        and "exp(-45.3402214050293)" in cells[("exp", "float32", "numpy")]["title"]
    )
    assert not {"diff", "new", "notrun"} & set(cells[("exp", "float32", "numpy")]["class"].split())
    beyond = cells[("exp", "float32", "jit")]  # the latest run's, not the older one's
    assert beyond["text"] == "5.37e+06" and "exp(-87.78279113769531)" in beyond["title"], beyond
    assert (
        "diff" in beyond["class"].split() and "beyond the published accuracy of 3 ULP" in beyond["title"]
    ), beyond
    tanh_jit = cells[("tanh", "float32", "jit")]  # within a general 4-ULP bound, beyond tanh's published 2
    assert tanh_jit["text"] == "4" and "diff" in tanh_jit["class"].split(), tanh_jit
    flushing = cells[("tanh", "float32", "numpy")]
    assert flushing["text"].split() == ["1", "3", "subnormal", "results", "flushed", "to", "zero"], flushing
    assert not {"diff", "new", "notrun"} & set(flushing["class"].split())
    assert (
        cells[("exp", "float64", "numpy")]["text"] == "0"
        and "clean" in cells[("exp", "float64", "numpy")]["class"].split()
    )
    assert (
        cells[("tanh", "float16", "numpy")]["text"] == "0.498"
        and "clean" in cells[("tanh", "float16", "numpy")]["class"].split()
    )
    infinite = cells[("exp", "float64", "jit")]
    assert "inf ULP" in infinite["text"] and "exp(530.5677121906018)" in infinite["text"], infinite
    assert "new" in infinite["class"].split()
    raised = cells[("tanh", "float16", "jit")]
    assert "raised TypeError (unsupported)" in raised["text"] and SCRIPT in raised["text"], raised
    assert "notrun" in raised["class"].split()
    assert SCRIPT not in (site / "accuracy.html").read_text()
    assert "gradient conventions" not in text and "floor(x)" not in text

    surveys = Page(site / "surveys.html")
    assert "accuracy.html" in surveys.links
    assert (
        len(surveys.tables) == 1 and surveys.tables[0][1][0]["text"] == "floor(x) at x=0.5"
    )  # not the accuracy rows
    nav = Page(site / "index.html").links
    assert nav.index("accuracy.html") == nav.index("surveys.html") + 1


def test_a_store_without_accuracy_records_says_so_on_the_accuracy_page(site):
    page = Page(site / "accuracy.html")
    assert "No accuracy records in the store" in " ".join(page.all_text().split())
    assert page.tables == []


# -- versions --------------------------------------------------------------------------

PREVIOUS = "0.9.2"


def with_a_previous_jax(results: Path) -> dict:
    """A copy of the latest fixture run's jax[x64] records at another JAX version, as tox's
    jax-previous env leaves one (a run of its own, started later): one promotion divergence
    of the fixture is missing there, one that the fixture lacks is added, and one survey
    answer differs. What was changed, for the assertions."""
    source = max((p.parent for p in FIXTURE.rglob("run.json")), key=lambda p: p.name)
    run_id = "20261122T030000Z-0a0b0c"
    target = results / run_id
    target.mkdir(parents=True)
    meta = json.loads((source / "run.json").read_text())
    meta.update(
        run_id=run_id,
        started="2026-11-22T03:00:00+00:00",
        backends=[{**b, "version": PREVIOUS} for b in meta["backends"] if b["id"] == "jax[x64]"],
    )
    (target / "run.json").write_text(json.dumps(meta))
    mine = [
        json.loads(line)
        for path in sorted(source.glob("records-*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip() and json.loads(line)["backend"]["id"] == "jax[x64]"
    ]
    for record in mine:
        record.update(run_id=run_id, backend={**record["backend"], "version": PREVIOUS})
    promotion = sorted(
        (r for r in mine if r["record"] == "divergence" and r["family"] == "promotion"),
        key=lambda r: (r["op"], r["signature"]["inputs"]),
    )
    dropped = promotion[0]["signature"]
    mine = [r for r in mine if r.get("signature") != dropped or r["family"] != "promotion"]
    added = {**promotion[1], "signature": {**promotion[1]["signature"], "inputs": "float16,float16"}}
    mine.append(added)
    survey = next(r for r in mine if r["record"] == "observation")
    survey["value"] = "previous answer"
    (target / "records-gw0.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in mine))
    return {
        "run_id": run_id,
        "latest": source.name,
        "dropped": dropped["inputs"],
        "added": added["signature"]["inputs"],
        "survey": (survey["row"], survey["value"]),
    }


def header_text(cell: dict) -> str:
    return " ".join(cell["text"].split())


def test_each_version_of_a_backend_is_a_row_and_the_versions_page_says_what_changed(tmp_path):
    changed = with_a_previous_jax(tmp_path / "results")
    store.ingest(tmp_path / "s.sqlite", [FIXTURE, tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    site = tmp_path / "site"

    # the matrix: a row per version, each from its own run, the older version first
    index = Page(site / "index.html")
    head, *rows = index.tables[0]
    columns = [c["text"].strip() for c in head]
    by_row = {header_text(row[0]): dict(zip(columns[1:], row[1:])) for row in rows}
    jax_rows = [h for h in by_row if h.startswith("jax[x64]")]
    assert [h.replace("default device", "") for h in jax_rows] == [
        f"jax[x64] {PREVIOUS}",
        "jax[x64] 0.10.2",
    ], list(by_row)
    assert changed["run_id"] in by_row[jax_rows[0]]["promotion"]["title"]
    assert changed["latest"] in by_row[jax_rows[1]]["promotion"]["title"]
    assert "versions.html" in index.links and f"{PREVIOUS} → 0.10.2" in " ".join(index.all_text().split())

    # the versions page: per family, what appeared and what is gone from one version to the next
    page = Page(site / "versions.html")
    text = " ".join(page.all_text().split())
    assert f"jax[x64] on default device: {PREVIOUS} → 0.10.2" in text
    summary = {row[0]["text"]: [header_text(c) for c in row[1:]] for row in page.tables[0][1:]}
    assert summary["promotion"][-1].replace(" ", "") == "1appeared1gone", summary
    assert summary["indexing"][-1] == "no change", summary
    appeared, gone = (t for t in page.tables[1:] if t[0][0]["text"] == "status")
    assert [row[3]["text"] for row in appeared[1:]] == [changed["dropped"]]
    assert [row[3]["text"] for row in gone[1:]] == [changed["added"]]
    assert "appeared in 0.10.2 (1)" in text and "gone in 0.10.2 (1)" in text
    for link in page.links:  # anchors on the page, list pages, divergence pages
        assert link.startswith("#") or (site / link.split("#")[0]).is_file(), link

    # a (known) divergence that both versions show: its line on its cause's page names each version's row
    both = []
    for path in (site / "c").glob("*.html"):
        for table_ in Page(path).tables:
            head = [c["text"] for c in table_[0]]
            if "rows" in head and "inputs" in head:
                named = [row[head.index("rows")]["text"] for row in table_[1:]]
                both += [
                    text for text in named if f"jax[x64] {PREVIOUS}" in text and "jax[x64] 0.10.2" in text
                ]
    assert both

    # surveys: a column per version; history: each run's cell names its version
    surveys = Page(site / "surveys.html")
    header = [c["text"] for c in surveys.tables[0][0]]
    assert f"jax[x64] {PREVIOUS}" in header and "jax[x64] 0.10.2" in header, header
    row = next(r for r in surveys.tables[0][1:] if r[0]["text"] == changed["survey"][0])
    assert row[header.index(f"jax[x64] {PREVIOUS}")]["text"] == changed["survey"][1]
    history = Page(site / "history.html")
    first = history.tables[0][1]  # the latest run: the previous JAX's
    assert changed["run_id"] in first[1]["text"]
    assert any(cell["text"].endswith(PREVIOUS) for cell in first[2:]), first


def test_a_store_of_one_version_per_backend_says_so_on_the_versions_page(site):
    text = " ".join(Page(site / "versions.html").all_text().split())
    assert "No backend was run at more than one version" in text
    assert "Run at more than one version" not in Page(site / "index.html").all_text()


# -- wrappers --------------------------------------------------------------------------


def a_wrapper_run(results: Path, registry: Path) -> None:
    """test_wrapper_table's run of torch beside array_api_compat.torch, with its replays, as a run
    folder: the wrapper removes torch-mean-needs-float (mean), adds a new cumsum error, keeps the
    add dtype divergence; torch-mean's example does not diverge on the wrapper, own-mean's (an entry
    of the wrapper's) neither; a drawn sum of the wrapper's row still matches torch-mean."""
    from tests.test_wrapper_table import RECORDS, TORCH, WRAPPER, diverged, replay

    run_id = "20261127T120000Z-0c0d0e"
    lines = [*RECORDS, diverged(WRAPPER, "promotion", "sum", "error", known="torch-mean")]  # a drawn one
    lines += [
        replay(TORCH, "torch-mean", "reproduced"),
        replay(WRAPPER, "torch-mean", "fixed"),
        replay(WRAPPER, "own-mean", "fixed"),
        replay(WRAPPER, "torch-mean-needs-float", "fixed"),  # the example of mean: removed by replay
    ]
    (results / run_id).mkdir(parents=True)
    meta = {
        "run_id": run_id,
        "started": "2026-11-27T12:00:00+00:00",
        "mode": "report",
        "backends": [TORCH, WRAPPER],
        "registry": str(registry),
    }
    (results / run_id / "run.json").write_text(json.dumps(meta))
    (results / run_id / "records-gw0.jsonl").write_text(
        "".join(json.dumps(line | {"run_id": run_id}, sort_keys=True) + "\n" for line in lines)
    )


def test_the_wrappers_page_shows_what_a_wrapper_removes_and_adds_and_versions_calls_none_fixed(tmp_path):
    from tests.test_registry import entry, write

    registry = write(
        tmp_path,
        entry("torch-mean", "torch")
        + entry("torch-mean-needs-float", "torch")
        + entry("own-mean", "array-api:array_api_compat.torch"),
    )
    a_wrapper_run(tmp_path / "results", registry)
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    site = tmp_path / "site"
    assert "wrappers.html" in Page(site / "index.html").links

    page = Page(site / "wrappers.html")
    text = " ".join(page.all_text().split())
    assert "array-api:array_api_compat.torch beside torch" in text
    facts = {row[0]["text"]: " ".join(row[1]["text"].split()) for row in page.tables[0]}
    assert facts["rows compared"] == "array-api:array_api_compat.torch 1.16.0 beside torch 2.13.0", facts
    assert facts["device, mode"] == "default device, eager"
    assert "20261127T120000Z-0c0d0e" in facts["runs"] and facts["runs"].endswith(": promotion"), facts
    assert facts["operations both rows checked"].endswith("promotion: add, cumsum, mean"), facts  # not sum
    head, *changes = page.tables[1]
    assert [c["text"] for c in head][:8] == [
        "family",
        "op",
        "kind",
        "change",
        "by",
        "registry entry",
        "divergences",
        "examples",
    ]
    assert [[c["text"] for c in row] for row in changes] == [
        ["promotion", "mean", "error", "removed", "replay", "torch-mean-needs-float", "1", "1", "int8,uint8"],
        ["promotion", "cumsum", "error", "added", "replay", "new", "1", "1", "int8,uint8"],
    ]
    assert "the other row showed it on" in changes[1][4]["title"]
    assert [row[3]["class"] for row in changes] == ["c clean", "c new"]  # a new addition in red
    for row, backend in zip(changes, ["torch", "array-api:array_api_compat.torch"]):
        (link,) = row[8]["links"]  # the known removal's line on its entry's page, the new addition's page
        path = site / link.split("#")[0]
        facts_of_page = {r[0]["text"]: r[1]["text"] for r in Page(path).tables[0]}
        assert facts_of_page["backend"].split()[0] == backend, facts_of_page
        assert row[1]["text"] in Page(path).all_text() and row[8]["text"] in Page(path).all_text()
    removed = [[c["text"] for c in row] for row in page.tables[2][1:]]
    assert [(row[0], row[-1]) for row in removed] == [
        ("torch-mean", "sum (1)"),
        ("torch-mean-needs-float", "none"),
    ], removed

    # torch's entries are not fixed in the wrapper's version: the wrapper removes them; own-mean is fixed
    versions = Page(site / "versions.html")
    fixed = [row[0]["text"] for t in versions.tables if t[0][0]["text"] == "registry entry" for row in t[1:]]
    assert fixed == ["own-mean"], fixed
    assert "2 registry entries of a framework" in " ".join(versions.all_text().split())
    assert "wrappers.html" in versions.links


def test_a_store_without_a_wrapper_row_says_so_on_the_wrappers_page(site):
    page = Page(site / "wrappers.html")
    assert "No run in the store has a wrapper's row" in page.all_text() and page.tables == []


# -- the reproducer on a page runs -----------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_the_reproducer_on_a_divergence_page_shows_the_divergence(site, tmp_path):
    candidates = []
    for path in sorted(
        [*(site / "d").glob("*.html"), *(site / "c").glob("*.html")]
    ):  # a known one's: its cause's
        page = Page(path)
        title = page.all_text()
        repro = page.pre.get("repro", "")
        if "torch 2" in title and "dtype" in title and SCRIPT not in title and "import torch" in repro:
            candidates.append(page)
    assert candidates
    source = candidates[0].pre["repro"]  # the parser has unescaped it, as a browser does
    assert "&quot;" not in source and "&#x27;" not in source
    process = subprocess.run(
        [sys.executable, "-c", source],
        cwd=tmp_path,
        env=subprocess_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, output(process) + source
    numpy_line = [line for line in process.stdout.splitlines() if line.startswith("numpy ")]
    torch_line = [line for line in process.stdout.splitlines() if line.startswith("torch ")]
    assert len(numpy_line) == len(torch_line) == 1, process.stdout
    numpy_result = numpy_line[0].split(":", 1)[1].strip()
    torch_result = torch_line[0].split(":", 1)[1].strip().replace("torch.", "")
    assert numpy_result != torch_result, process.stdout


# -- in a browser ----------------------------------------------------------------------


def browser_or_skip():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    return sync_playwright


def test_in_a_browser_cells_lead_to_divergences_and_record_scripts_do_not_run(site, tmp_path):
    sync_playwright = browser_or_skip()
    errors = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                viewport={"width": 1300, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
            )
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            requests = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto((site / "index.html").as_uri())
            matrix = page.locator("table.matrix")
            assert matrix.is_visible()
            page.screenshot(path=str(tmp_path / "dashboard-index.png"), full_page=True)
            screenshots = REPO / "compat-results"
            screenshots.mkdir(exist_ok=True)
            shutil.copy(tmp_path / "dashboard-index.png", screenshots / "dashboard-screenshot.png")
            assert page.evaluate("typeof window.__xss") == "undefined"

            # the torch promotion cell holds the record with the script in its op name
            row = page.locator("table.matrix tr", has=page.locator("th", has_text="torch"))
            column = [h.strip() for h in page.locator("table.matrix thead th").all_inner_texts()].index(
                "promotion"
            )
            row.locator("td").nth(column - 1).locator("a").click()
            page.wait_for_load_state()
            assert "torch" in page.title() and "promotion" in page.title()
            assert page.evaluate("typeof window.__xss") == "undefined"
            link = page.get_by_role("link", name=SCRIPT)
            assert link.count() >= 1  # shown as text, as the op of a divergence
            link.first.click()  # to its line on its cause's page
            page.wait_for_load_state()
            assert page.evaluate("typeof window.__xss") == "undefined"
            line = page.locator("tr", has=page.locator(f"[id='{page.url.partition('#')[2]}']"))
            assert SCRIPT in line.inner_text()
            line.locator("a").first.click()  # its inputs in bold: a new divergence's own page
            page.wait_for_load_state()
            assert page.evaluate("typeof window.__xss") == "undefined"
            assert SCRIPT in page.locator("h1").inner_text()
            page.go_back()
            page.go_back()
            page.wait_for_load_state()

            # a real record's line on its cause's page: torch's reproducer is there, ready to copy
            page.locator("table tbody tr").nth(1).locator("a").first.click()
            page.wait_for_load_state()
            shown = page.locator("pre[id^=repro]", has_text="import torch").first
            reproducer = shown.inner_text()
            assert "import numpy as np" in reproducer and "torch" in reproducer and "show(" in reproducer
            heading = page.locator("h2, h3", has=page.get_by_role("button", name="Copy")).filter(
                has=page.locator("xpath=following-sibling::pre[1][contains(., 'import torch')]")
            )
            heading.first.get_by_role("button", name="Copy").click()
            page.get_by_role("button", name="Copied").wait_for(timeout=5000)
            assert page.evaluate("navigator.clipboard.readText()") == shown.evaluate("e => e.textContent")
            page.screenshot(path=str(tmp_path / "dashboard-divergence.png"), full_page=True)
            for name in (
                "versions.html",
                "promotion.html",
                "surveys.html",
                "accuracy.html",
                "devices.html",
                "modes.html",
                "history.html",
            ):
                page.goto((site / name).as_uri())
                assert page.locator("h1").is_visible()
                assert page.evaluate("typeof window.__xss") == "undefined"
            assert all(url.startswith("file://") for url in requests), [
                u for u in requests if not u.startswith("file://")
            ]
        finally:
            browser.close()
    assert errors == []
    assert (tmp_path / "dashboard-index.png").stat().st_size > 10_000


# -- scale -----------------------------------------------------------------------------


def synthesize(fixture: Path, out: Path, total: int = 100_000, runs: int = 40) -> int:
    """``total`` records in ``runs`` runs made by replicating the fixture's records with
    other run ids, workers and (after the first copy in a run) other input signatures,
    so that each run holds many distinct divergences; torch gets a new version halfway."""
    source, metas = [], []
    for run_directory in sorted(p.parent for p in fixture.rglob("run.json")):
        metas.append(json.loads((run_directory / "run.json").read_text()))
        for path in sorted(run_directory.glob("records-*.jsonl")):
            source += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    for k in range(runs):
        started = start + datetime.timedelta(hours=6 * k)
        run_id = started.strftime("%Y%m%dT%H%M%SZ-") + f"{k:06x}"
        run_directory = out / run_id
        run_directory.mkdir(parents=True)
        meta = {**metas[k % len(metas)], "run_id": run_id, "started": started.isoformat(timespec="seconds")}
        (run_directory / "run.json").write_text(json.dumps(meta))
        files = defaultdict(list)
        for i in range(total // runs):
            record = {**source[i % len(source)], "run_id": run_id, "worker": f"gw{i % 4}"}
            copy = i // len(source)
            if copy and record["record"] == "divergence":
                record["signature"] = {
                    **record["signature"],
                    "inputs": f"{record['signature']['inputs']}~{copy}",
                }
            if k >= runs // 2 and record["backend"]["name"] == "torch":
                record["backend"] = {**record["backend"], "version": "2.14.0+cpu"}
            files[record["worker"]].append(json.dumps(record, sort_keys=True) + "\n")
        for worker, lines in files.items():
            (run_directory / f"records-{worker}.jsonl").write_text("".join(lines))
    return runs * (total // runs)


@pytest.mark.slow
@pytest.mark.parametrize("total, runs", [(30_000, 40), (20_000, 1)])
def test_many_records_make_a_dashboard_under_5_mb(tmp_path, total, runs):
    """Many records in 40 runs, or in one run (whose cells outgrow every cap all the same):
    the output stays small. Not timed (CI machines vary); the times are printed (pytest -s);
    100,000 records are measured by hand (docs/results.md)."""
    count = synthesize(FIXTURE, tmp_path / "results", total=total, runs=runs)
    assert count == total
    started = time.perf_counter()
    ingested = store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    ingest_time = time.perf_counter() - started
    assert ingested.records == count and ingested.skipped == []
    started = time.perf_counter()
    written = dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    render_time = time.perf_counter() - started
    size = sum(p.stat().st_size for p in (tmp_path / "site").rglob("*") if p.is_file())
    print(
        f"\n{count} records in {runs} run(s): ingest {ingest_time:.1f} s, render {render_time:.1f} s, "
        f"{written.pages} pages, {size / 1e6:.2f} MB"
    )
    assert size == written.bytes
    assert size < 5_000_000
    index = (tmp_path / "site" / "index.html").read_text()
    lists = [p.read_text() for p in (tmp_path / "site" / "l").glob("*.html")]
    assert any(re.search(r"and \d+ more</small>", text) for text in lists)  # capped lists say so
    if "pages are written for" in index:  # so does a capped number of divergence pages
        assert any("have no page" in text for text in lists)
