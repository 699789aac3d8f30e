"""Horizontal bar charts: one bar per item, largest first, each a link (a row's divergences by
cause, each bar to the cause's page). A bar says its count and its name in text, and its status
both as a word and as a shade (dark for new, light for known), so that grey print keeps it."""

from __future__ import annotations

from dataclasses import dataclass

from compat.dashboard.charts.scales import Linear
from compat.dashboard.charts.svg import Frame, figure, n, text, x_axis
from compat.dashboard.html import e

BAR, GAP = 14, 5  # px of a bar and between bars
NAME_CHARS = 84  # of a name written beside its bar (the whole name is its tooltip)
LABEL_CHAR = 6.6  # px per character of a bar's label, with room to spare


@dataclass
class Bar:
    name: str
    value: int
    href: str  # where the bar leads (relative to the page)
    status: str  # new | known | standard: its shade and its word


def bar_chart(title: str, bars: list[Bar], x_label: str, summary: str, width: float = 980) -> str:
    """The bars in the order given (the caller sorts, largest first)."""
    frame = Frame(width, 34 + len(bars) * (BAR + GAP) + 44, left=12, right=12, top=30)
    top = max((b.value for b in bars), default=1)
    longest = max((len(_label(b)) for b in bars), default=0) * LABEL_CHAR
    span = max(frame.x1 - frame.x0 - longest - 10, 160)
    x = Linear(0, top, frame.x0, frame.x0 + span)
    ticks = x.ticks(4, integers=True)
    parts = [x_axis(frame, x, ticks, x_label, lambda v: str(int(v)))]
    for i, bar in enumerate(bars):
        y = frame.y1 + i * (BAR + GAP)
        end = x(bar.value)
        parts.append(
            f'<a href="{e(bar.href)}"><title>{e(f"{bar.value} {bar.status}: {bar.name}")}</title>'
            f'<rect class="br {e(bar.status)}" x="{n(frame.x0)}" y="{n(y)}" width="{n(max(end - frame.x0, 1))}" '
            f'height="{BAR}"/>' + text(end + 5, y + BAR - 3, _label(bar), "bl") + "</a>"
        )
    return figure(frame, title, "".join(parts), summary)


def _label(bar: Bar) -> str:
    name = bar.name if len(bar.name) <= NAME_CHARS else bar.name[: NAME_CHARS - 1] + "…"
    return f"{bar.value} · {bar.status} · {name}"
