"""``python -m compat gpu-check`` without a GPU (it says so in one line and exits 2), what it plans
on a machine with one, and its summary of records built by hand."""

from __future__ import annotations

import json
import types

import numpy as np

from compat.adapters.cupy import CupyAdapter
from compat.cli import main
from compat.devices import cuda
from compat.harness import gpucheck
from compat.results import aggregate
from tests.helpers import checks_record, divergence_record, run_of
from tests.test_registry import entry, load

TORCH = {"name": "torch", "id": "torch", "version": "2.11.0", "config": {}}


def test_without_a_cuda_device_it_says_so_and_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cuda, "driver_devices", lambda: (0, "no CUDA device (no NVIDIA driver)"))
    status = main(["gpu-check", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip().splitlines() == [
        "compat gpu-check: no CUDA device (no NVIDIA driver): nothing to check"
    ]
    assert not (tmp_path / "out").exists()


def test_the_plan_checks_the_cuda_rows_and_skips_the_absent_ones_with_the_reason(monkeypatch):
    monkeypatch.setattr(cuda, "torch_rows", lambda: {"cuda:0": None})
    monkeypatch.setattr(cuda, "jax_rows", lambda: {"gpu:0": "JAX has no CUDA plug-in"})
    found = gpucheck.plan(workers=10)
    devices = found.runs["torch"]
    assert devices[:2] == ["--backends", "torch"] and "--device=torch:cuda:0" in devices
    assert "--only-devices" in devices and devices[-2:] == ["-n", "3"]
    assert "jax" not in found.runs
    assert found.skipped["jax[x64]@gpu:0"] == "JAX has no CUDA plug-in"
    assert "cupy" not in found.runs and found.skipped["cupy"]  # no cupy here, or no GPU for it
    assert found.runs["control"][:3] == ["selftest", "--backends", "torch"]


def test_frameworks_on_one_gpu_run_in_processes_of_their_own(monkeypatch):
    """torch's and JAX's GPU rows in two runs: a CUDA context is the process's, and one framework's
    device-side assert would fail the other's calls."""
    monkeypatch.setattr(cuda, "torch_rows", lambda: {"cuda:0": None})
    monkeypatch.setattr(cuda, "jax_rows", lambda: {"gpu:0": None})
    found = gpucheck.plan(workers=10)
    assert found.runs["torch"][:2] == ["--backends", "torch"], found.runs
    assert found.runs["jax"][:3] == ["--backends", "jax[x64]", "--device=jax[x64]:gpu:0"], found.runs


def write_run(out, run_id, *found, meta=None):
    folder = out / run_id
    folder.mkdir(parents=True)
    lines = [json.dumps({**record, "run_id": run_id}) for record in found]
    (folder / "records-gw0.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "run.json").write_text(json.dumps({"run_id": run_id, **(meta or {})}))


def on_cuda(record: dict, spec: str) -> dict:
    return {**record, "backend": TORCH, "device": "cuda:0", "spec": spec}


def test_the_summary_counts_cases_divergences_and_cases_per_second_per_row(tmp_path):
    out = tmp_path / "out"
    spec = "compat/specs/promotion.py::test_x[torch@cuda:0-add]"
    new = on_cuda({**divergence_record("add"), "reference": "device:cpu:0"}, spec)
    # another signature of the same cause (the arithmetic group, int8 -> int16): one cause, two records
    also = {**new, "op": "subtract", "signature": {**new["signature"], "inputs": "int8,int8"}}
    known = on_cuda({**divergence_record("multiply"), "status": "known", "known": "an-entry"}, spec)
    allowed = {**on_cuda(divergence_record("exp"), spec), "kind": "value", "status": "contract"}
    allowed["contract"] = "CUDA math library: exp of float32 within 2 ULP"
    lacking = {**checks_record({"add": 8}), "unsupported": {"dtype uint16": "no uint16 here"}}
    lacking["unsupported_cases"] = {"dtype uint16": 7}
    write_run(
        out,
        "run-1",
        on_cuda(checks_record({"add": 30, "multiply": 10}), spec),
        on_cuda(lacking, spec),
        new,
        new,  # the same divergence in another example: one
        also,
        known,
        allowed,
        meta={"device_settings": {"torch": {"torch.backends.cuda.matmul.allow_tf32": False}}},
    )
    write_run(out, "run-2", {**checks_record({"add": 5}), "spec": "compat/specs/promotion.py::test_x[cupy]"})
    (out / "junit-devices.xml").write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="compat.specs.promotion" name="test_x[torch@cuda:0-add]" time="3.0"/>'
        '<testcase classname="compat.specs.promotion" name="test_y[torch@cuda:0-float32]" time="1.0"/>'
        '<testcase classname="compat.specs.promotion" name="test_y[numpy]" time="9.0"/>'
        "</testsuite></testsuites>"
    )
    # the known record's cause, as one entry of every device and one of CUDA, which claims it first
    multiply = dict(backend="torch", family='"promotion"', op='"multiply"', unreplayable='"planted"')
    known_ones = load(
        tmp_path, entry("every-device", **multiply) + entry("cuda-too", device='"cuda:*"', **multiply)
    )
    found = gpucheck.summary(out, {"jax[x64]@gpu:0": "JAX has no CUDA plug-in"}, known_ones)
    assert found["rows"]["torch@cuda:0"] == {
        "cases": 48,
        "new_causes": 1,
        "new": 2,
        "known": 1,
        "contract": 1,
        "unsupported": {"dtype uint16": 7},
        "seconds": 4.0,
        "cases_per_second": 12.0,
    }
    assert found["rows"]["numpy"]["cases_per_second"] == 0.6  # 5 cases in 9 s
    assert found["runs"] == ["run-1", "run-2"]
    text = gpucheck.render(found)
    assert "torch@cuda:0 has no dtype uint16: 7 cases not checked" in text
    assert "  torch@cuda:0 [dtype] arithmetic: int16 -> int8 (2 records)" in text, text
    assert "skipped jax[x64]@gpu:0: JAX has no CUDA plug-in" in text
    assert "torch: torch.backends.cuda.matmul.allow_tf32 = False" in text
    assert "  cuda-too: a device's entry claims torch@cuda:0 promotion multiply [dtype]" in text, text
    assert "which every-device explains on every device" in text, text
    narrowed = load(tmp_path, entry("every-device", **multiply))
    assert gpucheck.summary(out, known=narrowed)["device_claims"] == []


def test_an_entry_of_a_device_is_stale_only_where_a_run_checked_that_device(tmp_path):
    """A GPU entry (device = "cuda:*") in a run without a GPU is not reported as not reproduced."""
    known = load(
        tmp_path, entry("on-cuda", backend="torch", family='"promotion"', op='"add"', device='"cuda:*"')
    )
    cpu = checks_record({"add": 3}, spec="compat/specs/promotion.py::test_x[torch]")
    on_gpu = {**cpu, "device": "cuda:0", "spec": "compat/specs/promotion.py::test_x[torch@cuda:0]"}
    assert aggregate.stale(run_of({**cpu, "backend": TORCH}), known) == []
    (stale,) = aggregate.stale(run_of({**cpu, "backend": TORCH}, {**on_gpu, "backend": TORCH}), known)
    assert (stale.id, stale.backend) == ("on-cuda", "torch")


def test_cupy_declares_what_the_installed_cupy_lacks_unsupported():
    """The standard's functions by name; one the installed CuPy lacks, and NumPy's own ones, are
    declared unsupported with the reason (a stand-in module: no cupy here)."""
    fake = types.SimpleNamespace(
        __version__="14.2.0", add=np.add, linalg=types.SimpleNamespace(), ndarray=type("ndarray", (), {})
    )
    adapter = CupyAdapter()
    adapter.__dict__["xp"] = fake
    assert adapter.target("add") == "xp.add"
    assert adapter.unsupported("vecdot") == "cupy 14.2.0 has no vecdot"
    assert adapter.unsupported("svdvals") == "cupy 14.2.0 has no linalg.svdvals"
    assert adapter.unsupported("to_device") == "cupy 14.2.0's ndarray has no to_device"
    assert "NaN-ignoring" in adapter.unsupported("nansum")
    assert adapter.reference_device == "cuda:0"


def test_what_a_row_has_not_is_one_line_per_operation():
    """The H200 check listed CuPy's logical_and of complex once per signature (25 lines of 2 cases):
    an operation's signatures are one line with their cases added, its first three named."""
    reason = "outside the standard's dtype category"
    found = {
        f"logical_and of complex128, {other}": (reason, 2) for other in ("int8", "int16", "uint8", "uint16")
    }
    found["dtype bfloat16"] = ("cupy has no bfloat16", 749)
    found["__index__ of bool"] = (reason, 4)
    assert aggregate.unsupported_by_operation(found) == [
        ("__index__ of bool", reason, 4),
        ("dtype bfloat16", "cupy has no bfloat16", 749),
        (
            "logical_and of complex128, int16; complex128, int8; complex128, uint16 and 1 more",
            reason,
            8,
        ),
    ]
