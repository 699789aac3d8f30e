"""SVG pieces every chart draws: the figure with its title, axes with ticks and labelled units,
text, and markers that tell series apart without colour (shapes and dash patterns; style.css
colours them too, but a chart must read printed in grey).

Charts are inline ``<svg>`` in the page (no script, no network, no file of their own); their
styles are classes of style.css. Every string from a record is escaped (``html.e``)."""

from __future__ import annotations

from dataclasses import dataclass

from compat.dashboard.charts.scales import number
from compat.dashboard.html import e

FONT = 11  # px of tick labels; titles are larger (style.css)
CHAR = 6.2  # px of a character at FONT, to make room for labels


def n(value: float) -> str:
    """A coordinate, short: one decimal, no trailing zero."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def text(x: float, y: float, content: str, cls: str = "", anchor: str = "", rotate: float = 0) -> str:
    """A text element; ``content`` is escaped here."""
    attributes = f' x="{n(x)}" y="{n(y)}"'
    if cls:
        attributes += f' class="{cls}"'
    if anchor:
        attributes += f' text-anchor="{anchor}"'
    if rotate:
        attributes += f' transform="rotate({n(rotate)} {n(x)} {n(y)})"'
    return f"<text{attributes}>{e(content)}</text>"


def line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    to = f"H{n(x2)}" if y1 == y2 else f"V{n(y2)}" if x1 == x2 else f"L{n(x2)} {n(y2)}"
    return f'<path class="{cls}" d="M{n(x1)} {n(y1)}{to}"/>'


def polyline(points: list[tuple[float, float]], cls: str) -> str:
    return f'<polyline class="{cls}" points="{" ".join(f"{n(x)},{n(y)}" for x, y in points)}"/>'


SHAPES = ("circle", "square", "triangle", "diamond", "cross", "plus", "down", "bar")


def marker(shape: str, x: float, y: float, size: float = 4.5, cls: str = "") -> str:
    """A marker centred on (x, y): filled shapes and strokes that stay apart in grey."""
    s = size
    paths = {
        "square": f"M{n(x - s)} {n(y - s)}h{n(2 * s)}v{n(2 * s)}h{n(-2 * s)}z",
        "triangle": f"M{n(x)} {n(y - s * 1.2)}L{n(x + s * 1.1)} {n(y + s * 0.8)}H{n(x - s * 1.1)}z",
        "down": f"M{n(x)} {n(y + s * 1.2)}L{n(x + s * 1.1)} {n(y - s * 0.8)}H{n(x - s * 1.1)}z",
        "diamond": f"M{n(x)} {n(y - s * 1.3)}L{n(x + s)} {n(y)}L{n(x)} {n(y + s * 1.3)}L{n(x - s)} {n(y)}z",
        "cross": f"M{n(x - s)} {n(y - s)}L{n(x + s)} {n(y + s)}M{n(x - s)} {n(y + s)}L{n(x + s)} {n(y - s)}",
        "plus": f"M{n(x - s)} {n(y)}H{n(x + s)}M{n(x)} {n(y - s)}V{n(y + s)}",
        "bar": f"M{n(x - s * 1.3)} {n(y - s * 0.5)}h{n(2.6 * s)}v{n(s)}h{n(-2.6 * s)}z",
    }
    kind = "stroke" if shape in ("cross", "plus") else "fill"
    classes = f"mk {kind}{' ' + cls if cls else ''}"
    if shape == "circle":
        return f'<circle class="{classes}" cx="{n(x)}" cy="{n(y)}" r="{n(s)}"/>'
    return f'<path class="{classes}" d="{paths[shape]}"/>'


@dataclass
class Frame:
    """A chart's size and the margins around its plot area."""

    width: float
    height: float
    left: float = 56
    right: float = 16
    top: float = 34
    bottom: float = 44

    @property
    def x0(self) -> float:
        return self.left

    @property
    def x1(self) -> float:
        return self.width - self.right

    @property
    def y0(self) -> float:
        """The plot area's bottom (y grows downwards in SVG)."""
        return self.height - self.bottom

    @property
    def y1(self) -> float:
        return self.top


TITLE_CHAR = 7.8  # px per character of a chart's title


def figure(frame: Frame, title: str, body: str, summary: str, cls: str = "chart") -> str:
    """An inline SVG chart: its title shown (shortened, marked …, where it would not fit) and named
    whole for assistive technology and as a tooltip, ``summary`` (what it shows, in words) as its
    description."""
    room = int((frame.width - 16) / TITLE_CHAR)
    shown = title if len(title) <= room else title[: room - 1] + "…"
    return (
        f'<figure class="{cls}"><svg role="img" viewBox="0 0 {n(frame.width)} {n(frame.height)}" '
        f'width="{n(frame.width)}" height="{n(frame.height)}"><title>{e(title)}</title><desc>{e(summary)}</desc>'
        + text(8, 17, shown, "ct")
        + body
        + "</svg></figure>"
    )


def x_axis(frame: Frame, scale, ticks: list[float], label: str, show=None) -> str:
    """The x axis at the plot's bottom: ticks, their labels, and ``label`` (with its unit) below."""
    show = show or number
    parts = [line(frame.x0, frame.y0, frame.x1, frame.y0, "ax")]
    for value in ticks:
        x = scale(value)
        parts.append(f'<path class="ax" d="M{n(x)} {n(frame.y0)}v4"/>')
        parts.append(text(x, frame.y0 + 15, show(value), "tk", "middle"))
    parts.append(text((frame.x0 + frame.x1) / 2, frame.height - 8, label, "al", "middle"))
    return "".join(parts)


def y_axis(frame: Frame, scale, ticks: list[float], label: str, show=None) -> str:
    """The y axis at the plot's left: ticks with light grid lines, labels, and ``label`` rotated."""
    show = show or number
    parts = [line(frame.x0, frame.y0, frame.x0, frame.y1, "ax")]
    for value in ticks:
        y = scale(value)
        parts.append(line(frame.x0, y, frame.x1, y, "gr"))
        parts.append(text(frame.x0 - 5, y + 4, show(value), "tk", "end"))
    middle = (frame.y0 + frame.y1) / 2
    parts.append(text(13, middle, label, "al", "middle", rotate=-90))
    return "".join(parts)
