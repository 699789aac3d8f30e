"""Execution modes: what a compiled call traces, and that a rule broken only when a call
is traced (compat.adapters.broken:TracedScalarsAreStrong) is caught on the mode's row,
against NumPy and against the same backend's eager result, and nowhere else."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.adapters.tracing import traced_call
from compat.results import records, store
from tests.helpers import divergence_record, output, run, run_pytest, run_reproducer

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def arguments(*args, **kwargs):  # the fn of a traced call: what it was called with
    return args, kwargs


def test_operands_are_traced_and_everything_else_stays_fixed():
    index = (slice(None, None, -1), 1, np.array([0, 1]))
    converted = ["X", (index[0], index[1], "INDEX")]  # stand-ins for what an adapter converted
    operands, traced = traced_call(arguments, "getitem", (X, index), converted, {})
    assert operands == ["X", "INDEX"]  # the array and the index array; the slice and the integer stay
    assert traced("x", "i") == (("x", (index[0], 1, "i")), {})

    operands, traced = traced_call(arguments, "add", (X, 2.5), ["X", 2.5], {})
    assert operands == ["X", 2.5]  # a Python number passed as an operand is traced
    assert traced("x", "s") == (("x", "s"), {})

    operands, traced = traced_call(arguments, "sum", (X, 1), ["X", 1], {"keepdims": True, "dtype": "DTYPE"})
    assert operands == ["X"]  # the axis and the keywords stay
    assert traced("x") == (("x", 1), {"keepdims": True, "dtype": "DTYPE"})


def test_a_compiled_call_gives_the_eager_result_and_a_boolean_mask_needs_static_shapes():
    jax = load_adapter("jax[x64]") if _installed("jax") else pytest.skip("jax is not installed")
    eager, jitted = (jax.call("add", (X, 2.5), {}, None, mode) for mode in ("eager", "jit"))
    assert jitted.dtype == eager.dtype == "float32" and np.array_equal(jitted.values, eager.values)
    mask = jax.call("getitem", (X, X > 2), {}, None, "jit")
    assert mask.raised and mask.error_category == "index", (
        mask.describe()
    )  # JAX: shapes must be static under jit


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def test_a_rule_broken_only_when_traced_is_caught_on_the_mode_row(tmp_path):
    process = run_pytest(
        [
            "compat/specs/promotion.py",
            "-q",
            "-k",
            "python_scalar_with_every_dtype and add",
            "--backends",
            "numpy",
            "--adapter",
            "compat.adapters.broken:TracedScalarsAreStrong",
            "--modes",
            "default",
            "--mode-examples",
            "1",
            "--compat-mode",
            "report",
        ],
        tmp_path,
    )
    assert process.returncode == 0, output(process)
    loaded = records.load(tmp_path / "results")
    divergences = [r for run in loaded.runs.values() for r in run.divergences]
    rows = {r.where for run in loaded.runs.values() for r in run.checks}
    assert {"numpy", "broken_traced_scalars", "broken_traced_scalars~traced"} <= rows, rows
    assert {r.where for r in divergences} == {"broken_traced_scalars~traced"}, output(process)
    assert {r.reference for r in divergences} == {"numpy", "mode:eager"}
    assert all(r.status == "new" for r in divergences)
    # float32 with a Python float: float32 eager (and in NumPy), float64 traced
    against_eager = next(
        r
        for r in divergences
        if r.reference == "mode:eager" and r.kind == "dtype" and r.signature["expected"] == "float32"
    )
    assert against_eager.signature["actual"] == "float64"
    shown = run_reproducer(against_eager.to_json(), tmp_path)
    eager_line, traced_line = (
        line for line in shown.splitlines() if line.startswith("broken_traced_scalars")
    )
    assert "eager:" in eager_line and "float32" in eager_line, shown
    assert "traced:" in traced_line and "float64" in traced_line, shown


def test_a_shape_stays_static():
    operands, traced = traced_call(arguments, "broadcast_to", (X, (4, 2, 3)), ["X", (4, 2, 3)], {})
    assert operands == ["X"] and traced("x") == (("x", (4, 2, 3)), {})


def test_a_mode_is_its_own_row_in_records_and_in_the_store(tmp_path):
    record = divergence_record()
    record["backend"] = {**record["backend"], "config": {"mode": "jit"}}
    typed = records.from_json(record)
    assert (
        typed.where == "numpy~jit" and typed.key.backend_id == "numpy~jit" and typed.against_device is False
    )
    run_directory = tmp_path / "results" / "run-1"
    run_directory.mkdir(parents=True)
    (run_directory / "records-main.jsonl").write_text(json.dumps(record) + "\n")
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    rows = (
        sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT DISTINCT backend_id FROM records").fetchall()
    )
    assert rows == [("numpy~jit",)]


HISTORY = """
import sys
from compat.adapters import load_adapter
for backend in sys.argv[1:]:
    adapter = load_adapter(backend)
    for mode in adapter.DEFAULT_MODES:
        first = adapter.call("asarray", (2**31,), {}, None, mode).describe()
        adapter.call("asarray", (5,), {}, None, mode)  # another value for the same input, as a spec draws
        print(backend, mode, first == adapter.call("asarray", (2**31,), {}, None, mode).describe(), first)
"""


def test_a_compiled_call_gives_what_it_gives_whatever_ran_before(tmp_path):
    """A mode's result may not depend on the calls before it in the process (torch.compile
    remembers the values an input took, per code location, and traces it otherwise once it
    has changed): a divergence shown in one run and not in the next would be noise."""
    backends = [b for b in ("jax[x64]", "tensorflow", "torch") if _installed(b.split("[")[0])]
    if not backends:
        pytest.skip("no backend with execution modes is installed")
    process = run(["-c", HISTORY, *backends], tmp_path)
    lines = process.stdout.splitlines()
    assert process.returncode == 0 and {line.split()[0] for line in lines} == set(backends), output(process)
    assert all(line.split()[2] == "True" for line in lines), output(process)


def test_a_traced_call_raises_what_eager_raises_not_the_tracers_wrapper():
    """tf.function's autograph wraps errors in StagingError, torch.compile in its own
    exceptions: the category must be the one of the error the call itself raised."""
    checked = 0
    for backend, modes in (("tensorflow", ("function", "xla")), ("torch", ("compile",))):
        if not _installed(backend):
            continue
        adapter = load_adapter(backend)
        for index in (
            (0.0,),
            (slice(None), slice(None, None, -1)),
        ):  # a float index; a negative step (torch refuses it)
            eager = adapter.call("getitem", (X, index), {}, None, "eager")
            for mode in modes:
                traced = adapter.call("getitem", (X, index), {}, None, mode)
                assert traced.error_category == eager.error_category, (
                    backend,
                    mode,
                    index,
                    traced.describe(),
                    eager.describe(),
                )
                checked += 1
    if not checked:
        pytest.skip("neither tensorflow nor torch is installed")


def test_a_lazy_call_that_fails_leaves_nothing_behind_for_the_next_one():
    torch = load_adapter("torch") if _installed("torch") else pytest.skip("torch is not installed")
    failed = torch.call("true_divide", (2**63, np.array(0, dtype=np.int32)), {}, None, "lazy")
    assert failed.raised, (
        failed.describe()
    )  # the TorchScript interpreter cannot run it (a divergence of its own)
    flags = np.array([True, False])
    after = torch.call("greater", (flags, flags), {}, None, "lazy")
    assert not after.raised and after.values.tolist() == [False, False], after.describe()


def test_a_lazy_result_computed_from_a_python_number_on_the_left_is_read_as_computed():
    """2 << x on the lazy device comes back wrapped for functionalization; read through the
    wrapper, its .numpy() gave the operand's (or an unset) buffer instead of the result."""
    torch = load_adapter("torch") if _installed("torch") else pytest.skip("torch is not installed")
    x = np.array([0, 1, 6, 3], dtype=np.int32)
    for op, expected in (("__rlshift__", 2 << x), ("__rsub__", 2 - x)):
        lazy = torch.call(op, (x, 2), {}, None, "lazy")
        assert not lazy.raised and lazy.values.tolist() == expected.tolist(), (op, lazy.describe())


def test_a_compiled_gradient_closes_over_its_constants_as_backend_arrays():
    """A program's constants are made before the call is traced (torch.compile cannot trace
    NumPy conversions), and on the lazy device for a lazy call."""
    from compat.core.programs import Node, Program

    torch = load_adapter("torch") if _installed("torch") else pytest.skip("torch is not installed")
    x = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    weights = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    program = Program(
        Node("sum", (Node("multiply", (Node("tanh", (Node("input"),)), Node("const"))),)), (x,), (weights,)
    )
    eager = torch.call("grad", (program.bind(torch), x), {}, None, "eager")
    for mode in ("compile", "lazy"):
        traced = torch.call("grad", (program.bind(torch), x), {}, None, mode)
        assert not traced.raised, (mode, traced.describe())
        np.testing.assert_allclose(traced.parts[0].values, eager.parts[0].values, rtol=1e-6)


def test_a_mode_row_on_a_plugin_device_is_reproduced_on_both_devices_in_that_mode(tmp_path):
    """The reference device side of a mode row runs in the same mode (what a mode changes is
    the comparison with eager's), and the reproducer makes the plug-in device exist."""
    from compat.core.case import Case
    from compat.harness.reproducer import OnDevice, reproducer

    tf = (
        load_adapter("tensorflow") if _installed("tensorflow") else pytest.skip("tensorflow is not installed")
    )
    case = Case("true_divide", (True, np.ones(9, dtype=np.int16)))
    snippet = reproducer(case, OnDevice(tf, "CPU:0"), tf, "APU:0", "function")
    shown = run_reproducer({"reproducer": snippet}, tmp_path)
    on_cpu, on_apu = (line for line in shown.splitlines() if line.startswith("tensorflow"))
    assert on_cpu.startswith("tensorflow 2") and "function on CPU:0:" in on_cpu and "float32[9]" in on_cpu, (
        shown
    )
    assert on_apu.split("function on APU:0: ", 1)[1] == on_cpu.split("CPU:0: ", 1)[1], (
        shown
    )  # the same graph, bit for bit
