"""A heat map of states: items (the standard's functions) down, columns (matrix rows) across, in
blocks laid side by side as the width allows. Each state has a shade and a pattern of its own
(solid, hatched, outlined, dotted), drawn in a legend with its word: it reads in grey."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compat.dashboard.charts.svg import CHAR, Frame, figure, n, text

CELL_W, CELL_H, PITCH = 11, 10, 12  # px across a column, of a cell, and from one item to the next
MAX_WIDTH = 1340  # px: blocks wrap onto another line beyond it
LABEL_CHAR = 5.8  # px per character of a column's label (10px, written upwards)


@dataclass
class State:
    name: str  # the legend's word
    cls: str  # style.css class of its cells (hm-<state>)
    pattern: str = ""  # an SVG pattern's body, drawn over the cells (a state's texture)


@dataclass
class Block:
    title: str
    groups: list[tuple[str, list[str]]]  # (section, items): a gap and the section's name between groups


def heatmap(
    title: str,
    blocks: list[Block],
    columns: list[str],
    states: list[State],
    state_of: Callable[[str, int], int],
    summary: str,
    uid: str = "hm",
) -> str:
    """``state_of(item, column index)`` is the index of the item's state in ``states``."""
    longest_item = max((len(i) for b in blocks for _, items in b.groups for i in items), default=4)
    names = max(longest_item * CHAR + 8, 60)
    header = max((len(c) for c in columns), default=4) * LABEL_CHAR + 30  # the labels, the block's title
    block_width = names + len(columns) * CELL_W + 24
    per_line = max(1, int(MAX_WIDTH // block_width))
    lines = [blocks[i : i + per_line] for i in range(0, len(blocks), per_line)]

    def height_of(block: Block) -> float:
        return sum(len(items) * PITCH + PITCH + 4 for _, items in block.groups) + 22

    legend_y = 38
    top = legend_y + 10 + header
    line_heights = [max(height_of(b) for b in line_) for line_ in lines]
    frame = Frame(
        (per_line if len(lines) > 1 else len(blocks)) * block_width,
        top + sum(line_heights) + (len(lines) - 1) * header + 10,
        left=8,
    )
    defs = "".join(
        f'<pattern id="{uid}-{s.cls}" width="6" height="6" patternUnits="userSpaceOnUse">{s.pattern}</pattern>'
        for s in states
        if s.pattern
    )
    parts = [f"<defs>{defs}</defs>" if defs else "", _legend(states, frame.x0, legend_y, uid)]
    y_line = top
    for line_, height in zip(lines, line_heights):
        for k, block in enumerate(line_):
            x_block = frame.x0 + k * block_width
            parts.append(_block(block, columns, states, state_of, x_block, y_line, names, header, uid))
        y_line += height + header
    return figure(frame, title, "".join(parts), summary, cls="chart heat")


def _legend(states: list[State], x: float, y: float, uid: str) -> str:
    parts = []
    for state in states:
        parts.append(_cells([(x, y - CELL_H + 1)], state, uid))
        parts.append(text(x + CELL_W + 5, y, state.name, "tk"))
        x += CELL_W + 14 + len(state.name) * CHAR
    return "".join(parts)


def _cells(corners: list[tuple[float, float]], state: State, uid: str) -> str:
    if not corners:
        return ""
    d = "".join(f"M{n(x)} {n(y)}h{CELL_W - 1}v{CELL_H}h-{CELL_W - 1}z" for x, y in corners)
    drawn = f'<path class="hm {state.cls}" d="{d}"/>'
    if state.pattern:
        drawn += f'<path fill="url(#{uid}-{state.cls})" d="{d}"/>'
    return drawn


def _block(
    block: Block,
    columns: list[str],
    states: list[State],
    state_of: Callable[[str, int], int],
    x: float,
    y: float,
    names: float,
    header: float,
    uid: str,
) -> str:
    grid = x + names
    parts = [text(x, y - header + 14, block.title, "bt")]
    for j, column in enumerate(columns):
        cx = grid + j * CELL_W + CELL_W / 2
        parts.append(text(cx + 3.5, y - 4, column, "cl", rotate=-90))
    corners: dict[int, list[tuple[float, float]]] = {i: [] for i in range(len(states))}
    row_y = y + 4
    for section, items in block.groups:
        if section:
            parts.append(text(x, row_y + CELL_H - 1, section, "sc"))
            row_y += PITCH + 2
        for item in items:
            parts.append(text(grid - 6, row_y + CELL_H - 1, item, "tk", "end"))
            for j in range(len(columns)):
                corners[state_of(item, j)].append((grid + j * CELL_W, row_y))
            row_y += PITCH
        row_y += 2
    parts.extend(_cells(corners[i], states[i], uid) for i in range(len(states)))
    return "".join(parts)
