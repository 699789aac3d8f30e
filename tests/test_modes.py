"""Execution modes: what a compiled call traces, and that a rule broken only when a call
is traced (compat.adapters.broken:TracedScalarsAreStrong) is caught on the mode's row,
against NumPy and against the same backend's eager result, and nowhere else."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.adapters.base import Slot, traced_arguments
from compat.results import records, store
from tests.helpers import divergence_record, output, run_pytest, run_reproducer

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_operands_are_traced_and_everything_else_stays_fixed():
    index = (slice(None, None, -1), 1, np.array([0, 1]))
    converted = ["X", ("slice", 1, "INDEX")]  # stand-ins for what an adapter converted
    operands, rebuild = traced_arguments("getitem", (X, index), [converted[0], (index[0], index[1], "INDEX")])
    assert operands == ["X", "INDEX"]  # the array and the index array; the slice and the integer stay
    assert rebuild(["x", "i"]) == ["x", (index[0], 1, "i")]

    operands, rebuild = traced_arguments("add", (X, 2.5), ["X", 2.5])
    assert operands == ["X", 2.5]  # a Python number passed as an operand is traced
    assert rebuild(["x", "s"]) == ["x", "s"]

    operands, _ = traced_arguments("sum", (X,), ["X"])
    assert operands == ["X"] and not any(type(o) is Slot for o in operands)


def test_a_compiled_call_gives_the_eager_result_and_a_boolean_mask_needs_static_shapes():
    jax = load_adapter("jax[x64]") if _installed("jax") else pytest.skip("jax is not installed")
    eager, jitted = (jax.call("add", (X, 2.5), {}, None, mode) for mode in ("eager", "jit"))
    assert jitted.dtype == eager.dtype == "float32" and np.array_equal(jitted.values, eager.values)
    mask = jax.call("getitem", (X, X > 2), {}, None, "jit")
    assert mask.raised and mask.error_category == "index", mask.describe()  # JAX: shapes must be static under jit


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_a_rule_broken_only_when_traced_is_caught_on_the_mode_row(tmp_path):
    process = run_pytest(["compat/specs/promotion.py", "-q", "-k", "python_scalar_with_every_dtype and add",
                          "--backends", "numpy", "--adapter", "compat.adapters.broken:TracedScalarsAreStrong",
                          "--modes", "default", "--mode-examples", "1", "--compat-mode", "report"], tmp_path)
    assert process.returncode == 0, output(process)
    loaded = records.load(tmp_path / "results")
    divergences = [r for run in loaded.runs.values() for r in run.divergences]
    rows = {r.where for run in loaded.runs.values() for r in run.checks}
    assert {"numpy", "broken_traced_scalars", "broken_traced_scalars~traced"} <= rows, rows
    assert {r.where for r in divergences} == {"broken_traced_scalars~traced"}, output(process)
    assert {r.reference for r in divergences} == {"numpy", "mode:eager"}
    assert all(r.status == "new" for r in divergences)
    # float32 with a Python float: float32 eager (and in NumPy), float64 traced
    against_eager = next(r for r in divergences if r.reference == "mode:eager" and r.kind == "dtype"
                         and r.signature["expected"] == "float32")
    assert against_eager.signature["actual"] == "float64"
    shown = run_reproducer(against_eager.to_json(), tmp_path)
    eager_line, traced_line = (line for line in shown.splitlines() if line.startswith("broken_traced_scalars"))
    assert "eager:" in eager_line and "float32" in eager_line, shown
    assert "traced:" in traced_line and "float64" in traced_line, shown


def test_a_shape_stays_static():
    operands, rebuild = traced_arguments("broadcast_to", (X, (4, 2, 3)), ["X", (4, 2, 3)])
    assert operands == ["X"] and rebuild(["x"]) == ["x", (4, 2, 3)]


def test_a_mode_is_its_own_row_in_records_and_in_the_store(tmp_path):
    record = divergence_record()
    record["backend"] = {**record["backend"], "config": {"mode": "jit"}}
    typed = records.from_json(record)
    assert typed.where == "numpy~jit" and typed.key.backend_id == "numpy~jit" and typed.against_device is False
    run_directory = tmp_path / "results" / "run-1"
    run_directory.mkdir(parents=True)
    (run_directory / "records-main.jsonl").write_text(json.dumps(record) + "\n")
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    rows = sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT DISTINCT backend_id FROM records").fetchall()
    assert rows == [("numpy~jit",)]
