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
from tests.helpers import Jobs, output, reproducer_lines, run_pytest, run_reproducer, json_of


@dataclass(frozen=True)
class Plant:
    adapter: str  # class in compat.adapters.broken
    name: str  # its adapter name
    spec: str  # spec file
    select: str  # -k expression
    op: str
    kind: str
    extra: tuple[str, ...] = ()


PLANTS = {
    "int8_uint8": Plant("Int8Uint8PromotesToInt8", "broken_int8_uint8", "compat/specs/promotion.py",
                        "binary_operation_on_every_pair_of_dtypes and add", "add", "dtype"),
    # int32 with a Python float is 1 draw in ~56 of the Hypothesis spec, and a row of the
    # table beside it (test_python_scalar_with_every_dtype): the table makes it certain
    "int32_pyfloat": Plant("Int32PlusFloatStaysInt32", "broken_int32_pyfloat", "compat/specs/promotion.py",
                           "python_scalar and add", "add", "dtype", ("--hypothesis-seed", "0")),
    "broadcast": Plant("AddBroadcastsWrongly", "broken_broadcast", "compat/specs/broadcasting.py",
                       "elementwise_operands_broadcast and add", "add", "value", ("--hypothesis-seed", "0")),
    "float32_value": Plant("Float32SlightlyOff", "broken_float32_value", "compat/specs/promotion.py",
                           "binary_operation_on_every_pair_of_dtypes and add", "add", "value"),
}
SEEDS = (1, 2)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("meta")
    table = {}
    for key, plant in PLANTS.items():
        for mode in ("report", "strict"):
            args = [plant.spec, "-q", "--adapter", f"compat.adapters.broken:{plant.adapter}",
                    "--compat-mode", mode, "-k", plant.select, *plant.extra]
            # strict runs as a user would: with the shipped registry, which must not hide these bugs
            table[(key, mode)] = (lambda args=args, where=tmp / f"{key}-{mode}", shipped=mode == "strict":
                                  (where, run_pytest(args, where, shipped_registry=shipped)))
    for seed in SEEDS:
        args = ["compat/specs/promotion.py", "compat/specs/broadcasting.py", "-q", "--backends", "numpy",
                "--compat-mode", "report", "--hypothesis-seed", str(seed)]
        table[("numpy", seed)] = (lambda args=args, where=tmp / f"numpy-{seed}": (where, run_pytest(args, where)))
    started = Jobs(table)
    yield started
    started.close()


def report_run(jobs, key):
    where, process = jobs[(key, "report")]
    assert process.returncode == 0, output(process)
    loaded = records.load(where / "results")
    assert loaded.problems == []
    (run,) = loaded.runs.values()
    return run, process


def divergences(run, plant: Plant, kind: str | None = None) -> list[dict]:
    return [r for r in json_of(run.divergences)
            if r["backend"]["name"] == plant.name and r["op"] == plant.op and r["kind"] == (kind or plant.kind)]


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
    run, _ = report_run(jobs, "int8_uint8")
    want = str(np.result_type(np.int8, np.uint8))  # int16
    found = divergences(run, plant)
    assert {r["signature"]["inputs"] for r in found} == {"int8,uint8", "uint8,int8"}, json_of(run.divergences)
    for record in found:
        assert (record["signature"]["expected"], record["signature"]["actual"]) == (want, "int8")
        assert (record["expected"]["dtype"], record["actual"]["dtype"]) == (want, "int8")
        assert record["status"] == "new" and record["family"] == "promotion"
    assert {r["kind"] for r in json_of(run.divergences)} == {"dtype"}  # the values fit int8: nothing else differs

    reference, backend = result_lines(run_reproducer(found[0], tmp_path), plant)
    assert f": {want} " in reference and ": int8" in backend
    inputs = inputs_of(found[0])
    assert numbers(reference) == numbers(backend) == list(np.add(inputs["x0"], inputs["x1"]))


# -- (b) int32 array + Python float stays int32 --------------------------------------

def test_int32_with_python_float_kept_int32_is_a_dtype_divergence(jobs, tmp_path):
    plant = PLANTS["int32_pyfloat"]
    run, _ = report_run(jobs, "int32_pyfloat")
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
    run, _ = report_run(jobs, "broadcast")
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
    run, _ = report_run(jobs, "float32_value")
    found = divergences(run, plant)
    pairs = {r["signature"]["inputs"] for r in found}
    # every pair of dtypes that NumPy promotes to float32 (and only those) shows it
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
             "float64", "complex64", "complex128"]
    to_float32 = {f"{a},{b}" for a in names for b in names if np.result_type(np.dtype(a), np.dtype(b)) == np.float32}
    assert to_float32 <= pairs and "float32,float32" in pairs, pairs
    assert {r["kind"] for r in json_of(run.divergences)} == {"value"}
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
    _, process = jobs[(key, "strict")]
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
