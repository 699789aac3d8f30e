"""A machine's accelerators (torch's cuda:0, JAX's gpu:0: issue 35) are rows beside the plug-in
devices, found through the plug-in's ``accelerators()``: checked as a device under test (against
the reference device), and, where absent, skipped with the reason in the run's header, summary and
description. Here through a NumPy adapter with devices of two kinds (tests/broken_adapters.py),
run as ``python -m compat gpu-check`` runs its rows: records, log and summary in its folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compat.devices import cuda
from compat.harness import gpucheck
from compat.results import records, report
from compat.results.registry import Registry
from tests.helpers import REPO, subprocess_env

pytestmark = pytest.mark.xdist_group("accelerator-rows")

ROWS = [
    "--adapter",
    "tests.broken_adapters:TwoDeviceKinds",
    "--adapter",
    "tests.broken_adapters:BrokenBesideItsPlugin",
    "-k",
    "elementwise_kernels_on_special_values and add",
    "--device-examples",
    "1",
    "-n",
    "0",
]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """A GPU check of TwoDeviceKinds' rows (the driver and the plan stand in for a GPU machine's)."""
    tmp = tmp_path_factory.mktemp("accelerator-rows")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cuda, "driver_devices", lambda: (1, ""))
        patch.setattr(gpucheck, "plan", lambda workers: gpucheck.Plan(runs={"devices": list(ROWS)}))
        patch.setattr(os, "environ", subprocess_env(tmp))
        patch.chdir(REPO)
        assert gpucheck.main(tmp / "out", minutes=3, workers=1) == 0
    return tmp / "out"


def test_an_accelerator_is_a_row_beside_the_plugin_device(out):
    (found,) = records.load(out).runs.values()
    assert {r.where for r in found.checks if r.backend.name == "two_device_kinds"} == {
        "two_device_kinds",
        "two_device_kinds@apu:0",
        "two_device_kinds@gpu:0",
    }


def test_a_divergence_of_the_accelerator_is_recorded_with_its_device(out):
    (found,) = records.load(out).runs.values()
    where = {(r.device, r.reference, r.kind, r.op) for r in found.divergences}
    assert ("gpu:0", "device:cpu:0", "value", "add") in where, where  # against the reference device
    assert {r.device for r in found.divergences} == {"gpu:0"}, where  # the plug-in's apu:0 is sound


def test_an_absent_accelerator_is_skipped_with_its_reason(out):
    (found,) = records.load(out).runs.values()
    log = (out / "devices.log").read_text()
    line = "compat: skipping two_device_kinds@tpu:0: no TPU on this machine"
    assert line in log.split("compat divergence summary")[1], log  # the summary (and the header, without -q)
    assert found.meta["missing"]["two_device_kinds@tpu:0"] == "no TPU on this machine", found.meta
    assert "skipped two_device_kinds@tpu:0: no TPU on this machine" in report.text_report(found, Registry())


def test_the_check_summarizes_each_row(out):
    summary = json.loads((out / "gpu-check.json").read_text())
    gpu = summary["rows"]["two_device_kinds@gpu:0"]
    assert gpu["new"] == 2 and gpu["known"] == 0, summary  # float32 and float64 flushed
    assert gpu["cases"] > 0 and gpu["cases_per_second"] > 0, summary
    assert summary["rows"]["two_device_kinds@apu:0"]["new"] == 0, summary
    assert (out / "gpu-check.txt").read_text().startswith("row "), Path(out / "gpu-check.txt").read_text()


def test_a_plugin_that_breaks_the_accelerators_is_left_out_beside_them(out):
    """torch's PrivateUse1 device, once loaded, is torch's accelerator, and every CUDA backward of
    its process fails (pytorch/pytorch#161129): a run checking cuda:0 leaves apu:0 out and says why,
    and nothing on the accelerator's row loads the plug-in (its kernel counters included)."""
    (found,) = records.load(out).runs.values()
    why = found.meta["missing"]["broken_beside_its_plugin@apu:0"]
    assert why == "not beside gpu:0: once loaded, gpu:0 fails every call of its process", found.meta
    rows = {r.where for r in found.checks if r.backend.name == "broken_beside_its_plugin"}
    assert rows == {"broken_beside_its_plugin", "broken_beside_its_plugin@gpu:0"}, rows
    beside = [d for d in found.divergences if d.backend.name == "broken_beside_its_plugin"]
    assert not beside, [d.detail for d in beside]  # the row computes: its plug-in was never loaded


def test_each_new_cause_is_reproduced_alone(out):
    """The first record's reproducer of each new cause runs in a fresh interpreter after the runs:
    what it printed shows both sides, here the flushed subnormal against the CPU's."""
    summary = json.loads((out / "gpu-check.json").read_text())
    reproducers = summary["reproducers"]
    assert len(reproducers) == summary["rows"]["two_device_kinds@gpu:0"]["new_causes"], reproducers
    for reproducer in reproducers:
        assert reproducer["status"] == "exit 0", reproducer
        printed = Path(reproducer["script"]).with_suffix(".out").read_text()
        assert "on cpu:0:" in printed and "on gpu:0:" in printed, printed
    assert "each new cause's reproducer run alone" in (out / "gpu-check.txt").read_text()
