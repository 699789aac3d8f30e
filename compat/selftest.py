"""``python -m compat selftest``: prove that the specs catch a misbehaving device.

Each reference plug-in has named faults (a Relu that loses the sign of -0.0, a
sum that accumulates in float16, a copy that drops the last element, ...).
The self-test switches each on in turn, runs the specs on the faulty device
only (one pytest run per fault, in strict mode, stopping at the first spec
that fails; faults reach the plug-in through COMPAT_APU_FAULT/COMPAT_APU_SEED),
and reads the records: a fault is detected
when some spec recorded a divergence of the device from its reference device
(or a result on the wrong device). The table says by which specs, after how
many checked cases the first one showed, and how long the run took.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from compat import adapters, records
from compat.report import table
from compat.specs import DIRECTORY as SPECS


@dataclass
class Result:
    backend: str
    device: str
    fault: str
    detected_by: list[str]
    examples: int | None  # cases checked when the first divergence showed, in the detecting spec
    seconds: float
    problem: str = ""  # why the run could not judge the fault (build failure, crash)

    @property
    def detected(self) -> bool:
        return bool(self.detected_by)


def plugin_backends(backends: str | None) -> list[adapters.Adapter]:
    """The first config of each selected, installed backend that ships faults."""
    chosen, seen = [], set()
    for name in (backends.split(",") if backends else adapters.BUILTIN):
        try:
            found = adapters.resolve(name.strip())
        except adapters.BackendMissing:
            continue
        adapter = found[0]
        if adapter.name not in seen and adapter.plugin_devices() and faults_of(adapter):
            seen.add(adapter.name)
            chosen.append(adapter)
    return chosen


def faults_of(adapter: adapters.Adapter) -> dict[str, str]:
    try:
        return adapter.faults()
    except NotImplementedError:
        return {}


def run_fault(adapter: adapters.Adapter, device: str, fault: str, seed: int, workers: str, results: Path,
              extra: list[str]) -> Result:
    # strict mode with --maxfail=1: the first spec that notices the fault ends the run
    command = [sys.executable, "-m", "pytest", SPECS, "-q", "-p", "no:cacheprovider", "-n", workers, "--maxfail=1",
               "--backends", adapter.id, "--device", f"{adapter.id}:{device}", "--only-devices",
               "--compat-mode", "strict", "--compat-results", str(results),
               "--hypothesis-profile", "selftest", "--hypothesis-seed", str(seed), *extra]
    env = {**os.environ, "COMPAT_APU_FAULT": fault, "COMPAT_APU_SEED": str(seed)}
    start = time.perf_counter()
    process = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if process.returncode not in (0, 1):
        lines = (process.stderr or process.stdout).strip().splitlines()
        return Result(adapter.id, device, fault, [], None, seconds, lines[-1] if lines else f"exit {process.returncode}")
    loaded = records.load(results)
    hits = [r for run in loaded.runs.values() for r in run.divergences
            if r["device"] == device and (r["reference"].startswith("device:") or r["kind"] == "device")]
    specs = sorted({r["spec"].split("::")[-1].split("[")[0] for r in hits})
    first = min((r.get("first_seen_after", 0) + 1 for r in hits), default=None)
    return Result(adapter.id, device, fault, specs, first, seconds)


def main(backends: str | None = None, seed: int = 0, workers: str = "auto", extra: list[str] | None = None) -> int:
    chosen = plugin_backends(backends)
    if not chosen:
        print("compat selftest: no installed backend with a reference plug-in (tensorflow, torch)", file=sys.stderr)
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="compat-selftest-") as scratch:
        for adapter in chosen:
            device = adapter.plugin_devices()[0]
            for fault in faults_of(adapter):
                result = run_fault(adapter, device, fault, seed, workers, Path(scratch) / f"{adapter.name}-{fault}", extra or [])
                results.append(result)
                print(f"  {adapter.id}@{device} {fault}: {'detected' if result.detected else 'MISSED'} "
                      f"({result.seconds:.0f} s){' - ' + result.problem if result.problem else ''}", file=sys.stderr)
    print(render(results))
    return 0 if all(r.detected for r in results) else 1


def render(results: list[Result]) -> str:
    rows = [[f"{r.backend}@{r.device}", r.fault, "yes" if r.detected else "NO",
             ", ".join(r.detected_by) or r.problem or "-", r.examples if r.examples is not None else "-",
             f"{r.seconds:.0f}"] for r in results]
    missed = sum(not r.detected for r in results)
    return table(["device", "fault", "detected", "by spec", "examples", "seconds"], rows) + \
        f"\n\n{len(results) - missed} of {len(results)} faults detected"
