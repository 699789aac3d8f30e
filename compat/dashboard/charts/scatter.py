"""Scatter panels side by side under one title: marks at (x, y), each with a short label (the
number of its series in the legend below, so that marks read without colour and when shapes
repeat), horizontal reference lines (a declared bound), log-scaled y and, for a wide range of x,
a symmetric log x. A mark that is not finite sits in a band above the plot, marked ∞."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from compat.dashboard.charts.scales import Linear, Log, SymLog, wide
from compat.dashboard.charts.svg import CHAR, SHAPES, Frame, figure, line, marker, n, text, x_axis, y_axis
from compat.dashboard.html import e

PANEL_W, PANEL_H = 300, 230
INFINITE_BAND = 24  # px above the plot for marks that are not finite
RULE_ROOM = 56  # px right of the plot, where the rules are named
RULE_LABEL = 11  # px from one rule's name to the next's
BELOW_CHARS = 46  # of a line of text under a panel


@dataclass
class Mark:
    x: float
    y: float  # may be inf
    series: int  # index into the legend: its shape and number
    note: str = ""  # tooltip


@dataclass
class Rule:
    y: float
    label: str
    cls: str = "rl"  # style.css: a bound (dashed) or a reference level (dotted)


@dataclass
class Panel:
    title: str
    marks: list[Mark] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    below: str = ""  # a line of text under the panel (what has no mark: exact everywhere, raised)


def panels(
    title: str,
    drawn: list[Panel],
    legend: list[str],
    x_label: str,
    y_label: str,
    summary: str,
) -> str:
    """The panels in a row, a legend of the series (number, shape, name) under them."""
    legend_lines = _legend_layout(legend, len(drawn) * PANEL_W)
    below = max((len(_wrapped(p.below)) for p in drawn), default=0) * 13
    frame = Frame(
        len(drawn) * PANEL_W + 20, 30 + PANEL_H + below + 16 + len(legend_lines) * 16 + 8, left=10, top=30
    )
    parts = []
    for i, panel in enumerate(drawn):
        parts.append(_panel(panel, 10 + i * PANEL_W, 30, x_label, y_label))
    y = 30 + PANEL_H + below + 22
    for entries in legend_lines:
        x = 14.0
        for index, name in entries:
            parts.append(marker(SHAPES[index % len(SHAPES)], x + 4, y - 4, 4))
            label = f"{index + 1} {name}"
            parts.append(text(x + 12, y, label, "tk"))
            x += 26 + len(label) * CHAR
        y += 16
    return figure(frame, title, "".join(parts), summary)


def _wrapped(said: str) -> list[str]:
    """Text under a panel in lines that fit it, broken after commas and semicolons."""
    lines: list[str] = []
    for word in said.replace(", ", ",\0").replace("; ", ";\0").split("\0") if said else []:
        if lines and len(lines[-1]) + 1 + len(word) <= BELOW_CHARS:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _legend_layout(legend: list[str], width: float) -> list[list[tuple[int, str]]]:
    lines: list[list[tuple[int, str]]] = [[]]
    used = 0.0
    for index, name in enumerate(legend):
        size = 26 + (len(name) + 3) * CHAR
        if lines[-1] and used + size > width:
            lines.append([])
            used = 0.0
        lines[-1].append((index, name))
        used += size
    return lines if lines[0] else []


def _panel(panel: Panel, left: float, top: float, x_label: str, y_label: str) -> str:
    frame = Frame(PANEL_W, PANEL_H, left=46, right=RULE_ROOM, top=24 + INFINITE_BAND, bottom=40)
    finite = [m for m in panel.marks if math.isfinite(m.y)]
    xs = [m.x for m in panel.marks if math.isfinite(m.x)] or [-1.0, 1.0]
    low_x, high_x = min(xs), max(xs)
    if wide(low_x, high_x):
        reach = 10 ** math.ceil(math.log10(max(abs(low_x), abs(high_x))))
        x = SymLog(-reach if low_x < 0 else 0, reach if high_x > 0 else 0, frame.x0 + 6, frame.x1 - 6)
        ticks, how = x.ticks(5), "symmetric log"
    else:
        pad = (high_x - low_x) * 0.1 or 1
        x = Linear(low_x - pad, high_x + pad, frame.x0 + 6, frame.x1 - 6)
        ticks, how = x.ticks(4), "linear"
    ys = [m.y for m in finite if m.y > 0] + [r.y for r in panel.rules]
    low_y = 10 ** math.floor(math.log10(min(ys + [1.0]) / 1.01))
    high_y = 10 ** math.ceil(math.log10(max(ys + [1.0]) * 1.01))
    y = Log(max(low_y, 1e-3), max(high_y, 10), frame.y0, frame.y1)
    parts = [text(frame.x0, 16, panel.title, "pt")]
    parts.append(y_axis(frame, y, y.ticks(5), y_label))
    parts.append(x_axis(frame, x, ticks, f"{x_label} ({how})"))
    named_at = -math.inf
    for rule in sorted(panel.rules, key=lambda r: y(r.y)):  # top down
        at = y(rule.y)
        parts.append(line(frame.x0, at, frame.x1, at, rule.cls))
        named_at = max(at + 3, named_at + RULE_LABEL)  # in the margin, marks stay clear; labels apart
        parts.append(text(frame.x1 + 3, named_at, rule.label, "rt"))
    band = frame.y1 - INFINITE_BAND + 6
    if any(not math.isfinite(m.y) for m in panel.marks):  # a band of its own, ruled off the plot
        parts.append(text(frame.x0 - 5, band + 4, "∞", "tk", "end"))
        parts.append(line(frame.x0, frame.y1 - 8, frame.x1, frame.y1 - 8, "gr"))
    stacked: dict[tuple[float, float], list[Mark]] = {}
    for m in panel.marks:
        at = (
            round(x(m.x) if math.isfinite(m.x) else frame.x0, 1),
            round(y(m.y) if math.isfinite(m.y) else band, 1),
        )
        stacked.setdefault(at, []).append(m)
    for (px, py), marks in stacked.items():
        first = marks[0]
        tip = "; ".join(m.note for m in marks if m.note)
        parts.append(  # a mark: the shape of its first series, the numbers of all that sit there
            f'<g class=mark transform="translate({n(px)} {n(py)})"><title>{e(tip)}</title>'
            + marker(SHAPES[first.series % len(SHAPES)], 0, 0, 4)
            + text(6, -5, ",".join(str(m.series + 1) for m in marks), "ml")
            + "</g>"
        )
    for k, said in enumerate(_wrapped(panel.below)):
        parts.append(text(frame.x0 - 30, frame.height + 10 + 13 * k, said, "tk"))
    return f'<g transform="translate({n(left)} {n(top)})">' + "".join(parts) + "</g>"
