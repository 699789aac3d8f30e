"""The dashboard's charts: each drawn from the store, checked against the records themselves (counts
per run, per version, per cause; coverage per function; the accuracy survey's worst errors), and in
a real headless browser (drawn, titled, with labelled axes, series apart without colour)."""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from compat import dashboard
from compat.results import aggregate, records, store
from tests.helpers import REPO
from tests.test_dashboard import (
    CHROMIUM_ARGS,
    FIXTURE,
    PREVIOUS,
    SCRIPT,
    Page,
    browser_or_skip,
    observation_record,
    with_a_previous_jax,
)

pytestmark = pytest.mark.xdist_group("dashboard")

NUMPY = {"name": "numpy", "id": "numpy", "version": "2.0.0", "config": {}}
JIT = {"name": "jax", "id": "jax[x64]~jit", "version": "0.10.2", "config": {"x64": True, "mode": "jit"}}
CUDA = {"name": "torch", "id": "torch", "version": "2.11.0", "config": {}}  # its records on cuda:0
ACCURACY_RUN = "20261123T090000Z-a1a1a1"
ACCURACY = [  # (backend, row, survey cell) of test_accuracy_survey
    (NUMPY, "exp float64", "0 ULP (all 1024 inputs)"),
    (NUMPY, "exp float32", "2 ULP at exp(-45.3402214050293)"),
    (JIT, "exp float32", "5.37e+06 ULP at exp(-87.78279113769531)"),
    (JIT, "exp float64", "inf ULP at exp(530.5677121906018)"),
    (NUMPY, "tanh float32", "1 ULP at tanh(-8.263702392578125)"),
    (JIT, "tanh float32", f"raised TypeError (unsupported): no {SCRIPT}"),
]


@pytest.fixture(scope="module")
def charted(tmp_path_factory) -> tuple[Path, records.Loaded]:
    """The fixture runs (two runs: history), a previous JAX's run (versions) and a run of accuracy
    survey records, merged and drawn; with the records they came from."""
    tmp = tmp_path_factory.mktemp("charted")
    with_a_previous_jax(tmp / "results")
    run_directory = tmp / "results" / ACCURACY_RUN
    run_directory.mkdir(parents=True)
    lines = [
        observation_record(row, value, {**backend, "id": backend["id"].split("~")[0]}, ACCURACY_RUN)
        for backend, row, value in ACCURACY
    ] + [{**observation_record("exp float32", "2 ULP at exp(-20.5)", CUDA, ACCURACY_RUN), "device": "cuda:0"}]
    (run_directory / "records-main.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    store.ingest(tmp / "s.sqlite", [FIXTURE, tmp / "results"])
    dashboard.render(tmp / "s.sqlite", tmp / "site")
    loaded = records.Loaded()
    for directory in (FIXTURE, tmp / "results"):
        found = records.load(directory)
        assert found.problems == []
        loaded.runs.update(found.runs)
    return tmp / "site", loaded


def figures(path: Path) -> dict[str, tuple[str, str]]:
    """Chart title -> (description, the SVG) of each chart on a page."""
    found = {}
    for svg in re.findall(r'<figure class="chart[^"]*"><svg.*?</svg></figure>', path.read_text(), re.S):
        title, desc = re.search(r"<title>(.*?)</title><desc>(.*?)</desc>", svg, re.S).groups()
        found[html.unescape(title)] = (html.unescape(desc), svg)
    return found


def series_of(desc: str) -> tuple[list[str], dict[str, list[int | None]]]:
    """A line chart's categories and series, from its description ('x: a | b. new: 1, 2; known: 3, 4')."""
    axis, _, rest = desc.partition(". ")
    categories = axis.split(": ", 1)[1].split(" | ")
    series = {}
    for part in rest.split("; "):
        name, _, values = part.partition(": ")
        series[name] = [None if v == "none" else int(v) for v in values.split(", ")]
    return categories, series


def main_view(record) -> bool:
    return record.device is None and not record.reference.startswith(("device:", "mode:"))


# -- history and versions ---------------------------------------------------------------------


def test_history_draws_new_known_and_fixed_of_each_row_run_by_run(charted):
    site, loaded = charted
    runs = sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id))
    charts = figures(site / "history.html")
    drawn = 0
    for backend in sorted({d.backend.row for r in runs for d in r.divergences}):
        covering = [
            r
            for r in runs
            if any(x.backend.row == backend and main_view(x) for x in r.checks + r.divergences)
        ]
        title = f"{backend} on default device: divergences per run"
        if len(covering) < 2:
            assert title not in charts
            continue
        expected: dict[str, list] = {"new": [], "known": [], "fixed": []}
        before = None
        for run_ in covering:
            mine = [
                d for d in aggregate.distinct(run_.divergences) if d.backend.row == backend and main_view(d)
            ]
            now = {d.key for d in mine}
            expected["new"].append(sum(1 for d in mine if d.status == "new"))
            expected["known"].append(sum(1 for d in mine if d.status != "new"))
            checked = {
                (c.family, op)
                for c in run_.checks
                if c.backend.row == backend and main_view(c)
                for op in c.cases
            }
            expected["fixed"].append(
                None if before is None else sum(1 for k in before - now if (k.family, k.op) in checked)
            )
            before = now
        categories, series = series_of(charts[title][0])
        assert len(categories) == len(covering)
        assert series == expected, (backend, series, expected)
        drawn += 1
    assert drawn


def test_versions_draws_new_known_and_fixed_per_version(charted):
    site, loaded = charted
    latest: dict[tuple[str, str], records.Run] = {}  # (version, family) -> the latest run with jax[x64] there
    for run_ in sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id)):
        for record in run_.checks + run_.divergences:
            if record.backend.row == "jax[x64]" and main_view(record):
                latest[(record.backend.version, record.family)] = run_

    def shown(version: str) -> dict[str, set]:
        found = defaultdict(set)
        for (v, family), run_ in latest.items():
            for d in aggregate.distinct(run_.divergences):
                if v == version and d.backend.row == "jax[x64]" and d.family == family and main_view(d):
                    found[d.status].add(d.key)
        return found

    old, new = shown(PREVIOUS), shown("0.10.2")
    known = [sum(len(k) for s, k in found.items() if s != "new") for found in (old, new)]
    categories, series = series_of(
        figures(site / "versions.html")["jax[x64] on default device: divergences per version"][0]
    )
    assert categories == [PREVIOUS, "0.10.2"]
    assert series["new"] == [len(old["new"]), len(new["new"])] and series["known"] == known
    gone = set().union(*old.values()) - set().union(*new.values())
    assert series["fixed"] == [None, len(gone)] and len(gone) == 1  # with_a_previous_jax's added divergence


def test_a_cell_covered_by_two_runs_draws_its_counts_run_by_run(charted):
    site, loaded = charted
    runs = sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id))
    text = (site / "index.html").read_text()
    sparks = {html.unescape(t): None for t in re.findall(r"<svg class=spark[^>]*><title>(.*?)</title>", text)}
    assert sparks
    checked = 0
    for title in sparks:
        family, _, rest = title.partition(" on ")
        backend, version = rest.split()[:2]

        def mine(record, backend=backend, version=version, family=family) -> bool:
            return (record.backend.row, record.backend.version, record.family) == (backend, version, family)

        covering = [r for r in runs if any(mine(x) and main_view(x) for x in r.checks + r.divergences)]
        counts = []
        for run_ in covering:
            shown = [d for d in aggregate.distinct(run_.divergences) if mine(d) and main_view(d)]
            counts.append(f"{len(shown)} ({sum(1 for d in shown if d.status == 'new')} new)")
        assert title.endswith(f"in its last {len(covering)} runs, oldest first: {', '.join(counts)}"), title
        checked += 1
    assert checked == len(sparks)


# -- coverage, causes, accuracy ---------------------------------------------------------------


def test_the_coverage_heat_map_comes_first_and_counts_as_the_table(charted):
    site, _ = charted
    text = (site / "coverage.html").read_text()
    assert text.index('<figure class="chart heat">') < text.index("<table")
    (svg,) = [s for _, s in figures(site / "coverage.html").values()]
    drawn = {
        cls: sum(d.count("M") for d in re.findall(rf'<path class="hm {cls}" d="([^"]*)"', svg)) - 1
        for cls in ("hm-checked", "hm-unsupported", "hm-notchecked", "hm-absent")
    }  # less the legend's
    _, grid = Page(site / "coverage.html").tables
    cells = [c["text"] for row in grid[1:] for c in row[2:]]
    assert drawn == {
        "hm-checked": cells.count("checked"),
        "hm-unsupported": sum(1 for c in cells if c.startswith("unsupported")),
        "hm-notchecked": cells.count("not checked"),
        "hm-absent": cells.count("not in compat"),
    }
    assert drawn["hm-checked"] and drawn["hm-notchecked"]
    columns = [html.unescape(t) for t in re.findall(r'<text[^>]*class="cl"[^>]*>([^<]*)</text>', svg)]
    assert [c["text"] for c in grid[0][2:]] == columns[: len(grid[0]) - 2]  # each block names the rows
    for word in ("checked", "unsupported", "not checked", "not in compat"):
        assert f">{word}</text>" in svg  # the legend says each state in words


def test_each_rows_bars_count_its_divergences_by_cause_largest_first(charted):
    site, loaded = charted
    charts = figures(site / "causes.html")
    latest = {}
    for run_ in sorted(loaded.runs.values(), key=lambda r: (r.started, r.run_id)):
        for record in run_.checks + run_.divergences:
            if main_view(record):
                latest[(record.backend.row, record.backend.version, record.family)] = run_
    for backend, version in sorted({(b, v) for b, v, _ in latest}):
        mine = [
            d
            for (b, v, f), run_ in latest.items()
            if (b, v) == (backend, version)
            for d in aggregate.distinct(run_.divergences)
            if d.backend.row == backend and d.backend.version == version and d.family == f and main_view(d)
        ]
        if not mine:
            continue
        (title,) = [t for t in charts if t.startswith(f"{backend} {version} on default device: ")]
        assert re.search(rf": {len(mine)} divergences in {len(charts[title][0].split('; '))} causes?$", title)
        svg = charts[title][1]
        bars = [
            (int(n), status, html.unescape(name))
            for n, status, name in re.findall(r"<title>(\d+) (\w+): (.*?)</title>", svg)
        ]
        assert [n for n, _, _ in bars] == sorted((n for n, _, _ in bars), reverse=True)
        by_entry = defaultdict(int)
        for d in mine:
            if d.known:
                by_entry[d.known] += 1
        assert {name: n for n, status, name in bars if status == "known"} == {
            k: n for k, n in by_entry.items() if (n, "known", k) in bars
        }
        assert len(bars) == min(12, len(charts[title][0].split("; ")))
        for link in re.findall(r'<a href="([^"]+)">', svg):
            path, _, anchor = link.partition("#")
            assert f'id="{anchor}"' in (site / path).read_text()


def marks_of(panel: str) -> dict[str, tuple[float, float]]:
    return {
        html.unescape(tip): (float(x), float(y))
        for x, y, tip in re.findall(
            r'<g class=mark transform="translate\(([\d.-]+) ([\d.-]+)\)"><title>(.*?)</title>', panel
        )
    }


def test_the_accuracy_chart_marks_each_rows_worst_error_at_its_input_against_the_bound(charted):
    site, _ = charted
    charts = figures(site / "accuracy.html")
    _, exp = charts["exp: each row's worst error over the grid, and the input that reached it"]
    panels = dict(
        re.findall(
            r'<g transform="translate[^"]*"><text[^>]*class="pt">([^<]*)</text>(.*?)(?=<g transform="translate|$)',
            exp,
            re.S,
        )
    )
    # the device's contract beside the published accuracy: CUDA's exp of float32 is within 2 ULP
    assert list(panels) == ["float32: published 3 ULP", "float64: published 1 ULP"]
    float32 = panels["float32: published 3 ULP"]
    assert "torch on CUDA&#x27;s contract: 2 ULP" in float32 or "torch on CUDA's contract: 2 ULP" in float32
    marks = marks_of(float32)
    numpy = marks["numpy: 2 ULP at exp(-45.3402214050293)"]
    jit = marks["jax[x64]~jit: 5.37e+06 ULP at exp(-87.78279113769531)"]
    assert "torch 2.11.0 on cuda:0: 2 ULP at exp(-20.5)" in marks
    (bound,) = [float(y) for y in re.findall(r'<path class="rl" d="M[\d.]+ ([\d.]+)H', float32)]
    (contract,) = [float(y) for y in re.findall(r'<path class="rk" d="M[\d.]+ ([\d.]+)H', float32)]
    assert jit[1] < bound < contract == numpy[1]  # 5.37e6 ULP above the published 3; 2 ULP, the contract
    assert 'class="rk"' not in panels["float64: published 1 ULP"]  # no device column has float64 there
    assert jit[0] < numpy[0]  # exp(-87.8) left of exp(-45.3)
    float64 = panels["float64: published 1 ULP"]
    (infinite,) = marks_of(float64).values()
    (top,) = [float(y) for y in re.findall(r'<path class="ax" d="M[\d.]+ [\d.]+V([\d.]+)"', float64)]
    assert infinite[1] < top and "∞" in float64  # not finite: above the plot
    assert "0 ULP everywhere: 1" in float64  # numpy, the legend's first
    legend = re.findall(r'class="tk">(\d+ [^<]+)</text>', exp)
    assert legend[-3:] == ["1 numpy", "2 jax[x64]~jit", "3 torch 2.11.0 on cuda:0"]
    _, tanh = charts["tanh: each row's worst error over the grid, and the input that reached it"]
    assert "raised or other result: 2" in tanh and SCRIPT not in tanh and html.escape(SCRIPT) not in tanh


# -- in a browser ---------------------------------------------------------------------------------

PAGES = ("accuracy.html", "history.html", "versions.html", "coverage.html", "causes.html")


def test_in_a_browser_the_charts_are_drawn_titled_labelled_and_apart_in_grey(charted, tmp_path):
    site, _ = charted
    sync_playwright = browser_or_skip()
    shots = REPO / "compat-results"
    shots.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            for name in PAGES:
                page.goto((site / name).as_uri())
                chart = page.locator("figure.chart svg").first
                assert chart.is_visible(), name
                box = chart.bounding_box()
                assert box["width"] > 300 and box["height"] > 80, (name, box)
                assert chart.locator("text.ct").text_content().strip(), name  # a title, shown
                if name != "causes.html" and name != "coverage.html":
                    labels = chart.locator("text.al").all_text_contents()
                    assert len(labels) >= 2 and all("(" in label for label in labels), (name, labels)  # units
                page.emulate_media(color_scheme="light")
                page.add_style_tag(content="html{filter:grayscale(1)}")
                chart.screenshot(path=str(tmp_path / f"chart-{name}.png"))
                shutil.copy(tmp_path / f"chart-{name}.png", shots / f"dashboard-chart-{name[:-5]}.png")
                assert (tmp_path / f"chart-{name}.png").stat().st_size > 5_000, name
            page.goto((site / "history.html").as_uri())  # jax[x64]'s row: three runs, at two versions
            chart = page.locator(
                "figure.chart svg", has=page.locator("title", has_text="jax[x64] on default device")
            )
            dashes = chart.evaluate(
                "s => [...s.querySelectorAll('polyline.ln')].map(e => getComputedStyle(e).strokeDasharray)"
            )
            assert len(dashes) == 3 and len(set(dashes)) == 3, dashes  # new, known, fixed: three patterns
            shapes = chart.evaluate(  # each marker as its element and its path's commands
                "s => [0, 1, 2].map(k => [...s.querySelectorAll('.mk.s' + k)]"
                ".map(e => e.tagName + (e.getAttribute('d') || '').replace(/[^a-zA-Z]/g, '')))"
            )
            assert len({frozenset(found) for found in shapes}) == 3, shapes  # and three marker shapes
        finally:
            browser.close()
