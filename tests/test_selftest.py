"""``python -m compat selftest``: every named fault of every reference plug-in is caught
by the specs, on the faulty device, and the control run (no fault) shows nothing.

To stay affordable in the default run, the self-test here runs the specs that exercise
kernels broadly (elementwise with broadcasting, special values, random gradient
programs; of the numerics family only the rounding table's multiply, since the placement
family's kernel spec already feeds the devices special values; not the broadcasting of every
other elementwise function, a share of examples each, where the specs above meet every kernel);
``python -m compat selftest`` runs them all."""

import re
import subprocess
import sys

import pytest

from compat.core.row import Row
from compat.harness import selftest
from tests.helpers import REPO, subprocess_env


@pytest.mark.slow
def test_every_plugin_fault_is_detected(tmp_path):
    backends = selftest.plugin_backends(None)
    if not backends:
        pytest.skip("neither tensorflow nor torch is installed")
    expected = {
        (str(Row.of(a.id, device=a.plugin_devices()[0])), fault)
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
            "(elementwise or gradient_of_random or special) and not numerics and not every_elementwise "
            "or (rounds_to_nearest and multiply)",
        ],
        cwd=REPO,
        env=subprocess_env(tmp_path),
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
