"""Scales of the dashboard's charts: a value to a coordinate, and the ticks worth labelling.

``Linear`` for counts, ``Log`` for errors that span orders of magnitude (ULPs from 1 to 10^7),
``SymLog`` for inputs that span binades either side of zero (exp's grid runs from 1e-6 to 88, and
its negatives). Each maps ``[low, high]`` onto ``[start, end]`` (a pixel range; end < start for a
y axis, which grows upwards)."""

from __future__ import annotations

import math


def number(value: float) -> str:
    """A tick's label: short, exact where it can be (3, 0.5, 1e+06, -1e-06)."""
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1e5 or magnitude < 1e-3:
        mantissa, exponent = f"{value:.0e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.6g}"


class Linear:
    def __init__(self, low: float, high: float, start: float, end: float):
        if high <= low:
            high = low + 1
        self.low, self.high, self.start, self.end = low, high, start, end

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self, count: int = 5, integers: bool = False) -> list[float]:
        """Round values in [low, high] (1, 2 or 5 times a power of ten apart), as near ``count`` of
        them as such a step gives."""
        raw = (self.high - self.low) / max(count, 1)
        power = 10 ** math.floor(math.log10(raw))
        steps = [m * power for m in (0.5, 1, 2, 5, 10, 20)]
        if integers:
            steps = [max(1, round(s)) for s in steps]
        step = min(steps, key=lambda s: (abs(math.floor((self.high - self.low) / s + 1e-9) + 1 - count), -s))
        first = math.ceil(self.low / step - 1e-9) * step
        found = []
        value = first
        while value <= self.high + step * 1e-9:
            found.append(round(value, 12))
            value += step
        return found


class Log:
    """Base 10; values at or below ``low`` map to ``start`` (the caller draws zero apart)."""

    def __init__(self, low: float, high: float, start: float, end: float):
        self.low, self.high = math.log10(low), math.log10(max(high, low * 10))
        self.start, self.end = start, end

    def __call__(self, value: float) -> float:
        position = math.log10(value) if value > 0 else self.low
        position = min(max(position, self.low), self.high)
        return self.start + (position - self.low) / (self.high - self.low) * (self.end - self.start)

    def ticks(self, count: int = 6) -> list[float]:
        """Powers of ten in range, every k-th so that at most about ``count`` remain."""
        first, last = math.ceil(self.low - 1e-9), math.floor(self.high + 1e-9)
        every = max(1, math.ceil((last - first + 1) / count))
        return [10.0**k for k in range(first, last + 1, every)]


class SymLog:
    """sign(x) * log10(1 + |x|): linear near zero, logarithmic beyond 1 either way, so that one
    axis shows 0.5, 8 and 3e38 apart."""

    def __init__(self, low: float, high: float, start: float, end: float):
        self.inner = Linear(self.transform(low), self.transform(high), start, end)
        self.low, self.high = low, high

    @staticmethod
    def transform(value: float) -> float:
        return math.copysign(math.log10(1 + abs(value)), value)

    def __call__(self, value: float) -> float:
        return self.inner(self.transform(value))

    def ticks(self, count: int = 7) -> list[float]:
        """0 and powers of ten either side (0, ±1, ±10, ...), about ``count`` of them: every k-th
        power down from the largest, not 1 on an axis of many decades (it would crowd 0)."""
        top = max(abs(self.low), abs(self.high))
        last = math.floor(math.log10(top)) if top >= 1 else 0
        sides = (self.low < 0) + (self.high > 0)
        per_side = max(1, (count - 1) // max(sides, 1))
        lowest = 1 if last >= 3 else 0
        every = max(1, math.ceil((last - lowest + 1) / per_side))
        powers = [10.0**k for k in range(last, lowest - 1, -every)]
        found = [0.0] if self.low <= 0 <= self.high else []
        found += [p for p in powers if self.low <= p <= self.high]
        found += [-p for p in powers if self.low <= -p <= self.high]
        return sorted(found)


def wide(low: float, high: float) -> bool:
    """Whether values in [low, high] span orders of magnitude (a log-scaled axis reads them)."""
    return max(abs(low), abs(high)) >= 100
