"""A call that leaves its device unusable (a CUDA device-side assert: every later call of the
process fails) is one crash record, and the run goes on in a new process: under ``-n 2`` and
without xdist, an accelerator whose one bad call poisons its process (PoisonsItsDevice,
tests/broken_adapters.py) gives one crash, no other divergence, and every case is still checked,
the poisoning spec's later cases and the specs after it."""

from __future__ import annotations

import pytest

from compat.results import records
from compat.specs.indexing import INVALID_INDEX_FORMS
from tests.helpers import Jobs, output, run_pytest

pytestmark = [pytest.mark.xdist_group("device-lost"), pytest.mark.slow]

POISONING_SPEC = "compat/specs/indexing.py::test_every_invalid_index_kind_raises"
LATER_SPECS = [  # elementwise kernels on the same device: in a poisoned process each call would fail
    f"compat/specs/placement.py::test_elementwise_kernels_on_special_values[poisons_its_device@gpu:0-{op}]"
    for op in ("add", "subtract", "multiply")
]
MODES = {"xdist": ["-n", "2"], "no-xdist": ["-p", "no:xdist"]}
ROW = "poisons_its_device@gpu:0"


def arguments(mode: str) -> list[str]:
    return [
        f"{POISONING_SPEC}[{ROW}]",
        *LATER_SPECS,
        "-q",
        *MODES[mode],
        "--backends",
        "tests.broken_adapters:PoisonsItsDevice",
        "--device",
        "poisons_its_device:gpu:0",
        "--only-devices",
        "--device-examples",
        "1",
    ]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("device-lost")
    jobs = Jobs({m: (lambda m=m: run_pytest(arguments(m), tmp / m, supervised=True)) for m in MODES}, width=2)
    yield jobs, tmp
    jobs.close()


@pytest.mark.parametrize("mode", MODES)
def test_a_lost_device_is_one_crash_and_every_case_is_checked(jobs, mode):
    process = jobs[0][mode]
    assert process.returncode == 1, output(process)  # strict mode: the crash fails its spec, nothing else
    run = records.load(jobs[1] / mode / "results", validate=True).latest()
    found = [(d.op, d.kind, d.signature["actual"], d.detail) for d in run.divergences]
    assert [(op, kind) for op, kind, _, _ in found] == [("getitem", "crash")], found
    assert "device-side assert triggered; gpu:0 unusable after it" in found[0][3], found
    cases = {c.spec: c.cases for c in run.checks}
    # each form once, and the case its process was lost in once more, first, replayed in a child
    assert cases[f"{POISONING_SPEC}[{ROW}]"] == {"getitem": len(INVALID_INDEX_FORMS) + 1}, cases
    assert all(cases.get(spec) for spec in LATER_SPECS), cases  # each checked its cases, in a new process
    assert "casualties: 1 spec(s) killed their test process" in process.stdout, output(process)
    assert "gpu:0 unusable after it" in process.stdout, output(process)  # the casualty's line says why
