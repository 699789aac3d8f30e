"""compat's patches of framework internals (compat/adapters/patches.py): each is undone after
the block that needs it, --no-compat-patches leaves the speed patches out and run.json says
which a run had, and the speed patches change no record: a sample of every family, run with
and without them, records the same divergences and checks."""

from __future__ import annotations

import json
import types

import pytest

from compat.adapters import patches
from compat.results import records
from tests.helpers import Jobs, json_of, output, run_pytest

pytestmark = [pytest.mark.xdist_group("patches"), pytest.mark.slow]  # one worker: its fixture runs once

FAMILIES = ("promotion", "broadcasting", "indexing", "numerics", "gradients", "placement")
# one spec of each family on what the speed patches touch: torch.compile's row, and JAX's jit row
# (which runs eager JAX too, as its reference); placement on JAX's virtual second CPU. Promotion
# on JAX only: torch.compile's dtype tables take 15-30 s each (a compilation per dtype pair), and
# broadcasting too (a compilation per shape pair: half of this sample's time). JAX's eager rows of
# promotion and indexing diverge from NumPy (the jit rows agree with them)
SAMPLE = {
    "promotion": [
        "test_binary_operation_on_every_pair_of_dtypes[jax[x64]-multiply]",
        "test_binary_operation_on_every_pair_of_dtypes[jax[x64]~jit-multiply]",
    ],
    "broadcasting": ["test_elementwise_operands_broadcast[jax[x64]~jit-second lower-add]"],
    "indexing": ["test_basic_indexing[{}]", "test_basic_indexing[jax[x64]]"],
    "numerics": ["test_arithmetic_rounds_to_nearest[{}-multiply]"],
    "gradients": ["test_gradient_of_random_programs[{}-float32]"],
    "placement": [
        "test_computed_and_compiled_results_stay_on_the_device[torch~compile]",
        "test_computed_and_compiled_results_stay_on_the_device[jax[x64]@cpu:1]",
    ],
}
ROWS = ("torch~compile", "jax[x64]~jit")


def sample() -> list[str]:
    return [
        f"compat/specs/{family}.py::{spec.format(row)}"
        for family, specs in SAMPLE.items()
        for spec in specs
        for row in (ROWS if "{}" in spec else [None])
    ]


def test_a_patch_is_undone_after_its_block(monkeypatch):
    owner = types.SimpleNamespace(value=1)
    with patches.replaced(owner, "value", 2):
        assert owner.value == 2
    assert owner.value == 1
    with patches.replaced(owner, "absent", 2):  # a framework version without it is left alone
        assert not hasattr(owner, "absent")


def test_speed_patches_are_switched_off_by_the_environment(monkeypatch):
    monkeypatch.setenv(patches.SWITCH, "off")
    settings = [name for name, patch in patches.PATCHES.items() if not patch.speed]
    assert patches.in_force() == settings
    assert isinstance(patches.applied("jax-one-mlir-context"), type(patches.contextlib.nullcontext()))
    monkeypatch.delenv(patches.SWITCH)
    assert patches.in_force() == list(patches.PATCHES)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The sample with and without the speed patches, two child runs side by side."""
    tmp = tmp_path_factory.mktemp("patches")
    args = [
        *sample(),
        "-q",
        "--backends",
        "torch,jax[x64]",
        "--modes",
        "jax:jit,torch:compile",
        "--device",
        "jax:cpu:1",
        "--compat-mode",
        "report",
    ]
    jobs = Jobs(
        {
            on: lambda on=on, where=tmp / on: (
                where,
                run_pytest([*args] if on == "on" else [*args, "--no-compat-patches"], where),
            )
            for on in ("on", "off")
        }
    )
    yield {on: jobs[on] for on in ("on", "off")}
    jobs.close()


def loaded(where, process):
    assert process.returncode == 0, output(process)
    found = records.load(where / "results")
    assert found.problems == []
    (run,) = found.runs.values()
    return run


def comparable(typed: list) -> list[str]:
    """Records as JSON, without what names the run (its id, the worker)."""
    return sorted(
        json.dumps({k: v for k, v in r.items() if k not in ("run_id", "worker")}, sort_keys=True)
        for r in json_of(typed)
    )


def test_run_json_lists_the_patches_a_run_had(runs):
    assert loaded(*runs["on"]).meta["patches"] == list(patches.PATCHES)
    assert loaded(*runs["off"]).meta["patches"] == [n for n, p in patches.PATCHES.items() if not p.speed]


def test_speed_patches_change_no_record(runs):
    on, off = loaded(*runs["on"]), loaded(*runs["off"])
    assert {r["family"] for r in json_of(on.checks)} == set(FAMILIES)
    assert on.divergences, "a sample without divergences would prove little"
    assert comparable(on.checks) == comparable(off.checks)
    assert comparable(on.divergences) == comparable(off.divergences)
