"""Line charts of counts over an ordered category (runs, versions), and the matrix's sparklines.

Each series has a dash pattern and a marker shape of its own and is named at its last point, so
the chart reads without colour; a missing value (the row did not run then) breaks the line."""

from __future__ import annotations

from dataclasses import dataclass

from compat.dashboard.charts.scales import Linear
from compat.dashboard.charts.svg import CHAR, SHAPES, Frame, figure, marker, n, polyline, text, y_axis
from compat.dashboard.html import e

LABELS_SHOWN = 8  # x labels written at most (every k-th, the last always)


@dataclass
class Series:
    name: str  # shown at its last point and in the legend
    values: list[int | None]  # one per x category; None where there is none
    style: int = 0  # dash pattern and marker: the same style means the same thing on every chart


def line_chart(
    title: str,
    categories: list[str],
    series: list[Series],
    x_label: str,
    y_label: str,
    width: float = 520,
    height: float = 210,
) -> str:
    """Counts per category, a line per series (an SVG figure)."""
    longest = max((len(c) for c in categories), default=0)
    slanted = len(categories) > 3 and longest * CHAR * len(categories) > width - 120
    name_room = max((len(s.name) + 5 for s in series), default=0) * CHAR
    frame = Frame(
        width,
        height + (40 if slanted else 0),
        left=52,
        right=12 + name_room,
        bottom=44 + (40 if slanted else 0),
    )
    top = max((v for s in series for v in s.values if v is not None), default=0)
    y = Linear(0, max(top, 1), frame.y0, frame.y1 + 6)
    ticks = y.ticks(4, integers=True)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1
    y = Linear(
        0, max(step * -(-max(top, 1) // step), 1), frame.y0, frame.y1 + 6
    )  # up to a tick above the top
    ticks = y.ticks(4, integers=True)
    step = (frame.x1 - frame.x0) / max(len(categories), 1)
    x_of = {i: frame.x0 + step * (i + 0.5) for i in range(len(categories))}
    parts = [y_axis(frame, y, ticks, y_label, lambda v: str(int(v)))]
    parts.append(_categories(frame, categories, x_of, slanted, x_label))
    ends = []  # (y, x, text) of each series' name at its last point
    for s in series:
        shape = SHAPES[s.style % len(SHAPES)]
        run: list[tuple[float, float]] = []
        for i, value in enumerate([*s.values, None]):
            if value is not None:
                run.append((x_of[i], y(value)))
                continue
            if len(run) > 1:
                parts.append(polyline(run, f"ln s{s.style}"))
            run = []
        for i, value in enumerate(s.values):
            if value is not None:
                parts.append(marker(shape, x_of[i], y(value), 3.5, f"s{s.style}"))
        last = max((i for i, v in enumerate(s.values) if v is not None), default=None)
        if last is not None:
            ends.append([y(s.values[last] or 0) + 4, x_of[last] + 8, f"{s.name} {s.values[last]}"])
    parts.extend(text(x, at, name, "sl") for at, x, name in apart(ends, frame.y1 + 10, frame.y0 - 2))
    summary = f"{x_label}: {' | '.join(categories)}. " + "; ".join(  # what a screen reader says
        f"{s.name}: " + ", ".join("none" if v is None else str(v) for v in s.values) for s in series
    )
    return figure(frame, title, "".join(parts), summary)


def apart(ends: list[list], top: float, bottom: float, gap: float = 12) -> list[list]:
    """Names at the ends of lines, [y, x, text], moved apart where they would overlap (at one x),
    kept between ``top`` and ``bottom`` (clear of the x axis's labels)."""
    for x in {end[1] for end in ends}:
        column = sorted((end for end in ends if end[1] == x), key=lambda end: end[0])
        for i, end in enumerate(column):
            end[0] = max(end[0], top, column[i - 1][0] + gap if i else top)
        overflow = column[-1][0] - bottom if column else 0
        for i, end in enumerate(reversed(column)):  # pushed past the bottom: move them up, all together
            if overflow > 0:
                end[0] = min(end[0], bottom - i * gap)
    return ends


def _categories(
    frame: Frame, categories: list[str], x_of: dict[int, float], slanted: bool, label: str
) -> str:
    every = max(1, -(-len(categories) // LABELS_SHOWN))
    parts = [f'<path class="ax" d="M{n(frame.x0)} {n(frame.y0)}H{n(frame.x1)}"/>']
    for i, category in enumerate(categories):
        x = x_of[i]
        parts.append(f'<path class="ax" d="M{n(x)} {n(frame.y0)}v4"/>')
        if i % every and i != len(categories) - 1:
            continue
        if slanted:
            parts.append(text(x, frame.y0 + 14, category, "tk", "end", rotate=-30))
        else:
            parts.append(text(x, frame.y0 + 15, category, "tk", "middle"))
    parts.append(text((frame.x0 + frame.x1) / 2, frame.height - 8, label, "al", "middle"))
    return "".join(parts)


SPARK_WIDTH, SPARK_HEIGHT = 64, 16


def sparkline(values: list[int], title: str) -> str:
    """A small line of counts, oldest first, the last one marked; ``title`` says them in words
    (a tooltip and the text a screen reader gives)."""
    top = max(values, default=0) or 1
    x = Linear(0, max(len(values) - 1, 1), 2, SPARK_WIDTH - 3)
    y = Linear(0, top, SPARK_HEIGHT - 2, 2)
    points = [(x(i), y(v)) for i, v in enumerate(values)]
    last = points[-1]
    return (
        f'<svg class=spark role="img" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" width="{SPARK_WIDTH}" '
        f'height="{SPARK_HEIGHT}"><title>{e(title)}</title>'
        + polyline(points, "sp")
        + f'<circle class=spe cx="{n(last[0])}" cy="{n(last[1])}" r="2"/></svg>'
    )
