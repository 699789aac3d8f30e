"""The SVG charts' pieces (compat.dashboard.charts) on their own: scales and their ticks, escaping,
titles that do not fit, names at the ends of lines kept apart."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from compat.dashboard.charts import bars, lines, scales, svg


def test_linear_ticks_are_round_and_cover_the_range():
    scale = scales.Linear(0, 933, 200, 0)
    ticks = scale.ticks(4, integers=True)
    assert ticks == [0, 200, 400, 600, 800]
    assert scale(0) == 200 and scale(933) == 0  # a y axis grows upwards


def test_log_ticks_are_powers_of_ten_thinned():
    scale = scales.Log(0.1, 1e7, 100, 0)
    assert scale.ticks(5) == [0.1, 10.0, 1000.0, 100000.0, 1e7]
    assert scale(0) == 100  # nothing below the axis: zero sits on it
    assert scale(1e9) == 0  # nor above it


@pytest.mark.parametrize(
    "low, high, expected",
    [
        (-1000, 1000, [-1000.0, -10.0, 0.0, 10.0, 1000.0]),
        (0, 1e8, [0.0, 100.0, 10000.0, 1e6, 1e8]),
        (-10, 10, [-10.0, -1.0, 0.0, 1.0, 10.0]),
    ],
)
def test_symmetric_log_ticks_keep_zero_apart_from_one(low, high, expected):
    scale = scales.SymLog(low, high, 0, 300)
    assert scale.ticks(5) == expected
    positions = [scale(t) for t in scale.ticks(5)]
    assert all(b - a >= 30 for a, b in itertools.pairwise(positions)), positions  # labels do not collide


def test_symmetric_log_is_odd_and_monotone():
    scale = scales.SymLog(-1e38, 1e38, -100, 100)
    assert scale(0) == pytest.approx(0)
    assert scale(-8.5) == pytest.approx(-scale(8.5))
    values = [-3e38, -1e6, -1, -0.5, 0, 0.5, 1, 1e6, 3e38]
    mapped = [scale(v) for v in values]
    assert mapped == sorted(mapped)


def test_tick_labels_are_short():
    assert [scales.number(v) for v in (0, 0.5, 3, 1500, 1e6, -1e-6)] == [
        "0",
        "0.5",
        "3",
        "1500",
        "1e6",
        "-1e-6",
    ]


def test_a_charts_text_is_escaped_and_a_long_title_shortened_whole_in_its_tooltip():
    title = "<script>alert(1)</script> " + "x" * 200
    drawn = svg.figure(svg.Frame(300, 100), title, svg.text(5, 5, "<b>&"), "a & b")
    assert "<script>" not in drawn and "<b>" not in drawn
    assert "&lt;b&gt;&amp;" in drawn and "<desc>a &amp; b</desc>" in drawn
    shown = drawn.split('class="ct">')[1].split("</text>")[0]
    assert shown.endswith("…") and len(shown) < 60
    assert ("x" * 200) in drawn.split("<title>")[1]  # the whole title, for a tooltip and a screen reader


def test_names_at_the_ends_of_lines_move_apart_and_stay_above_the_axis():
    ends = [[100, 50, "new 0"], [100, 50, "known 0"], [100, 50, "fixed 0"], [40, 80, "other"]]
    placed = lines.apart(ends, top=10, bottom=100)
    at_50 = sorted(end[0] for end in placed if end[1] == 50)
    assert at_50 == [76, 88, 100]  # 12 px apart, the lowest on the bottom line
    assert [end[0] for end in placed if end[1] == 80] == [40]


def test_a_sparkline_draws_each_count_and_says_them():
    drawn = lines.sparkline([3, 0, 5], "counts: 3, 0, 5")
    points = drawn.split('points="')[1].split('"')[0].split()
    assert len(points) == 3
    ys = [float(p.split(",")[1]) for p in points]
    assert ys[1] > ys[0] > ys[2]  # 0 lowest, 5 highest (y grows down)
    assert "<title>counts: 3, 0, 5</title>" in drawn


def test_bars_keep_their_order_and_length_grows_with_the_count():
    drawn = bars.bar_chart(
        "t",
        [bars.Bar("a", 9, "c/a.html", "known"), bars.Bar("b <i>", 3, "c/b.html", "new")],
        "n (count)",
        "s",
    )
    widths = [
        float(w) for w in re.findall(r'<rect class="br [^"]*" x="[^"]*" y="[^"]*" width="([^"]*)"', drawn)
    ]
    assert widths[0] > widths[1] * 2.5
    assert drawn.index("c/a.html") < drawn.index("c/b.html")
    assert "b &lt;i&gt;" in drawn and "9 · known · a" in drawn and "3 · new · b" in drawn


def test_log_of_zero_sits_on_the_axis():
    assert scales.Log(1, 10, 50, 0)(0) == 50 and not math.isnan(scales.Log(1, 10, 50, 0)(-1))
