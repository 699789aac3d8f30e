"""``python -m compat bench``: throughput and harness overhead per backend and family.

Runs the specs of every family for one backend at a time in this process
(no xdist, report mode, records in a temporary directory) and measures, per
spec call, wall time, the time inside adapter calls (framework conversions
and operations, the NumPy reference included) and the time inside
``Checker.check``. Overhead is the share of wall time outside framework
calls; it splits into compat's own code (checker, oracle, registry, records)
and the rest (Hypothesis generating and shrinking examples, pytest).
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections import defaultdict

import pytest

from compat import adapters
from compat.harness.checker import Checker
from compat.specs import DIRECTORY as SPECS


class Meter:
    """A pytest plugin that times every spec call."""

    def __init__(self):
        self.wall = defaultdict(float)
        self.framework = defaultdict(float)
        self.cases = defaultdict(int)
        self.checker = defaultdict(float)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        checker = pyfuncitem.funcargs.get("xp")
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            if isinstance(checker, Checker):
                self.wall[checker.family] += time.perf_counter() - start
                self.framework[checker.family] += checker.framework_seconds
                self.checker[checker.family] += checker.seconds
                self.cases[checker.family] += sum(checker.cases.values())


def main(backends: str | None) -> int:
    names = backends.split(",") if backends else list(adapters.registered())
    rows = []
    for name in names:
        meter = Meter()
        print(f"compat bench: {name} ...", flush=True)
        output = io.StringIO()
        with tempfile.TemporaryDirectory() as results, contextlib.redirect_stdout(output):
            status = pytest.main([SPECS, "-q", "-p", "no:xdist", "--no-compat-supervisor", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                                  "--compat-mode", "report", "--compat-results", results, "--backends", name], plugins=[meter])
        if status not in (0, 5):
            print(output.getvalue())
            return int(status)
        for family in sorted(meter.wall):
            wall, framework = meter.wall[family], meter.framework[family]
            compat_own = meter.checker[family] - framework
            rows.append((name, family, meter.cases[family], wall, meter.cases[family] / wall,
                         1 - framework / wall, compat_own / wall, 1 - meter.checker[family] / wall))
    print()
    print(f"{'backend':<12} {'family':<14} {'examples':>9} {'seconds':>8} {'examples/s':>11} "
          f"{'overhead':>9} {'= compat':>9} {'+ hypothesis/pytest':>20}")
    for name, family, cases, wall, rate, overhead, own, rest in rows:
        print(f"{name:<12} {family:<14} {cases:>9} {wall:>8.2f} {rate:>11.0f} {overhead:>8.0%} {own:>9.0%} {rest:>20.0%}")
    return 0
