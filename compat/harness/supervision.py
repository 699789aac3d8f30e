"""No lost run: a test process that dies or hangs in a backend call is replaced, and
its spec runs again with its calls isolated (``compat.harness.casualties``).

Who watches depends on how pytest runs:

- with pytest-xdist, the controller: its scheduler files the casualty of a worker that
  died and hands the worker's unfinished specs — the casualty once more — to the others
  or to the worker's replacement; a watchdog thread in the controller kills a worker
  whose call outlives the per-call limit or whose memory outgrows its limit;
- without xdist, compat's supervisor: the pytest command runs again as a child process
  with every spec it finished deselected, until one ends normally; its watchdog does
  the same for the child.

The cost when nothing goes wrong is the per-call note (a few microseconds a call) and a
watchdog thread that looks at the notes four times a second.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from compat.core.row import untargeted
from compat.harness import casualties, inflight
from compat.harness.isolation import CALL_LIMIT, MEMORY_LIMIT, death_notice

SUPERVISED = "COMPAT_SUPERVISED"  # set in a supervised child: the run id it writes under
FINISHED = "finished-{worker}"  # a process that ended its session normally leaves this file
DONE = "done-{worker}.txt"  # node ids of the specs it finished, one per line
HINTS = "hints-{worker}.json"  # what an xdist worker tells the scheduler of its tests' marks
DEVICE_LOST_STATUS = 70  # a process that ended itself after a call left its device unusable


def add_options(group) -> None:
    group.addoption(
        "--compat-call-limit",
        type=float,
        default=CALL_LIMIT,
        metavar="SECONDS",
        help=f"a backend call that runs longer is killed and recorded as a timeout (default {CALL_LIMIT:g})",
    )
    group.addoption(
        "--compat-memory-limit",
        type=size,
        default=MEMORY_LIMIT,
        metavar="SIZE",
        help="a test process whose resident memory grows past this within a backend call is killed and "
        f"the call recorded as a crash (default {MEMORY_LIMIT >> 30} GiB; e.g. 2GiB, 512MiB)",
    )
    group.addoption(
        "--no-compat-supervisor",
        action="store_true",
        help="without xdist, run in this process: a backend that kills it ends the run",
    )


def size(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.I)
    if not match:
        raise ValueError(text)
    return int(float(match.group(1)) * 1024 ** " KMGT".index(match.group(2).upper() or " "))


def supervised() -> bool:
    """This process is the child of compat's supervisor."""
    return bool(os.environ.get(SUPERVISED))


def limits(config) -> tuple[float, int]:
    return config.getoption("compat_call_limit"), config.getoption("compat_memory_limit")


# -- without xdist: the supervisor ---------------------------------------------------


def wants_supervisor(config) -> bool:
    option = config.option
    xdist = config.pluginmanager.hasplugin("xdist") and (getattr(option, "numprocesses", None) or 0)
    return not (
        os.environ.get(SUPERVISED)
        or hasattr(config, "workerinput")
        or xdist
        or option.help
        or option.version
        or option.collectonly
        or getattr(option, "markers", False)
        or getattr(option, "fixtures", False)
        or config.getoption("no_compat_supervisor")
    )


def supervise(config, run_directory: Path) -> int:
    """Run the pytest command in a child until a child ends its session; after each
    death file the casualty and run the rest (the casualty included, once more)."""
    run_directory.mkdir(parents=True, exist_ok=True)
    watchdog = inflight.Watchdog(run_directory)
    watchdog.start()
    arguments = run_directory / "supervisor-arguments.txt"
    env = {**os.environ, SUPERVISED: run_directory.name}
    failed = False
    try:
        while True:
            done = finished_specs(run_directory, "main")
            arguments.write_text("".join(f"--deselect={spec}\n" for spec in done))
            status = subprocess.call(
                [sys.executable, "-m", "pytest", *config.invocation_params.args, f"@{arguments}"],
                cwd=config.invocation_params.dir,
                env=env,
            )
            if (run_directory / FINISHED.format(worker="main")).exists():
                return 1 if failed and status == 0 else status
            note = inflight.read(run_directory / "inflight-main.note")
            if note is None or not note.spec:  # died before any spec: nothing to resume
                return status if status > 0 else 3
            casualty = casualties.file(run_directory, note.spec, death_notice(status, ""), note)
            print(
                f"\ncompat: the test process died in {note.spec} ({casualty.cause}: {casualty.message}); "
                + (
                    "it died there before: not run again; running the rest"
                    if casualty.attempts > 1
                    else "running the rest, that spec again with its backend calls isolated"
                ),
                flush=True,
            )
            if casualty.attempts > 1:
                failed = True
                with open(run_directory / DONE.format(worker="main"), "a") as file:
                    file.write(note.spec + "\n")
    finally:
        watchdog.stop()


def finished_specs(run_directory: Path, worker: str) -> list[str]:
    try:
        return [
            line for line in (run_directory / DONE.format(worker=worker)).read_text().splitlines() if line
        ]
    except OSError:
        return []


# -- in a test process: the note and the record of what finished ------------------------


class Progress:
    """What a process that runs specs tells its supervisor: the spec and call in flight
    (the note) and, under compat's supervisor, each spec it finished."""

    def __init__(self, run_directory: Path, worker: str, config) -> None:
        self.note = inflight.Note(run_directory / f"inflight-{worker}.note", *limits(config))
        self.done = open(run_directory / DONE.format(worker=worker), "a") if supervised() else None
        self.finished = run_directory / FINISHED.format(worker=worker)

    def started(self, nodeid: str) -> None:
        self.note.running(nodeid)

    def ended(self, nodeid: str) -> None:
        if self.done is not None:
            self.done.write(nodeid + "\n")
            self.done.flush()

    def close(self) -> None:
        if self.done is not None:
            self.done.close()
            self.finished.touch()
        self.note.close()


def end_lost_process(note: inflight.Note, case, adapter_selector: str, device: str | None, why: str) -> None:
    """A call of ``case`` left its device unusable (``why``): every later call of this process
    would fail (a CUDA context is the process's, shared by its frameworks), so nothing more is
    judged here. The note says so; the process ends; its supervisor (the xdist controller, or
    compat's supervisor) files the spec's casualty and runs it again with its calls isolated,
    where that call is a crash record, and the specs after it in a new process."""
    note.lost(case, adapter_selector, device, why)
    print(f"\ncompat: {why}: this process ends, the run goes on in a new one", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(DEVICE_LOST_STATUS)


# -- with xdist: the controller ------------------------------------------------------


def write_hints(run_directory: Path, worker: str, items) -> None:
    """In an xdist worker, for compat's scheduler: the ``xdist_group`` of each test that has
    one (the scheduler stands in for xdist's --dist loadgroup and hands a group to one
    worker: fixtures its tests share, such as a module's child runs, are made once, not once
    per worker), and the tests marked ``slow`` (handed out first: a long test begun last
    leaves the other workers idle at the end). Every worker collects the same tests and
    writes its own file."""
    groups, slow = {}, []
    for item in items:
        names = sorted(
            {
                str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                for mark in item.iter_markers("xdist_group")
            }
        )
        if names:
            groups[item.nodeid] = "_".join(names)
        if item.get_closest_marker("slow"):
            slow.append(item.nodeid)
    run_directory.mkdir(parents=True, exist_ok=True)
    target = run_directory / HINTS.format(worker=worker)
    scratch = target.with_suffix(".tmp")  # replaced whole: the controller never reads half a file
    scratch.write_text(json.dumps({"groups": groups, "slow": slow}))
    scratch.replace(target)


def read_hints(run_directory: Path) -> tuple[dict[str, str], set[str]]:
    """The groups (node id -> group) and slow tests the workers wrote."""
    groups, slow = {}, set()
    for path in run_directory.glob(HINTS.format(worker="*")):
        hints = json.loads(path.read_text())
        groups.update(hints["groups"])
        slow.update(hints["slow"])
    return groups, slow


def make_scheduler(config, log, run_directory: Path):
    """pytest-xdist's default distribution with three changes: a spec on a device goes to
    the worker that runs it without one (its reference-device side then reuses that
    worker's compiled code: JAX compiles every operation per dtype and shape), the tests
    of an ``xdist_group`` go to one worker and slow tests go first (``write_hints``), and a
    worker that dies hands its unfinished specs on (the one it died in once more)."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class CompatScheduling(LoadScopeScheduling):
        hints: tuple[dict[str, str], set[str]] | None = None
        slow_first = False  # the slow tests' scopes moved to the head of the queue

        def marks(self) -> tuple[dict[str, str], set[str]]:
            if self.hints is None:  # asked once every worker has collected (and written its hints)
                self.hints = read_hints(run_directory)
            return self.hints

        def _split_scope(self, nodeid: str) -> str:
            groups, _ = self.marks()
            if nodeid in groups:
                return "group " + groups[nodeid]
            return untargeted(nodeid)  # with the spec on the default device, eagerly

        def _assign_work_unit(self, node):
            if not self.slow_first:
                self.slow_first = True
                slow = {self._split_scope(nodeid) for nodeid in self.marks()[1]}
                for scope in reversed([scope for scope in self.workqueue if scope in slow]):
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

        def _reschedule(self, node):
            if node not in self.registered_collections:
                return  # a replacement still collecting (two workers died): schedule() serves it when it is ready
            super()._reschedule(node)
            # an xdist worker runs an item once it knows the next one, or that none comes: never
            # leave a node holding a single item (a replacement node gets one unit from schedule())
            if (
                node.shutting_down
                or node not in self.assigned_work
                or self._pending_of(self.assigned_work[node]) > 1
            ):
                return
            if self.workqueue:
                self._assign_work_unit(node)
            else:
                node.shutdown()

        def remove_node(self, node):
            workload = self.assigned_work.pop(node)
            pending = [
                (scope, spec) for scope, unit in workload.items() for spec, done in unit.items() if not done
            ]
            if not pending:
                return None
            scope, crashed = pending[0]
            note = inflight.read(run_directory / f"inflight-{node.gateway.id}.note")
            casualty = casualties.file(run_directory, crashed, "the worker process died", note)
            if (
                casualty.attempts > 1
            ):  # it died again in isolation: xdist reports it failed, nobody runs it again
                workload[scope][crashed] = True
            self.workqueue.update({s: unit for s, unit in workload.items() if not all(unit.values())})
            for other in self.assigned_work:
                self._reschedule(other)
            return crashed

    return CompatScheduling(config, log)


def rerun_report(report) -> None:
    """A crashed spec that will run again is reported as such, not as failed."""
    report.outcome = "rerun"
    report.longrepr = f"{report.longrepr}; it runs again with its backend calls isolated"
