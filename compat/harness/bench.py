"""``python -m compat bench``: throughput and harness overhead per backend and family.

Runs the specs of every family for one backend at a time in this process
(no xdist, report mode, records in a temporary directory) and measures, per
spec call, wall time, the time inside adapter calls (framework conversions
and operations, the NumPy reference included) and the time inside
``Checker.check``. Overhead is the share of wall time outside framework
calls; it splits into compat's own code (checker, oracle, registry, records)
and the rest (Hypothesis generating and shrinking examples, pytest).

Each backend runs twice, each time in a fresh process: *cold*, with an empty JAX
compilation cache, as on a fresh machine, then *warm*, with the cache the first run
filled, as every later run on that machine (compat keeps JAX's persistent cache in its
cache directory). Backends without a persistent cache show the same figure twice,
give or take the machine's noise.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import pytest

from compat import adapters
from compat.harness.checker import Checker
from compat.specs import DIRECTORY as SPECS
from compat.specs import report_options


class Meter:
    """A pytest plugin that times every spec call, per row (a backend's config, device or
    execution mode: jax[x64], jax[x64]@cpu:1, jax[x64]~jit) and family."""

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
                key = (
                    str(checker.backend_info.target(checker.device)),
                    checker.ledger.family,
                )
                self.wall[key] += time.perf_counter() - start
                self.framework[key] += checker.runner.framework_seconds
                self.checker[key] += checker.runner.seconds
                self.cases[key] += sum(checker.ledger.cases.values())


def measure(name: str) -> list[tuple]:
    """(row, family, examples, seconds, share outside framework calls, compat's share) per
    row and family of one backend's specs, run in this process."""
    meter = Meter()
    output = io.StringIO()
    with tempfile.TemporaryDirectory() as results, contextlib.redirect_stdout(output):
        status = pytest.main(
            [
                SPECS,
                *report_options(results),
                "-p",
                "no:xdist",
                "--no-compat-supervisor",
                "-W",
                "ignore::pytest.PytestAssertRewriteWarning",
                "--backends",
                name,
            ],
            plugins=[meter],
        )
    if status not in (0, 5):
        sys.stderr.write(output.getvalue())
        raise SystemExit(int(status))
    return [
        (
            row,
            family,
            meter.cases[row, family],
            meter.wall[row, family],
            1 - meter.framework[row, family] / meter.wall[row, family],
            (meter.checker[row, family] - meter.framework[row, family]) / meter.wall[row, family],
        )
        for row, family in sorted(meter.wall)
    ]


def main(backends: str | None) -> int:
    names = [n.strip() for n in backends.split(",")] if backends else list(adapters.registered())
    installed = []
    for name in names:  # an unknown backend is an AdapterError here (one line); a missing one is skipped
        try:
            adapters.resolve(name)
            installed.append(name)
        except adapters.BackendMissing as reason:
            print(f"compat bench: skipping {name}: {reason}", file=sys.stderr)
    rows = []
    for name in installed:
        with tempfile.TemporaryDirectory(prefix="compat-bench-jax-") as jax_cache:
            env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": jax_cache}
            runs = []
            for phase in ("cold", "warm"):
                print(f"compat bench: {name}, {phase} ...", file=sys.stderr, flush=True)
                child = subprocess.run(
                    [sys.executable, "-m", "compat.harness.bench", name],
                    env=env,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                if child.returncode != 0:
                    return child.returncode
                runs.append(json.loads(child.stdout.strip().splitlines()[-1]))
        warm_of = {(row, family): measured for row, family, *measured in runs[1]}
        for row, family, cases, cold, _, _ in runs[0]:
            warm_cases, warm, overhead, own = warm_of.get((row, family), (0, float("nan"), 0.0, 0.0))
            rows.append((row, family, cases, cold, cases / cold, warm, warm_cases / warm, overhead, own))
    print()
    print(
        f"{'row':<22} {'family':<14} {'examples':>9} {'cold s':>7} {'cold ex/s':>10} {'warm s':>7} "
        f"{'warm ex/s':>10} {'overhead':>9} {'= compat':>9} {'+ hypothesis/pytest':>20}"
    )
    for row, family, cases, cold, cold_rate, warm, warm_rate, overhead, own in rows:
        print(
            f"{row:<22} {family:<14} {cases:>9} {cold:>7.1f} {cold_rate:>10.0f} {warm:>7.1f} {warm_rate:>10.0f} "
            f"{overhead:>8.0%} {own:>9.0%} {overhead - own:>20.0%}"
        )
    print(
        "\noverhead (warm run): the share of wall time outside framework calls, split into compat's own code "
        "and the rest"
    )
    return 0


if __name__ == "__main__":  # one backend, measured in this process: the rows as JSON on the last line
    print(json.dumps(measure(sys.argv[1])))
