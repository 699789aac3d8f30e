"""``python -m compat selftest``: prove that the specs catch a misbehaving device.

Each reference plug-in has named faults (a Relu that loses the sign of -0.0, a
sum that accumulates in float16, a copy that drops the last element, ...).
The self-test switches each on in turn, runs the specs on the faulty device
only (one pytest run per device; each fault is its own param, switched on
in-process around each spec, ``--compat-fault``), and reads the records: a
fault is detected when some spec recorded a new divergence of the device,
from its reference device or from NumPy. Known ones (a registered kernel gap
of the plug-in) show without a fault too; the control run (no fault) must
show nothing new. The table says by which specs and as what kind of divergence,
after how many checked cases the first one showed, and how long the run took.

The fatal faults (a kernel that aborts, one that never completes) run apart, in one
more run per device over the kernel spec of special values, with a short per-call
limit: the process they kill or stall must come back as a ``crash`` or ``timeout``
divergence (``compat.harness.casualties``), caught like any other.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from compat import adapters
from compat.core.row import Row
from compat.results import records
from compat.results.report import table
from compat.specs import DIRECTORY as SPECS
from compat.specs import report_options


@dataclass
class Result:
    backend: str
    device: str
    fault: str
    detected_by: list[str]
    kinds: list[str]  # the kinds of divergence it showed as (value, crash, timeout, ...)
    examples: int | None  # cases checked when the first divergence showed, in the detecting spec
    seconds: float
    problem: str = ""  # why the run could not judge the fault (build failure, crash)

    @property
    def detected(self) -> bool:
        return bool(self.detected_by)


def plugin_backends(backends: str | None) -> list[adapters.Adapter]:
    """The first config of each selected, installed backend that ships faults."""
    chosen, seen = [], set()
    for name in backends.split(",") if backends else adapters.BUILTIN:
        try:
            found = adapters.resolve(name.strip())
        except adapters.BackendMissing:
            continue
        adapter = found[0]
        if adapter.name not in seen and adapter.placement.plugin_devices() and faults_of(adapter):
            seen.add(adapter.name)
            chosen.append(adapter)
    return chosen


FATAL_SPEC = "placement.py::test_elementwise_kernels_on_special_values"
FATAL_CALL_LIMIT = "4"  # seconds: device calls of these specs take milliseconds


def faults_of(adapter: adapters.Adapter) -> dict[str, str]:
    plugin = adapter.plugin
    return {**plugin.faults, **plugin.fatal_faults} if plugin is not None else {}


def run_faults(
    adapter: adapters.Adapter,
    device: str,
    seed: int,
    workers: str,
    results: Path,
    extra: list[str],
    fatal: bool = False,
) -> list[Result]:
    """One pytest run on the device with every fault as its own param (switched on
    in-process around each spec), in report mode under the no-shrink selftest
    profile: a spec stops at the first divergence it sees. With ``fatal``, the faults
    that kill or stall the process, over the kernel spec of special values."""
    if fatal:
        faults = list(adapter.plugin.fatal_faults)
        # eager only: each death costs a worker's replacement and a rerun, and a fatal kernel is fatal in a graph too
        selection = [
            f"{SPECS}/{FATAL_SPEC}",
            "--compat-call-limit",
            FATAL_CALL_LIMIT,
            "--modes",
            "none",
            *(f"--compat-fault={fault}" for fault in faults),
        ]
    else:
        faults = [None, *adapter.plugin.faults]  # None: the control, no fault; it must show nothing new
        selection = [SPECS, "--compat-fault", "all", *extra]
    command = [
        sys.executable,
        "-m",
        "pytest",
        *report_options(results),
        "-n",
        "1" if fatal else workers,
        "--backends",
        adapter.id,
        "--device",
        f"{adapter.id}:{device}",
        "--only-devices",
        "--hypothesis-profile",
        "selftest",
        "--hypothesis-seed",
        str(seed),
        *selection,
    ]
    start = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if process.returncode not in (0, 1):
        lines = (process.stderr or process.stdout).strip().splitlines()
        return [
            Result(
                adapter.id,
                device,
                f or "(none)",
                [],
                [],
                None,
                seconds,
                lines[-1] if lines else f"exit {process.returncode}",
            )
            for f in faults
        ]
    loaded = records.load(results)
    found = []
    for fault in faults:
        hits = [
            r
            for run in loaded.runs.values()
            for r in run.divergences
            if r.device == device and r.backend.config.get("fault") == fault and r.status == "new"
        ]
        specs = sorted({r.spec_name for r in hits})
        first = min((r.first_seen_after + 1 for r in hits), default=None)
        found.append(
            Result(
                adapter.id, device, fault or "(none)", specs, sorted({r.kind for r in hits}), first, seconds
            )
        )
    return found


def main(
    backends: str | None = None, seed: int = 0, workers: str = "auto", extra: list[str] | None = None
) -> int:
    chosen = plugin_backends(backends)
    if not chosen:
        print(
            "compat selftest: no installed backend with a reference plug-in (tensorflow, torch)",
            file=sys.stderr,
        )
        return 2
    runs = []  # (adapter, device, results folder, extra, fatal)
    with tempfile.TemporaryDirectory(prefix="compat-selftest-") as scratch:
        for adapter in chosen:
            device = adapter.placement.plugin_devices()[0]
            print(
                f"  {Row.of(adapter.id, device=device)}: {len(adapter.plugin.faults)} faults and a control, "
                f"{len(adapter.plugin.fatal_faults)} fatal faults ...",
                file=sys.stderr,
            )
            runs.append((adapter, device, Path(scratch) / adapter.name, extra or [], False))
            if adapter.plugin.fatal_faults:
                runs.append((adapter, device, Path(scratch) / f"{adapter.name}-fatal", [], True))
        # a fatal run spends most of its time waiting (a worker's replacement starting, a hung
        # call's limit), which another run fills: two at a time, or all of them when each
        # device run is one process (-n 0)
        with ThreadPoolExecutor(max_workers=len(runs) if workers == "0" else 2) as pool:
            futures = [
                pool.submit(run_faults, adapter, device, seed, workers, folder, more, fatal=fatal)
                for adapter, device, folder, more, fatal in runs
            ]
            results = [result for future in futures for result in future.result()]
    print(render(results))
    control, faults = [r for r in results if r.fault == "(none)"], [r for r in results if r.fault != "(none)"]
    return 0 if all(r.detected for r in faults) and not any(r.detected or r.problem for r in control) else 1


def render(results: list[Result]) -> str:
    """The table; the control row (no fault) must show nothing, and the run's seconds are per device."""
    rows = [
        [
            str(Row.of(r.backend, device=r.device)),
            r.fault,
            ("false alarm" if r.detected else "no (good)")
            if r.fault == "(none)"
            else "yes"
            if r.detected
            else "NO",
            ", ".join(r.kinds) or "-",
            first_specs(r.detected_by) or r.problem or "-",
            r.examples if r.examples is not None else "-",
            f"{r.seconds:.0f}",
        ]
        for r in results
    ]
    faults = [r for r in results if r.fault != "(none)"]
    detected = sum(r.detected for r in faults)
    return (
        table(["device", "fault", "detected", "as", "by spec", "examples", "seconds (device run)"], rows)
        + f"\n\n{detected} of {len(faults)} faults detected"
    )


def first_specs(specs: list[str], shown: int = 3) -> str:
    more = len(specs) - shown
    return ", ".join(specs[:shown]) + (f" and {more} more" if more > 0 else "")
