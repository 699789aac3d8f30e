"""Meta-tests: the harness must catch deliberately broken adapters (compat/adapters/broken/)
registered through the public path ``--adapter compat.adapters.broken:Name``, record the
divergence with the right kind and op, give a reproducer that shows it, and fail the
spec in strict mode. And NumPy checked against itself must give no divergence at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

from compat.results import records
from tests.helpers import Jobs, json_of, output, reproducer_lines, run_pytest, run_reproducer, side_by_side

pytestmark = [
    pytest.mark.xdist_group("meta-broken-adapters"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once


@dataclass(frozen=True)
class Plant:
    adapter: str  # class in compat.adapters.broken
    name: str  # its adapter name
    select: str  # -k expression of the specs that must catch it
    op: str
    kind: str


SPECS = ["compat/specs/promotion.py", "compat/specs/broadcasting.py"]
PLANTS = {
    "int8_uint8": Plant(
        "Int8Uint8PromotesToInt8",
        "broken_int8_uint8",
        "binary_operation_on_every_pair_of_dtypes and add",
        "add",
        "dtype",
    ),
    # int32 with a Python float is 1 draw in ~56 of the Hypothesis spec, and a row of the
    # table beside it (test_python_scalar_with_every_dtype): the table makes it certain
    "int32_pyfloat": Plant(
        "Int32PlusFloatStaysInt32", "broken_int32_pyfloat", "python_scalar and add", "add", "dtype"
    ),
    "broadcast": Plant(
        "AddBroadcastsWrongly", "broken_broadcast", "elementwise_operands_broadcast and add", "add", "value"
    ),
    "float32_value": Plant(
        "Float32SlightlyOff",
        "broken_float32_value",
        "binary_operation_on_every_pair_of_dtypes and add",
        "add",
        "value",
    ),
}
SEEDS = (1, 2)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """The broken adapters side by side (one child run, not one each), each on its specs:
    in report mode (records), and in strict mode as a user runs it, with the shipped
    registry, which must not hide these bugs. And NumPy alone, under two seeds."""
    tmp = tmp_path_factory.mktemp("meta")
    plants = [
        *SPECS,
        "-q",
        "--hypothesis-seed",
        "0",
        *side_by_side({plant.adapter: (plant.name, plant.select) for plant in PLANTS.values()}),
    ]
    table = {
        mode: (
            lambda mode=mode, where=tmp / mode: (
                where,
                run_pytest([*plants, "--compat-mode", mode], where, shipped_registry=mode == "strict"),
            )
        )
        for mode in ("report", "strict")
    }
    for seed in SEEDS:
        args = [
            *SPECS,
            "-q",
            "--backends",
            "numpy",
            "--compat-mode",
            "report",
            "--hypothesis-seed",
            str(seed),
        ]
        table[("numpy", seed)] = lambda args=args, where=tmp / f"numpy-{seed}": (
            where,
            run_pytest(args, where),
        )
    started = Jobs(table)
    yield started
    started.close()


def report_run(jobs):
    where, process = jobs["report"]
    assert process.returncode == 0, output(process)
    loaded = records.load(where / "results")
    assert loaded.problems == []
    (run,) = loaded.runs.values()
    return run, process


def divergences(run, plant: Plant, kind: str | None = None) -> list[dict]:
    return [r for r in of_plant(run, plant) if r["op"] == plant.op and r["kind"] == (kind or plant.kind)]


def of_plant(run, plant: Plant) -> list[dict]:
    return [r for r in json_of(run.divergences) if r["backend"]["name"] == plant.name]


def result_lines(stdout: str, plant: Plant) -> tuple[str, str]:
    """The reproducer's NumPy line and the broken adapter's line."""
    return reproducer_lines(stdout, plant.name)


def numbers(line: str) -> list[float]:
    """The values printed after the dtype on a reproducer line."""
    shown = line.split(": ", 1)[1].split(" ", 1)[1]
    assert "..." not in shown, f"example too large to compare all values: {line}"
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+", shown)]


def inputs_of(record: dict) -> dict[str, np.ndarray]:
    """The minimal example's input arrays, rebuilt from their recorded source."""
    namespace = {"np": np}
    if any("ml_dtypes" in source for source in record["example"]["inputs"].values()):
        namespace["ml_dtypes"] = pytest.importorskip("ml_dtypes")
    return {name: eval(source, namespace) for name, source in record["example"]["inputs"].items()}


# -- (a) int8 + uint8 promoted to int8 ---------------------------------------------------


def test_int8_with_uint8_promoted_to_int8_is_a_dtype_divergence(jobs, tmp_path):
    plant = PLANTS["int8_uint8"]
    run, _ = report_run(jobs)
    want = str(np.result_type(np.int8, np.uint8))  # int16
    found = divergences(run, plant)
    assert {r["signature"]["inputs"] for r in found} == {"int8,uint8", "uint8,int8"}, json_of(run.divergences)
    for record in found:
        assert (record["signature"]["expected"], record["signature"]["actual"]) == (want, "int8")
        assert (record["expected"]["dtype"], record["actual"]["dtype"]) == (want, "int8")
        assert record["status"] == "new" and record["family"] == "promotion"
    assert {r["kind"] for r in of_plant(run, plant)} == {"dtype"}  # the values fit int8: nothing else differs

    reference, backend = result_lines(run_reproducer(found[0], tmp_path), plant)
    assert f": {want} " in reference and ": int8" in backend
    inputs = inputs_of(found[0])
    assert numbers(reference) == numbers(backend) == list(np.add(inputs["x0"], inputs["x1"]))


# -- (b) int32 array + Python float stays int32 --------------------------------------


def test_int32_with_python_float_kept_int32_is_a_dtype_divergence(jobs, tmp_path):
    plant = PLANTS["int32_pyfloat"]
    run, _ = report_run(jobs)
    found = divergences(run, plant)
    assert found, json_of(run.divergences)
    want = str(np.result_type(np.int32, 1.5))  # NEP 50: a Python float is weak, but int32 + float is float64
    for record in found:
        assert set(record["signature"]["inputs"].split(",")) == {"int32", "py:float"}
        assert (record["signature"]["expected"], record["signature"]["actual"]) == (want, "int32")
    record = min(found, key=lambda r: len(r["reproducer"]))
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert f": {want} " in reference and ": int32" in backend


# -- (c) a size-1 axis broadcast wrongly -------------------------------------------------


def test_wrong_broadcast_is_a_value_divergence(jobs, tmp_path):
    plant = PLANTS["broadcast"]
    run, _ = report_run(jobs)
    found = divergences(run, plant)
    assert found, json_of(run.divergences)
    assert not divergences(run, plant, "shape")  # the corruption keeps the shape
    assert {r["family"] for r in found} == {"broadcasting"}
    record = min(found, key=lambda r: len(r["reproducer"]))
    inputs = inputs_of(record)
    assert len({a.shape for a in inputs.values()}) == 2  # operands of different shapes
    truth = np.add(*inputs.values())
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert numbers(reference) == list(truth.reshape(-1))
    assert numbers(backend) != numbers(reference)
    assert sorted(numbers(backend)) == sorted(numbers(reference))  # rolled: same values, wrong places
    assert f"float32{list(truth.shape)}" in backend


# -- (d) float32 values slightly off -----------------------------------------------------


def test_slightly_wrong_float32_values_are_a_value_divergence(jobs, tmp_path):
    plant = PLANTS["float32_value"]
    run, _ = report_run(jobs)
    found = divergences(run, plant)
    pairs = {r["signature"]["inputs"] for r in found}
    # every pair of dtypes that NumPy promotes to float32 (and only those) shows it
    names = [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
    to_float32 = {
        f"{a},{b}" for a in names for b in names if np.result_type(np.dtype(a), np.dtype(b)) == np.float32
    }
    assert to_float32 <= pairs and "float32,float32" in pairs, pairs
    assert {r["kind"] for r in of_plant(run, plant)} == {"value"}
    for record in found:
        assert "ULP" in record["detail"] and "max abs error" in record["detail"]
    record = next(r for r in found if r["signature"]["inputs"] == "float32,float32")
    inputs = inputs_of(record)
    truth = np.add(inputs["x0"], inputs["x1"])
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert ": float32 " in reference and ": float32" in backend
    assert numbers(reference) == list(truth)
    assert numbers(backend) == pytest.approx(list(truth * (1 + 1e-4)), rel=1e-6)
    assert numbers(backend) != numbers(reference)


# -- strict mode fails the spec ----------------------------------------------------------


@pytest.mark.parametrize("key", list(PLANTS))
def test_strict_mode_fails_the_spec_naming_the_divergence(jobs, key):
    plant = PLANTS[key]
    _, process = jobs["strict"]
    text = output(process)
    assert process.returncode == 1, text
    assert "new divergence(s) against numpy" in process.stdout, text
    assert re.search(rf"{plant.name} \w+ \[{plant.kind}\] {plant.op}\(", process.stdout), text
    assert "Traceback" not in text


# -- NumPy against NumPy -----------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_against_numpy_has_no_divergence(jobs, seed):
    where, process = jobs[("numpy", seed)]
    text = output(process)
    assert process.returncode == 0, text
    loaded = records.load(where / "results")
    assert loaded.problems == []
    (run,) = loaded.runs.values()
    assert json_of(run.divergences) == [], [r["detail"] for r in json_of(run.divergences)]
    assert str(run.meta["hypothesis"]["seed"]) == str(seed)
    families = {r["family"] for r in json_of(run.checks)}
    assert families == {"promotion", "broadcasting"}
    assert sum(sum(r["cases"].values()) for r in json_of(run.checks)) > 1000
