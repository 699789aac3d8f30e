"""A machine's accelerators (torch's cuda:0, JAX's gpu:0: issue 35) are rows beside the plug-in
devices, found through the plug-in's ``accelerators()``: checked as a device under test (against
the reference device and NumPy), and, where absent, skipped with the reason in the run's header and
summary. Here through a NumPy adapter with devices of two kinds (tests/broken_adapters.py)."""

from __future__ import annotations

import pytest

from compat.results import records
from tests.helpers import output, run_pytest

pytestmark = pytest.mark.xdist_group("accelerator-rows")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("accelerator-rows")
    process = run_pytest(
        [
            "compat/specs/placement.py",
            "-k",
            "elementwise_kernels_on_special_values and add",
            "--adapter",
            "tests.broken_adapters:TwoDeviceKinds",
            "--device-examples",
            "1",
        ],
        tmp,
    )
    assert process.returncode == 1, output(process)  # the flushed add is a new divergence
    (found,) = records.load(tmp / "results").runs.values()
    return process, found


def test_an_accelerator_is_a_row_beside_the_plugin_device(run):
    _, found = run
    assert {r.where for r in found.checks} == {
        "two_device_kinds",
        "two_device_kinds@apu:0",
        "two_device_kinds@gpu:0",
    }


def test_a_divergence_of_the_accelerator_is_recorded_with_its_device(run):
    _, found = run
    where = {(r.device, r.reference, r.kind, r.op) for r in found.divergences}
    assert ("gpu:0", "device:cpu:0", "value", "add") in where, where  # against the reference device
    assert {r.device for r in found.divergences} == {"gpu:0"}, where  # the plug-in's apu:0 is sound


def test_an_absent_accelerator_is_skipped_with_its_reason(run):
    process, found = run
    line = "compat: skipping two_device_kinds@tpu:0: no TPU on this machine"
    assert process.stdout.count(line) == 2, output(process)  # the header and the summary
    assert found.meta["missing"] == {"two_device_kinds@tpu:0": "no TPU on this machine"}
