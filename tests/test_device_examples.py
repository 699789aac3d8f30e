"""Device params check a share of each Hypothesis spec's examples and of each
exhaustive table (--device-examples): the default-device row explores values,
the device row checks kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat.core.domain import in_domain
from compat.core.strategies import dtype_pairs
from compat.results import records
from compat.specs.promotion import has_reference
from tests.helpers import Jobs, json_of, output, run_pytest

pytestmark = pytest.mark.xdist_group("device-examples")  # one worker: the module's fixtures are made once

SPEC = [
    "compat/specs/promotion.py",
    "-k",
    "(unary_function_result_dtype and sqrt) or (linear_algebra_on_every_pair and matmul)",
    "-p",
    "no:randomly",
    "--backends",
    "torch",
    "--device",
    "torch:apu:0",
    "--hypothesis-profile",
    "ci",
]


def cases_per_row(tmp, *extra) -> dict[tuple[str, str], int]:
    """Cases checked per (param, op): (``torch`` or ``torch@apu:0``, ``sqrt`` or ``matmul``), from the records."""
    process = run_pytest(
        [*SPEC, *extra], tmp, shipped_registry=True
    )  # known divergences do not stop a spec early
    assert process.returncode == 0, output(process)
    loaded = records.load(tmp / "results")
    assert loaded.problems == [], loaded.problems
    (run,) = loaded.runs.values()
    return {
        (r["spec"].rsplit("[", 1)[1].split("-")[0].rstrip("]"), op): n
        for r in json_of(run.checks)
        for op, n in r["cases"].items()
    }


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    pytest.importorskip("torch", reason="the device rows here are torch's apu")
    tmp = tmp_path_factory.mktemp("device-examples")
    runs = Jobs(
        {
            "default": lambda: cases_per_row(tmp / "default"),
            "only-devices": lambda: cases_per_row(tmp / "only", "--only-devices"),
            "share-1": lambda: cases_per_row(tmp / "share", "--device-examples", "1"),
        }
    )
    yield runs
    runs.close()


def matmul_pairs():
    """matmul's dtype table, as the spec walks it: every pair of NumPy's domain for it (the
    standard's numeric category, and bool, whose product NumPy computes)."""
    return dtype_pairs(in_domain("matmul"))


def test_device_row_checks_a_fifth_by_default(jobs):
    cases = jobs["default"]
    assert cases["torch", "sqrt"] >= 30, cases  # the ci profile's 40 examples (a few may repeat)
    assert 5 <= cases["torch@apu:0", "sqrt"] <= 10, cases
    every_pair = [pair for pair in matmul_pairs() if has_reference(*pair)]  # the exhaustive table
    every_fifth = [pair for pair in list(matmul_pairs())[::5] if has_reference(*pair)]  # seed 0: offset 0
    assert cases["torch", "matmul"] == len(every_pair) and cases["torch@apu:0", "matmul"] == len(
        every_fifth
    ), cases


def test_only_devices_and_a_share_of_one_check_everything(jobs):
    every_pair = len([pair for pair in matmul_pairs() if has_reference(*pair)])
    for run in ("only-devices", "share-1"):
        cases = jobs[run]
        assert cases["torch@apu:0", "sqrt"] >= 30, (run, cases)
        assert cases["torch@apu:0", "matmul"] == every_pair, (run, cases)


@pytest.mark.parametrize("share", ["0", "1.5", "half"])
def test_a_share_outside_zero_to_one_is_a_usage_error(tmp_path, share):
    process = run_pytest([*SPEC, "--device-examples", share, "--collect-only"], tmp_path)
    assert process.returncode == 4, output(process)
    assert "--device-examples: invalid fraction value" in process.stderr, output(process)
    assert "Traceback" not in process.stderr + process.stdout


def test_seeds_sample_disjoint_quarters_that_cover_the_table():
    from compat.adapters import load_adapter
    from compat.harness.checker import Checker, Session
    from compat.results.registry import load

    numpy = load_adapter("numpy")
    table = [(a, b) for a in range(14) for b in range(14)]
    samples = [
        Checker(numpy, "promotion", "spec", Session(numpy, load(None), seed=seed), share=0.25).sample(table)
        for seed in range(4)
    ]
    assert sorted(row for sample in samples for row in sample) == table
    assert all(len(sample) == len(table) // 4 for sample in samples)
    assert Checker(numpy, "promotion", "spec", Session(numpy, load(None))).sample(table) == table


class XdistOptions:
    """The options pytest-xdist's scheduler reads, for ``-n 2`` with the given ``--dist``."""

    def __init__(self, dist: str):
        self.values = {"dist": dist, "tx": ["2*popen"]}
        self.option = type("Option", (), {"loadscopereorder": True})()

    def getoption(self, name):
        return self.values[name]

    getvalue = getoption


def test_a_device_param_runs_on_the_worker_of_its_twin_without_a_device():
    pytest.importorskip("xdist")
    from compat.harness.supervision import make_scheduler

    spec = "compat/specs/promotion.py::test_binary_operation_on_every_pair_of_dtypes"
    scope = make_scheduler(XdistOptions("load"), None, Path("unused"))._split_scope
    assert scope(f"{spec}[jax[x64]@cpu:1-add]") == scope(f"{spec}[jax[x64]-add]")
    assert scope(f"{spec}[tensorflow@APU:0-add]") == scope(f"{spec}[tensorflow-add]")
    assert scope(f"{spec}[tensorflow~function@APU:0-add]") == scope(f"{spec}[tensorflow-add]")
    assert scope(f"{spec}[jax[x64]-add]") != scope(f"{spec}[jax[x64]-multiply]")
    assert scope(f"{spec}[torch@apu:0!copy_truncate-add]") != scope(
        f"{spec}[torch-add]"
    )  # self-test faults spread
    assert (
        make_scheduler(XdistOptions("loadfile"), None, Path("unused")) is None
    )  # another --dist mode stands


def test_the_tests_of_an_xdist_group_go_to_one_worker_and_slow_tests_go_first(tmp_path):
    pytest.importorskip("xdist")
    from compat.harness.supervision import make_scheduler, write_hints

    grouped, slow = pytest.mark.xdist_group("casualties").mark, pytest.mark.slow.mark
    module = "tests/test_casualties.py::"
    marks = {"test_a[xdist]": [grouped], "test_b": [grouped], "test_c": [], "test_d": [slow], "test_e": []}
    items = [
        type(
            "Item",
            (),
            {
                "nodeid": module + name,
                "iter_markers": lambda self, name, marks=marks: [m for m in marks if m.name == name],
                "get_closest_marker": lambda self, name, marks=marks: next(
                    (m for m in marks if m.name == name), None
                ),
            },
        )()
        for name, marks in marks.items()
    ]
    write_hints(tmp_path, "gw0", items)  # what a worker tells the controller when it has collected
    scheduler = make_scheduler(XdistOptions("load"), None, tmp_path)
    scope = scheduler._split_scope
    assert scope(module + "test_a[xdist]") == scope(module + "test_b")
    assert len({scope(module + "test_a[xdist]"), scope(module + "test_c"), scope(module + "test_d")}) == 3

    workers = [Worker("gw0"), Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, [item.nodeid for item in items])
    scheduler.schedule()
    # the slow test first, though xdist hands out the scopes of more tests (the group) first
    assert scheduler.collection[workers[0].sent[0]] == module + "test_d", [
        scheduler.collection[i] for i in workers[0].sent
    ]


class Worker:
    """What the scheduler touches of an xdist worker controller."""

    def __init__(self, name: str):
        self.gateway = type("Gateway", (), {"id": name})()
        self.shutting_down = False
        self.sent: list[int] = []

    def send_runtest_some(self, indices):
        self.sent += indices

    def shutdown(self):
        self.shutting_down = True


def test_two_workers_dying_at_once_leave_the_run_to_their_replacements(tmp_path):
    """When both workers die, the first replacement that finishes collecting must not hand
    work to the second one before that has collected (xdist's KeyError took the run down)."""
    pytest.importorskip("xdist")
    from compat.harness.supervision import make_scheduler

    scheduler = make_scheduler(XdistOptions("load"), None, tmp_path)
    collection = [f"compat/specs/promotion.py::test_{name}[numpy]" for name in "abcdef"]
    first, second = Worker("gw0"), Worker("gw1")
    for worker in (first, second):
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    replacements = [Worker("gw2"), Worker("gw3")]
    for dead, replacement in zip((first, second), replacements):
        assert scheduler.remove_node(dead) is not None  # each died with work pending
        scheduler.add_node(replacement)
    scheduler.add_node_collection(replacements[0], collection)
    scheduler.schedule()  # gw3 has not collected yet
    assert replacements[0].sent and not replacements[1].sent
    scheduler.add_node_collection(replacements[1], collection)
    scheduler.schedule()
    for _ in range(len(collection)):  # each replacement runs what it was sent
        for worker in replacements:
            while worker.sent:
                scheduler.mark_test_complete(worker, worker.sent.pop(0))
    assert not scheduler.workqueue and not scheduler.has_pending  # every spec ran again


def test_a_plugin_may_declare_a_smaller_share_for_a_device_whose_kernels_are_the_reference_devices():
    from compat.adapters.numpy import NumpyAdapter
    from compat.devices.plugins import JaxCpuDevices
    from compat.harness.plan import DEVICE_EXAMPLES, REFERENCE_KERNELS_EXAMPLES, Plan

    class WithVirtualDevices(NumpyAdapter):  # the plan reads only the adapter's plugin
        plugin = JaxCpuDevices()

    adapter, plan = WithVirtualDevices(), Plan(mode_share=0.1)
    assert plan.share(adapter, "cpu:1", "eager") == REFERENCE_KERNELS_EXAMPLES < DEVICE_EXAMPLES
    assert plan.share(adapter, "gpu:0", "eager") == DEVICE_EXAMPLES  # a device it does not ship
    assert (
        Plan(device_share=1.0).share(adapter, "cpu:1", "eager") == 1.0
    )  # --device-examples / --only-devices win
    assert plan.share(adapter, None, "eager") == 1.0 and plan.share(adapter, None, "jit") == 0.1


def test_a_row_checks_at_least_three_examples_of_a_spec_over_all_its_params():
    """The least a device or mode row checks is per spec, shared out over its params (one per
    operation, say), so a spec with many params is not checked three times per param."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from compat.harness.xp import examples_share

    @settings(max_examples=40)
    @given(st.integers())
    def spec(x):
        pass

    def examples(share, params):
        with examples_share(spec, share, params):
            return spec._hypothesis_internal_use_settings.max_examples

    assert examples(0.05, 1) == 3  # a spec without params: the least
    assert examples(0.05, 3) == 2  # three params: the share, 2 each (more than the least, 1 each)
    assert examples(0.05, 15) == 2  # the share itself: 40 * 0.05
    assert examples(0.01, 15) == 1  # never none
    assert examples(0.2, 1) == 8
    assert spec._hypothesis_internal_use_settings.max_examples == 40  # restored after the call
