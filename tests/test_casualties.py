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
from pathlib import Path

import pytest

from compat.harness import inflight
from compat.results import records
from tests.helpers import REPO, Jobs, output, run_pytest, subprocess_env

pytestmark = [
    pytest.mark.xdist_group("casualties"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

SPEC = "compat/specs/placement.py::test_elementwise_kernels_on_special_values"
MODES = {"xdist": ["-n", "2"], "no-xdist": ["-p", "no:xdist"]}
CASES = {  # adapter class -> (its name, the operation that kills, the outcome kind)
    "AbortsInFloat32Multiply": ("aborts_in_float32_multiply", "multiply", "crash"),
    "HangsInSubtract": ("hangs_in_subtract", "subtract", "timeout"),
    "AllocatesWithoutBound": ("allocates_without_bound", "add", "crash"),
}
OPS = ("add", "subtract", "multiply")


def arguments(mode: str) -> list[str]:
    """All three adapters in one run: three casualties, and six specs that must not suffer."""
    nodes = [f"{SPEC}[{name}-{op}]" for name, _, _ in CASES.values() for op in OPS]
    backends = ",".join(f"tests.broken_adapters:{adapter}" for adapter in CASES)
    return [
        *nodes,
        "-q",
        *MODES[mode],
        "--backends",
        backends,
        "--device",
        "none",
        # the runaway allocation must pass the memory limit well within the call limit, on a loaded machine too
        "--compat-call-limit",
        "3",
        "--compat-memory-limit",
        "512MiB",
    ]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("casualties")
    table = {mode: (lambda m=mode: run_pytest(arguments(m), tmp / m, supervised=True)) for mode in MODES}
    table["killed"] = lambda: kill_a_worker_mid_run(tmp / "killed")
    jobs = Jobs(table, width=len(table))  # they mostly wait: for a hung call's limit, a worker to kill
    yield jobs, tmp
    jobs.close()


@pytest.mark.parametrize("mode", MODES)
def test_every_casualty_is_a_record_and_the_run_finishes(jobs, mode):
    """One test per run: under xdist a job is run by each worker whose tests ask for it."""
    process = jobs[0][mode]
    assert process.returncode == 1, output(
        process
    )  # strict mode: the casualties fail their specs, nothing else
    assert f"casualties: {len(CASES)} spec(s) killed their test process" in process.stdout, output(process)
    run = records.load(jobs[1] / mode / "results", validate=True).latest()
    for adapter, (name, op, kind) in CASES.items():
        found = [d for d in run.divergences if d.backend.name == name and d.kind == kind]
        assert found and {d.op for d in found} == {op} and {d.status for d in found} == {"new"}, (
            adapter,
            [(d.backend.name, d.op, d.kind, d.signature) for d in run.divergences],
        )
        checked = {op for c in run.checks if c.backend.name == name for op in c.cases}
        assert checked == set(OPS), (
            adapter,
            checked,
        )  # every other spec's records are there, and the casualty's own
        if adapter.startswith("Allocates"):
            assert "resident memory above 0.5 GiB" in found[0].detail, found[0].detail
        if adapter.startswith("Aborts"):  # the reproducer reproduces it: NumPy's result, then the abort
            assert "SIGABRT" in found[0].detail, found[0].detail
            reproduced = subprocess.run(
                [sys.executable, "-c", found[0].reproducer],
                cwd=REPO,
                capture_output=True,
                text=True,
                env=subprocess_env(jobs[1] / mode),
                timeout=120,
            )
            assert reproduced.returncode == -signal.SIGABRT, reproduced.stdout + reproduced.stderr
            assert reproduced.stdout.startswith("numpy "), reproduced.stdout


def kill_a_worker_mid_run(tmp: Path) -> tuple[Path | None, bytes, bytes, str, int]:
    """kill -9 of one xdist worker while it runs specs, once it has written a record of
    an earlier spec: (its records file, the file before the kill and after the run, the
    run's output, its exit code)."""
    results = tmp / "results"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "compat/specs/promotion.py",
        "-q",
        "-n",
        "2",
        "-k",
        "zero_dim",
        "--backends",
        "tests.broken_adapters:SlowNumpy",
        "--device",
        "none",
        "--compat-results",
        str(results),
        "--compat-registry",
        "none",
    ]
    process = subprocess.Popen(
        command,
        cwd=REPO,
        env=subprocess_env(tmp),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    victim, before = None, b""
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        for note in results.glob("*/inflight-gw*.note"):
            written = note.with_name(note.name.replace("inflight-", "records-").replace(".note", ".jsonl"))
            state = inflight.read(note)  # in a spec, with a record of an earlier one written
            if state is not None and state.spec and written.exists() and b"\n" in written.read_bytes():
                before = written.read_bytes()
                os.kill(state.pid, signal.SIGKILL)
                victim = written
                break
    out, _ = process.communicate(timeout=900)
    return victim, before, victim.read_bytes() if victim else b"", out, process.returncode


def test_a_worker_killed_mid_run_loses_no_record_and_the_run_finishes(jobs):
    """kill -9 of one xdist worker while it runs specs: the run goes on with a replacement."""
    victim, before, after, out, returncode = jobs[0]["killed"]
    assert victim is not None, out
    assert returncode in (0, 1), out  # finished, not hung or crashed
    assert after.startswith(before[: before.rfind(b"\n") + 1]), "records written before the kill were lost"
    assert "casualties: 1 spec(s)" in out and "1 rerun" in out, out
