"""``python -m compat selftest``: every named fault of every reference plug-in is caught
by the specs, on the faulty device, and the control run (no fault) shows nothing.

To stay affordable in the default run, the self-test here runs the specs that exercise
kernels broadly (elementwise with broadcasting, special values, random gradient
programs; of the numerics family only the rounding table's multiply, since the placement
family's kernel spec already feeds the devices special values; not the broadcasting of every
other elementwise function, a share of examples each, where the specs above meet every kernel);
``python -m compat selftest`` runs them all."""

import os
import re
import subprocess
import sys

import pytest

from compat.core.row import Row
from compat.harness import gpucheck, selftest
from compat.results import records
from tests.helpers import REPO, subprocess_env


def without(tmp_path, *modules: str) -> str:
    """A folder to put first on PYTHONPATH in which each of ``modules`` fails to import, as on a
    machine whose Python lacks them."""
    blocked = tmp_path / "blocked-imports"
    blocked.mkdir()
    for module in modules:
        (blocked / f"{module}.py").write_text(f"raise ImportError('{module} is blocked by the test')\n")
    return str(blocked)


@pytest.mark.slow
def test_every_plugin_fault_is_detected(tmp_path):
    """As python -m compat gpu-check runs it (its control), on a machine whose Python has the
    frameworks but not compat's other dependencies: the records are read without the schema's
    check, which it says once."""
    backends = selftest.plugin_backends(None)
    if not backends:
        pytest.skip("neither tensorflow nor torch is installed")
    blocked = without(tmp_path, "fastjsonschema", "jsonschema")
    expected = {
        (str(Row.of(a.id, device=a.placement.plugin_devices()[0])), fault)
        for a in backends
        for fault in ["(none)", *selftest.faults_of(a)]
    }
    # -n 0: each device run in one process; the outer run is parallel already (20 s less CPU)
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "compat",
            "selftest",
            "-n",
            "0",
            "-k",
            gpucheck.CONTROL_SPECS,
        ],
        cwd=REPO,
        env=subprocess_env(tmp_path, PYTHONPATH=f"{blocked}{os.pathsep}{REPO}"),
        capture_output=True,
        text=True,
    )
    rows = {}
    for line in process.stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 3 and (cells[0], cells[1]) in expected:
            rows[(cells[0], cells[1])] = cells[2]
    assert set(rows) == expected, process.stdout + process.stderr  # one row per fault
    missed = sorted(
        key for key, detected in rows.items() if detected != ("no (good)" if key[1] == "(none)" else "yes")
    )
    assert not missed, (
        f"undetected faults, or a false alarm without one: {missed}\n{process.stdout}\n{process.stderr}"
    )
    assert process.returncode == 0, process.stdout + process.stderr
    assert process.stderr.count(records.UNCHECKED) == 1, process.stderr  # said once
