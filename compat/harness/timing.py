"""Where the time of a whole pytest run goes: a pytest plugin (``-p compat.harness.timing``) that
``python -m compat bench --test-command`` loads into the test command and each of its xdist
workers. Per test it keeps its wall time (setup, call and teardown), and for a spec param (an
``xp`` fixture) the time inside framework calls and inside compat's checker; per child process a
test starts (a child pytest, a reproducer, an isolated call), its command, wall time and CPU time
(its own and its waited-for children's: what it took from the cores the workers share). Each
process writes one JSON line per test into ``$COMPAT_TIMING_DIR`` at its end; ``times`` reads
them back, and ``compat.harness.bench`` prints the tables."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

DIRECTORY = "COMPAT_TIMING_DIR"


@dataclass
class Timed:
    """One test of the run: its file, its row and family where it is a spec param, its seconds."""

    nodeid: str
    file: str
    seconds: float = 0.0
    row: str = ""
    family: str = ""
    framework: float = 0.0  # inside adapter calls (the NumPy reference's too)
    compat: float = 0.0  # inside compat's checker, not in framework calls
    # (command, wall seconds, CPU seconds) of each child it started
    children: list[tuple[str, float, float]] = field(default_factory=list)


class Timing:
    """The plugin: one per process."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.current: Timed | None = None
        self.timed: list[Timed] = []
        self.started = time.perf_counter() - age()  # when the process started: its imports count
        self.patch_subprocesses()

    def patch_subprocesses(self) -> None:
        """Popen notes when each child starts; wait, when it ended and the CPU the children reaped
        meanwhile took (run and communicate wait too; children waited for at once in several threads
        share their CPU between them, the sum stays right)."""
        timing, popen_init, popen_wait = self, subprocess.Popen.__init__, subprocess.Popen.wait

        def init(process, args, *rest, **kwargs):
            process._compat_timing = (time.perf_counter(), command_of(args), timing.current)
            popen_init(process, args, *rest, **kwargs)

        def wait(process, timeout=None):
            before = children_cpu()
            status = popen_wait(process, timeout)
            start, command, test = vars(process).pop("_compat_timing", (None, "", None))
            if start is not None and test is not None:
                test.children.append((command, time.perf_counter() - start, children_cpu() - before))
            return status

        subprocess.Popen.__init__ = init  # type: ignore[method-assign]
        subprocess.Popen.wait = wait  # type: ignore[method-assign]

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.current = Timed(item.nodeid, item.location[0])
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            self.current.seconds = time.perf_counter() - start
            self.timed.append(self.current)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        try:
            return (yield)
        finally:
            checker = pyfuncitem.funcargs.get("xp")
            runner = getattr(checker, "runner", None)  # a spec param's Checker (compat.harness.checker)
            if runner is not None and self.current is not None:
                self.current.row = str(checker.backend_info.target(checker.device))
                self.current.family = checker.ledger.family
                self.current.framework = runner.framework_seconds
                self.current.compat = runner.seconds - runner.framework_checking

    def pytest_unconfigure(self, config):
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / f"{worker}-{os.getpid()}.jsonl", "w") as out:
            out.write(json.dumps({"process": worker, "seconds": time.perf_counter() - self.started}) + "\n")
            out.writelines(json.dumps(asdict(t)) + "\n" for t in self.timed)


def age() -> float:
    """Seconds since this process started (Linux's /proc; elsewhere 0: from the plugin's start)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rpartition(")")[2].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime - ticks / os.sysconf("SC_CLK_TCK"))


def children_cpu() -> float:
    """User and system CPU seconds of this process's children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command_of(args) -> str:
    """A child's command, short: its program and what it runs (``python -m pytest``, ``python -c``)."""
    words = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
    words = [os.path.basename(str(w)) if i == 0 else str(w) for i, w in enumerate(words)]
    if len(words) > 1 and words[1] in ("-m", "-c"):
        return " ".join(words[:3])[:60] if words[1] == "-m" else f"{words[0]} -c"
    return " ".join(words[:2])[:60]


def pytest_configure(config):
    directory = os.environ.get(DIRECTORY)
    if directory:
        config.pluginmanager.register(Timing(Path(directory)), "compat-timing")


def times(directory: Path) -> tuple[list[Timed], dict[str, float]]:
    """The tests of a timed run, and each process's wall time (by xdist worker id)."""
    tests, processes = [], {}
    for path in sorted(directory.glob("*.jsonl")):
        lines = path.read_text().splitlines()
        head = json.loads(lines[0])
        processes[head["process"]] = head["seconds"]
        for line in lines[1:]:
            found = json.loads(line)
            tests.append(Timed(**{**found, "children": [tuple(c) for c in found["children"]]}))
    return tests, processes
