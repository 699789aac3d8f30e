"""``python -m compat gpu-check``: the specs on this machine's CUDA rows, in one short run.

The rows are those of a real accelerator (issue 35): torch's ``cuda:0`` and JAX's ``gpu:0``, each
in a run of its own (frameworks on one GPU share no process), checked as compat checks a plug-in
device (a share of every spec's examples, compared with NumPy and with the backend's CPU, by the
device's contract: compat.core.contracts), and CuPy, whose own row computes on ``cuda:0``
(compared with NumPy).
Beside them, the self-test's control: torch's reference plug-in device with its faults switched on
in turn (the specs must catch each, and show nothing without one), where it builds. Everything runs
at once under one deadline; a pytest run still going at the deadline is interrupted (SIGINT: it
stops, writes its run's description and keeps every record written). Records go where any run's
go (``DIR/<run_id>/records-*.jsonl``, ``run.json``), so ``python -m compat merge DIR`` adds them
to the store; the summary (rows, cases, divergences new and known, examples per second per row,
the settings that let a GPU differ by contract) goes to ``DIR/gpu-check.txt`` and ``.json``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from compat import adapters
from compat.core.row import Row
from compat.devices import cuda
from compat.harness import lint
from compat.results import aggregate, causes, records, registry
from compat.specs import DIRECTORY as SPECS
from compat.specs import report_options

GRACE = 45.0  # seconds an interrupted pytest run has to stop and describe itself before it is killed
SUMMARY_TIME = 20.0  # seconds kept back from the deadline for the summary
REPRODUCE_TIME = 60.0  # seconds kept back for the new causes' reproducers, each run alone
REPRODUCER_LIMIT = 45.0  # seconds one reproducer may run (a framework's start on a GPU included)
# the self-test's control: the kernel-wide specs test_selftest runs (tests/test_selftest.py); not
# the forms of the standard's parameters and special cases with a Python scalar, which call the
# kernels the others meet with other argument forms (half as long again, and no fault more caught)
CONTROL_SPECS = (
    "(elementwise or gradient_of_random or special) and not numerics and not every_elementwise "
    "and not python_scalar and not every_form or (rounds_to_nearest and multiply)"
)


@dataclass
class Plan:
    """What a GPU check runs: pytest runs by name (arguments after pytest's own), and the rows
    it cannot run with the reason."""

    runs: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def plan(workers: int) -> Plan:
    """The CUDA rows this machine has, one run per framework (their devices only): torch@cuda:0,
    jax[x64]@gpu:0, and CuPy's own row; and the self-test's control on torch's apu. Frameworks on
    one GPU do not share a process: a CUDA context is the process's, and a call that leaves it
    unusable would fail the other framework's calls too (the run ends such a process at once,
    compat.harness.runner, but its other framework need not pay for it)."""
    found = Plan()
    for backend, rows in (("torch", cuda.torch_rows), ("jax[x64]", cuda.jax_rows)):
        name = backend.partition("[")[0]
        if importlib.util.find_spec(name) is None:
            found.skipped[f"{name}@cuda"] = f"{name} is not installed"
            continue
        usable = []
        for device, why in rows().items():
            if why is None:
                usable.append(device)
            else:
                found.skipped[str(Row.of(backend, device=device))] = why
        if usable:
            found.runs[name] = [
                "--backends",
                backend,
                *(f"--device={backend}:{d}" for d in usable),
                "--only-devices",
                "--device-examples",
                "0.2",  # the default run's share of a device row
            ]
    try:
        adapters.resolve("cupy")
        found.runs["cupy"] = ["--backends", "cupy"]
    except adapters.BackendMissing as reason:
        found.skipped["cupy"] = str(reason)
    if "torch" in found.runs:
        found.runs["control"] = ["selftest", "--backends", "torch", "-k", CONTROL_SPECS]
    share = {"torch": 0.3, "jax": 0.3, "cupy": 0.25, "control": 0.15}  # of the workers
    for name, arguments in found.runs.items():
        n = max(1, round(workers * share[name]))
        arguments += ["-n", str(n if len(found.runs) > 1 else workers)]
    return found


def command(name: str, arguments: list[str], out: Path) -> list[str]:
    """The command line of one of the plan's runs: pytest on compat's specs in report mode (a
    divergence fails nothing), its JUnit XML (each param's seconds) beside the records; or the self-test."""
    if arguments[0] == "selftest":
        return [sys.executable, "-m", "compat", *arguments]
    return [
        sys.executable,
        "-m",
        "pytest",
        SPECS,
        *report_options(out),
        "--modes",
        "none",  # the devices' kernels, eager: compiled modes are their CPU rows' business
        f"--junitxml={out / f'junit-{name}.xml'}",
        *arguments,
    ]


def run_until(commands: dict[str, list[str]], out: Path, deadline: float) -> dict[str, int]:
    """Run the commands side by side, each one's output in ``out/<name>.log``; at ``deadline``
    interrupt those still running (SIGINT, then SIGKILL after GRACE). Name -> exit status."""
    processes = {}
    for name, line in commands.items():
        log = open(out / f"{name}.log", "w")
        processes[name] = subprocess.Popen(line, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    status = {}
    for name, process in processes.items():
        try:
            status[name] = process.wait(timeout=max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGINT)  # pytest stops its workers and writes run.json
            try:
                status[name] = process.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                status[name] = process.wait()
    for process in processes.values():  # what a run left behind (the self-test's own pytest runs)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    return status


PARAM = re.compile(r"\[(.*)\]$")


def reproduce_alone(out: Path, deadline: float, workers: int) -> list[dict]:
    """The first record's reproducer of each new cause, written to ``out/reproducers/rNNN.py`` and
    run alone in a fresh interpreter (several at once, until ``deadline``), what it printed (both
    sides, then its exit status) in ``rNNN.out``. A cause whose two sides agree when run alone came
    from the run's process, not from the call (on an H200, torch's CUDA gradients failed only beside
    compat's loaded plug-in): read them before a cause is reported or registered."""
    loaded = records.load(out, validate=False)
    new = causes.by_cause([d for run in loaded.runs.values() for d in run.divergences], status="new")
    folder = out / "reproducers"
    folder.mkdir(exist_ok=True)
    source_tree = str(Path(__file__).resolve().parents[2])  # compat importable from a source tree
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [source_tree, os.environ.get("PYTHONPATH")])),
    }

    def run(number: int) -> dict:
        group = new[number]
        script = folder / f"r{number:03d}.py"
        script.write_text(group.records[0].reproducer)
        found = {
            "cause": group.name,
            "records": len(group.records),
            "script": str(script),
            "status": "not run",
        }
        left = min(deadline - time.monotonic(), REPRODUCER_LIMIT)
        if left < 5:
            return found
        start = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, str(script)], capture_output=True, text=True, timeout=left, env=env
            )
            printed, found["status"] = done.stdout + done.stderr[-3000:], f"exit {done.returncode}"
        except subprocess.TimeoutExpired:
            printed, found["status"] = "", f"timed out after {left:.0f} s"
        found["seconds"] = round(time.monotonic() - start, 1)
        script.with_suffix(".out").write_text(f"{printed}\n{found['status']}, {found['seconds']} s\n")
        return found

    with ThreadPoolExecutor(max(1, min(workers, 8))) as pool:
        return list(pool.map(run, range(len(new))))


def seconds_per_row(out: Path, rows: set[str]) -> dict[str, float]:
    """Row -> seconds its params took, summed, from the runs' JUnit XML (a param's id holds its row)."""
    seconds: defaultdict[str, float] = defaultdict(float)
    longest_first = sorted(rows, key=len, reverse=True)
    for path in sorted(out.glob("junit-*.xml")):
        try:
            tree = ElementTree.parse(path)
        except ElementTree.ParseError:  # a run killed while writing it
            continue
        for case in tree.iter("testcase"):
            found = PARAM.search(case.get("name", ""))
            row = next((r for r in longest_first if found and r in found.group(1)), None)
            if row is not None:
                seconds[row] += float(case.get("time") or 0)
    return dict(seconds)


def summary(out: Path, skipped: dict[str, str] | None = None, known: registry.Registry | None = None) -> dict:
    """The check's summary from the records under ``out``: per row the cases checked, the new
    divergences by cause (compat.results.causes: what one registry entry would cover) and their
    records, the known ones, those the device's contract allows, the dtypes and operations it has
    not (with the cases not checked), the seconds its params took and cases per second; the new
    causes, largest first; the rows skipped with the reason; the settings each run named for its
    devices; the device entries of ``known`` (default compat's registry) that claim a record which
    an entry of every device explains."""
    loaded = records.load(out, validate=False)
    known = known if known is not None else registry.load(registry.DEFAULT)
    rows: dict[str, dict] = {}
    settings = {}
    divergences = []

    def row_of(where: str) -> dict:
        return rows.setdefault(where, {"cases": 0, "known": set(), "contract": set(), "unsupported": {}})

    for run in loaded.runs.values():
        settings.update(run.meta.get("device_settings") or {})
        for record in run.checks:
            row = row_of(record.where)
            row["cases"] += sum(record.cases.values())
            for what in record.unsupported:
                unsupported = row["unsupported"]
                unsupported[what] = unsupported.get(what, 0) + record.unsupported_cases.get(what, 0)
        for record in run.divergences:
            if record.status in ("known", "contract"):
                row_of(record.where)[record.status].add(record.key)
        divergences += run.divergences
    new = causes.by_cause(divergences, status="new")
    counted = causes.per_row(new)
    seconds = seconds_per_row(out, set(rows) | set(counted))
    table = {
        where: {
            "cases": row["cases"],
            "new_causes": counted.get(where, (0, 0))[0],
            "new": counted.get(where, (0, 0))[1],
            "known": len(row["known"]),
            "contract": len(row["contract"]),
            "unsupported": dict(sorted(row["unsupported"].items())),
            "seconds": round(seconds.get(where, 0.0), 1),
            "cases_per_second": round(row["cases"] / seconds[where], 1) if seconds.get(where) else None,
        }
        for where, row in sorted((where, row_of(where)) for where in set(rows) | set(counted))
    }
    return {
        "runs": sorted(loaded.runs),
        "rows": table,
        "causes": [{"cause": g.name, "rows": g.rows, "records": len(g.records)} for g in new],
        "skipped": dict(skipped or {}),
        "device_settings": settings,
        # what a GPU run alone can show of the registry: a device's entry broader than its evidence
        "device_claims": [str(p) for p in lint.device_claims(lint.matched(known, loaded.runs.values()))],
        "problems": [str(p) for p in loaded.problems],
    }


def ran(reproducer: dict) -> str:
    """How a reproducer run alone ended: 'exit 0 in 4.4 s', 'timed out after 45 s', 'not run'."""
    seconds = reproducer.get("seconds")
    return reproducer["status"] + (
        f" in {seconds} s" if seconds is not None and "exit" in reproducer["status"] else ""
    )


def render(found: dict) -> str:
    """The summary as a table (a row's new divergences as causes and records), its unsupported
    dtypes and operations, then the new causes, the skipped rows, the settings and the runs."""
    lines = [
        f"{'row':<28} {'cases':>8} {'new causes (records)':>21} {'known':>6} {'contract':>8} "
        f"{'seconds':>8} {'cases/s':>8}"
    ]
    for where, row in found["rows"].items():
        rate = "-" if row["cases_per_second"] is None else f"{row['cases_per_second']:.1f}"
        new = f"{row['new_causes']} ({row['new']})"
        lines.append(
            f"{where:<28} {row['cases']:>8} {new:>21} {row['known']:>6} {row['contract']:>8} "
            f"{row['seconds']:>8.1f} {rate:>8}"
        )
    if not found["rows"]:
        lines.append("(no row checked a case)")
    for where, row in found["rows"].items():
        unsupported = {what: ("", n) for what, n in row["unsupported"].items()}
        lines += [
            f"{where} has no {what}: {n} cases not checked"
            for what, _, n in aggregate.unsupported_by_operation(unsupported)
        ]
    if found["causes"]:
        lines.append("new causes, largest first (python -m compat report DIR --run ID lists their records):")
        lines += [f"  {c['cause']} ({c['records']} records)" for c in found["causes"]]
    if found.get("reproducers"):
        lines.append(
            "each new cause's reproducer run alone (what it printed, both sides: reproducers/rNNN.out):"
        )
        lines += [f"  {Path(r['script']).stem}: {ran(r)}: {r['cause']}" for r in found["reproducers"]]
    if found.get("device_claims"):
        lines.append("the registry: device entries that claim what every device does (narrow each):")
        lines += [f"  {claim}" for claim in found["device_claims"]]
    lines += [f"skipped {where}: {why}" for where, why in found["skipped"].items()]
    for backend, named in found["device_settings"].items():
        lines += [f"{backend}: {name} = {value}" for name, value in named.items()]
    lines += [f"skipped {problem}" for problem in found["problems"]]
    return "\n".join(lines)


def main(out: Path, minutes: float, workers: int) -> int:
    """Run the check; 0 when it ran (divergences and crashed rows are records, not failures),
    2 when this machine has no CUDA device (nothing to check), 1 when no run left a record."""
    count, reason = cuda.driver_devices()
    if not count:
        print(f"compat gpu-check: {reason}: nothing to check", file=sys.stderr)
        return 2
    end = time.monotonic() + minutes * 60 - SUMMARY_TIME
    deadline = end - GRACE - REPRODUCE_TIME
    out.mkdir(parents=True, exist_ok=True)
    found = plan(workers)
    commands = {name: command(name, arguments, out) for name, arguments in found.runs.items()}
    print(
        f"compat gpu-check: {', '.join(commands) or 'nothing'} for {minutes:g} minutes into {out}", flush=True
    )
    for where, why in found.skipped.items():
        print(f"  skipping {where}: {why}", flush=True)
    status = run_until(commands, out, deadline)
    checked = summary(out, found.skipped)
    checked["exit_status"] = status
    checked["reproducers"] = reproduce_alone(out, end, workers)
    text = render(checked)
    control = out / "control.log"
    if control.exists():
        text += "\n\nself-test control (torch's apu, faults on in turn):\n" + control.read_text()[-3000:]
    (out / "gpu-check.json").write_text(json.dumps(checked, indent=2, default=str))
    (out / "gpu-check.txt").write_text(text + "\n")
    print(text)
    print(f"\nrecords: {out} (into the store: python -m compat merge {out})")
    return 0 if checked["rows"] else 1
