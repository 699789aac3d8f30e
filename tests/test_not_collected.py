"""What a row cannot run whatever it draws is not collected (compat.harness.xp.not_runnable): the
known spec's replays of a family the registry has no example of for the row, a spec whose
operation the row declares unsupported (still counted as not checked in the report), a spec
whose condition the row does not meet; the summary says how many, why and where, once."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from compat import adapters
from compat.core.row import Row
from compat.harness import xp
from compat.results import records, registry
from tests.helpers import SPECS, run_pytest

pytestmark = pytest.mark.xdist_group("not-collected")

ENTRY = """
[[known]]
id = "torch-example"
backend = "torch"
family = "promotion"
kind = "dtype"
differs = "d"
reason = "r"
[[known.examples]]
family = "promotion"
call = "add(x0, x1)"
backends = ["torch"]
[known.examples.inputs]
x0 = "np.array([1], dtype=np.int8)"
x1 = "np.array([1], dtype=np.uint8)"
"""


class Item:
    def __init__(self, row: Row, marks=(), **params):
        self.callspec = SimpleNamespace(params={"xp": row, **params})
        self.marks = list(marks)

    def iter_markers(self, name):
        return (mark for mark in self.marks if mark.name == name)


@pytest.fixture(scope="module")
def compat(tmp_path_factory):
    path = tmp_path_factory.mktemp("registry") / "known.toml"
    path.write_text(ENTRY)
    numpy, torch = adapters.load_adapter("numpy"), adapters.load_adapter("torch")
    return SimpleNamespace(adapters=[numpy, torch], reference=numpy, registry=registry.load(path))


def test_a_known_family_is_collected_where_the_registry_has_an_example_of_it_for_the_row(compat):
    assert xp.not_runnable(Item(Row.of("torch"), known_family="promotion"), compat) is None
    assert xp.not_runnable(Item(Row.of("torch"), known_family="sets"), compat) == (xp.NO_EXAMPLE, "")
    # the example names no device, and no mode rules it out: a device row has none, a mode row has it
    assert xp.not_runnable(Item(Row.of("torch", device="apu:0"), known_family="promotion"), compat)
    assert xp.not_runnable(Item(Row.of("torch", "compile"), known_family="promotion"), compat) is None
    # NumPy is the reference: it replays nothing against itself
    assert xp.not_runnable(Item(Row.of("numpy"), known_family="promotion"), compat) == (xp.NO_EXAMPLE, "")


def test_an_operation_the_row_lacks_and_a_condition_it_does_not_meet(compat):
    grad, hvp = pytest.mark.compat_requires("grad").mark, pytest.mark.compat_requires("hvp").mark
    assert xp.not_runnable(Item(Row.of("numpy"), [grad]), compat) == (xp.LACKS, "grad")
    assert xp.not_runnable(Item(Row.of("torch"), [grad, hvp]), compat) is None
    assert xp.not_runnable(Item(Row.of("torch", "lazy"), [grad, hvp]), compat) == (xp.LACKS, "hvp")
    on_a_device = pytest.mark.compat_where(lambda row, backend: row.device is not None, "no device").mark
    assert xp.not_runnable(Item(Row.of("torch"), [on_a_device]), compat) == ("no device", "")
    assert xp.not_runnable(Item(Row.of("torch", device="apu:0"), [on_a_device]), compat) is None


def test_the_summary_says_once_what_was_not_collected_and_the_report_still_counts_it(tmp_path):
    """Under xdist each worker collects every param; one of them writes the Checks records of the
    params of an operation the row lacks, the controller prints the workers' lines."""
    process = run_pytest(
        [str(SPECS / name) for name in ("gradients.py", "known.py", "placement.py")]
        + ["-k", "random_programs or known or copies_are_bit_exact", "--backends", "numpy", "-n", "2"],
        tmp_path,
    )
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    lines = [line for line in process.stdout.splitlines() if line.startswith("compat: not collected")]
    lacks = [line for line in lines if xp.LACKS in line]
    assert len(lacks) == 1, lines
    not_checked = int(re.search(r"(\d+) params: numpy (\d+)$", lacks[0]).group(2))
    assert any(xp.NO_EXAMPLE in line for line in lines), lines
    assert any("(no device under test): 1 params: numpy 1" in line for line in lines), lines
    assert " skipped" not in process.stdout.splitlines()[-1], process.stdout[-500:]
    (run,) = records.load(tmp_path / "results").runs.values()
    counted = [r for r in run.checks if r.unsupported_cases.get("grad")]
    # one per param of test_gradient_of_random_programs and test_jacobian_of_random_programs
    # (-k), each written once: numpy declares grad and jacobian unsupported
    assert len(counted) + len([r for r in run.checks if r.unsupported_cases.get("jacobian")]) == not_checked
    assert len({r.spec for r in counted}) == len(counted) > 0


def test_without_xdist_the_header_says_it_under_pytests_collected_line(tmp_path):
    process = run_pytest(
        [str(SPECS / "placement.py"), "-k", "copies_are_bit_exact", "--backends", "numpy", "-p", "no:xdist"],
        tmp_path,
    )
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    lines = process.stdout.splitlines()
    collected = next(i for i, line in enumerate(lines) if line.startswith("collected "))
    line = "compat: not collected (no device under test): 1 params: numpy 1"
    assert lines[collected + 1] == line, lines[collected : collected + 2]
    assert lines.count(line) == 2, process.stdout  # and in the summary
