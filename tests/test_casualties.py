"""A crash, a hang or a runaway allocation in the backend under test is a record, never a
lost run: under ``-n 2`` and under ``-p no:xdist``, with third-party-style adapters
(tests/broken_adapters.py) that abort, never return, or allocate without bound in one
operation, the run finishes, the casualty is a ``crash``/``timeout`` divergence with a
reproducer, and every other spec's records are there. And a worker killed with SIGKILL
in the middle of a run loses no record it had written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from compat.harness import inflight
from compat.results import records
from tests.helpers import REPO, Jobs, empty_registry, output, run_pytest, subprocess_env

SPEC = "compat/specs/placement.py::test_elementwise_kernels_on_special_values"
MODES = {"xdist": ["-n", "2"], "no-xdist": ["-p", "no:xdist"]}
CASES = {  # adapter class -> (its name, the operation that kills, the outcome kind, extra options)
    "AbortsInFloat32Multiply": ("aborts_in_float32_multiply", "multiply", "crash", ()),
    "HangsInSubtract": ("hangs_in_subtract", "subtract", "timeout", ("--compat-call-limit", "2")),
    "AllocatesWithoutBound": ("allocates_without_bound", "add", "crash", ("--compat-memory-limit", "1GiB")),
}
OPS = ("add", "subtract", "multiply")


def arguments(adapter: str, mode: str) -> list[str]:
    name, _, _, extra = CASES[adapter]
    nodes = [f"{SPEC}[{name}-{op}]" for op in OPS]
    return [*nodes, "-q", *MODES[mode], "--backends", f"tests.broken_adapters:{adapter}", "--device", "none", *extra]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("casualties")
    jobs = Jobs({(adapter, mode): (lambda a=adapter, m=mode: run_pytest(arguments(a, m), tmp / f"{a}-{m}"))
                 for adapter in CASES for mode in MODES})
    yield jobs, tmp
    jobs.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adapter", CASES)
def test_the_casualty_is_a_record_and_the_run_finishes(jobs, adapter, mode):
    process = jobs[0][(adapter, mode)]
    name, op, kind, _ = CASES[adapter]
    assert process.returncode == 1, output(process)  # strict mode: the casualty fails its spec, nothing else
    assert "casualties: 1 spec(s) killed their test process" in process.stdout, output(process)
    run = records.load(jobs[1] / f"{adapter}-{mode}" / "results", validate=True).latest()
    found = [d for d in run.divergences if d.kind == kind]
    assert found and {d.op for d in found} == {op} and {d.status for d in found} == {"new"}, \
        [(d.op, d.kind, d.signature) for d in run.divergences]
    checked = {op for c in run.checks for op in c.cases}
    assert checked == set(OPS), checked  # every other spec's records are there, and the casualty's own
    if adapter.startswith("Allocates"):
        assert "resident memory above 1 GiB" in found[0].detail, found[0].detail
    if adapter.startswith("Aborts"):  # the reproducer reproduces it: NumPy's result, then the abort
        assert "SIGABRT" in found[0].detail, found[0].detail
        reproduced = subprocess.run([sys.executable, "-c", found[0].reproducer], cwd=REPO, capture_output=True,
                                    text=True, env=subprocess_env(jobs[1]), timeout=120)
        assert reproduced.returncode == -signal.SIGABRT, reproduced.stdout + reproduced.stderr
        assert reproduced.stdout.startswith("numpy "), reproduced.stdout


def test_a_worker_killed_mid_run_loses_no_record_and_the_run_finishes(tmp_path):
    """kill -9 of one xdist worker while it runs specs: the run goes on with a replacement."""
    results = tmp_path / "results"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "compat/specs/promotion.py", "-q", "-n", "2",
               "--backends", "numpy", "--device", "none", "--compat-results", str(results),
               "--compat-registry", str(empty_registry(tmp_path)), "--hypothesis-profile", "thorough"]
    process = subprocess.Popen(command, cwd=REPO, env=subprocess_env(tmp_path), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    victim, before = None, b""
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.5)
        for note in results.glob("*/inflight-gw*.note"):
            written = note.with_name(note.name.replace("inflight-", "records-").replace(".note", ".jsonl"))
            state = inflight.read(note)
            if state is not None and state.spec and written.exists() and written.stat().st_size > 2000:
                before = written.read_bytes()
                os.kill(state.pid, signal.SIGKILL)
                victim = written
                break
    out, _ = process.communicate(timeout=900)
    assert victim is not None, out
    assert process.returncode in (0, 1), out  # finished, not hung or crashed
    after = victim.read_bytes()
    assert after.startswith(before[:before.rfind(b"\n") + 1]), "records written before the kill were lost"
    assert "casualties: 1 spec(s)" in out and "1 rerun" in out, out
