"""``python -m compat bench``: throughput and harness overhead per backend and family; with
``--test-command``, where the time of the whole test command goes (``test_command``).

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
from pathlib import Path

import pytest

from compat import adapters
from compat.harness import timing
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


def test_command(pytest_args: list[str]) -> int:
    """Run the README's test command (``pytest -n auto``, and ``pytest_args``) with the timing
    plugin in every process, and print where its time went: compat's own code, the frameworks and
    the rest (Hypothesis, pytest, fixtures) per test file and per row and family, the child
    processes the tests start, and each process's start-up and collection. pytest's exit status."""
    kept = os.environ.get(timing.DIRECTORY)  # the measurements kept there, to read again
    with tempfile.TemporaryDirectory(prefix="compat-timing-") as temporary:
        directory = Path(kept or temporary)
        command = [sys.executable, "-m", "pytest", "-n", "auto", "-p", "compat.harness.timing", *pytest_args]
        print(f"compat bench: {' '.join(command[1:])} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        status = subprocess.run(command, env={**os.environ, timing.DIRECTORY: str(directory)}).returncode
        wall = time.perf_counter() - start
        tests, processes = timing.times(directory)
    print(report(tests, processes, wall))
    return status


def report(tests: list[timing.Timed], processes: dict[str, float], wall: float, most: int = 25) -> str:
    """The tables of ``test_command``."""
    specs = [t for t in tests if t.row]
    total = sum(t.seconds for t in tests)
    framework = sum(t.framework for t in specs)
    compat = sum(t.compat for t in specs)
    children = [child for t in tests for child in t.children]
    workers = {p: s for p, s in processes.items() if p != "main"} or processes  # without xdist: main
    outside = sum(workers.values()) - total  # start-up, collection, the session's end
    lines = [
        f"wall {wall:.0f} s; {len(workers)} test process{'es' if len(workers) != 1 else ''} busy "
        f"{sum(workers.values()):.0f} s in all, of which "
        f"{total:.0f} s in {len(tests)} tests and {outside:.0f} s starting, collecting and finishing",
        f"spec params ({len(specs)}): {sum(t.seconds for t in specs):.0f} s = frameworks {framework:.0f} s "
        f"+ compat's checker {compat:.0f} s + Hypothesis, pytest and fixtures "
        f"{sum(t.seconds for t in specs) - framework - compat:.0f} s",
        f"compat's own tests ({len(tests) - len(specs)}): {total - sum(t.seconds for t in specs):.0f} s, "
        f"of which {len(children)} child processes {sum(c[1] for c in children):.0f} s (their wall, "
        f"overlapping where a test starts several) and {sum(c[2] for c in children):.0f} s of CPU (taken "
        "from the cores the test processes share)",
        "",
        f"{'file':<44} {'tests':>6} {'seconds':>8} {'children':>9} {'child s':>8} {'child CPU':>9}",
    ]
    by_file: defaultdict[str, list[timing.Timed]] = defaultdict(list)
    for test in tests:
        by_file[test.file].append(test)
    for file, found in sorted(by_file.items(), key=lambda kv: -sum(t.seconds for t in kv[1]))[:most]:
        started = [c for t in found for c in t.children]
        lines.append(
            f"{file[-44:]:<44} {len(found):>6} {sum(t.seconds for t in found):>8.1f} {len(started):>9} "
            f"{sum(c[1] for c in started):>8.1f} {sum(c[2] for c in started):>9.1f}"
        )
    lines += [
        "",
        f"{'row':<34} {'family':<14} {'params':>6} {'seconds':>8} {'framework':>9} {'compat':>7} {'rest':>6}",
    ]
    by_row: defaultdict[tuple[str, str], list[timing.Timed]] = defaultdict(list)
    for test in specs:
        by_row[test.row, test.family].append(test)
    for (row, family), found in sorted(by_row.items(), key=lambda kv: -sum(t.seconds for t in kv[1]))[:most]:
        seconds = sum(t.seconds for t in found) or 1e-9
        inside = sum(t.framework for t in found)
        own = sum(t.compat for t in found)
        lines.append(
            f"{row[:34]:<34} {family:<14} {len(found):>6} {seconds:>8.1f} {inside / seconds:>9.0%} "
            f"{own / seconds:>7.0%} {1 - (inside + own) / seconds:>6.0%}"
        )
    lines += ["", f"{'child process':<44} {'count':>6} {'seconds':>8} {'CPU':>8}"]
    by_command: defaultdict[str, list[tuple[float, float]]] = defaultdict(list)
    for command, seconds, cpu in children:
        by_command[command].append((seconds, cpu))
    for command, found in sorted(by_command.items(), key=lambda kv: -sum(c for _, c in kv[1]))[:most]:
        lines.append(
            f"{command[:44]:<44} {len(found):>6} {sum(s for s, _ in found):>8.1f} {sum(c for _, c in found):>8.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":  # one backend, measured in this process: the rows as JSON on the last line
    print(json.dumps(measure(sys.argv[1])))
