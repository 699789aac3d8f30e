"""``python -m compat bench``: throughput and harness overhead per backend and family.

Runs the specs of every family for one backend at a time in this process
(no xdist, report mode, records in a temporary directory) and measures, per
spec call, wall time and the time spent inside adapter calls (framework
conversions and operations, the NumPy reference included). Overhead is the
share of wall time outside those calls: strategies, oracle, records, pytest.
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict

import pytest

from compat import adapters
from compat.checker import Checker
from compat.specs import DIRECTORY as SPECS


class Meter:
    """A pytest plugin that times every spec call."""

    def __init__(self):
        self.wall = defaultdict(float)
        self.framework = defaultdict(float)
        self.cases = defaultdict(int)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        checker = pyfuncitem.funcargs.get("xp")
        start, framework = time.perf_counter(), adapters.framework_seconds
        try:
            return (yield)
        finally:
            if isinstance(checker, Checker):
                self.wall[checker.family] += time.perf_counter() - start
                self.framework[checker.family] += adapters.framework_seconds - framework
                self.cases[checker.family] += sum(checker.cases.values())


def main(backends: str | None) -> int:
    names = backends.split(",") if backends else list(adapters.registered())
    rows = []
    for name in names:
        meter = Meter()
        with tempfile.TemporaryDirectory() as results:
            status = pytest.main([SPECS, "-q", "-p", "no:xdist", "--no-header", "--compat-mode", "report",
                                  "--compat-results", results, "--backends", name, "-o", "addopts="], plugins=[meter])
        if status not in (0, 1, 5):
            return int(status)
        for family in sorted(meter.wall):
            wall = meter.wall[family]
            rows.append((name, family, meter.cases[family], wall, meter.cases[family] / wall if wall else 0.0,
                         1 - meter.framework[family] / wall if wall else 0.0))
    print()
    print(f"{'backend':<12} {'family':<14} {'examples':>9} {'seconds':>8} {'examples/s':>11} {'overhead':>9}")
    for name, family, cases, wall, rate, overhead in rows:
        print(f"{name:<12} {family:<14} {cases:>9} {wall:>8.2f} {rate:>11.0f} {overhead:>8.0%}")
    return 0
