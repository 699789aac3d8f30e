"""Meta-tests for the gradient family (compat/specs/gradients.py): gradient bugs planted
in the torch adapter (compat/adapters/broken/), registered through the public path
``--adapter compat.adapters.broken:Name``, must be caught against finite differences
(reference numpy-fd) with the right kind, and fail the spec in strict mode."""

from __future__ import annotations

import pytest

from compat.results import records
from tests.helpers import output, run_pytest, json_of

pytest.importorskip("torch")

SPEC = "compat/specs/gradients.py"
PLANTS = {  # class -> (its adapter name, -k expression, the kind it must be caught as)
    "TanhGradientOffByOnePercent": ("broken_tanh_gradient", "test_gradient_of_random_programs and float64", "value"),
    "GradientNotReducedOverBroadcast": ("broken_unreduced_gradient", "test_gradient_of_random_programs and float64", "shape"),
    "Float64GradientsForFloat32": ("broken_float64_gradient", "test_gradient_of_random_programs and float32", "dtype"),
}


@pytest.mark.parametrize("plant", PLANTS)
def test_planted_gradient_bug_is_caught(plant, tmp_path):
    name, select, kind = PLANTS[plant]
    process = run_pytest([SPEC, "-k", select, "--adapter", f"compat.adapters.broken:{plant}",
                          "--hypothesis-seed", "0", "-p", "no:xdist",
                          "--device", "none"], tmp_path)  # the plants are in torch's own autodiff, on every device
    assert process.returncode == 1, output(process)  # strict mode: a new divergence fails the spec
    loaded = records.load(tmp_path / "results")
    assert not loaded.problems, loaded.problems
    found = [r for run in loaded.runs.values() for r in json_of(run.divergences) if r["backend"]["name"] == name]
    caught = [r for r in found if r["kind"] == kind and r["reference"] == "numpy-fd" and r["op"] == "grad"]
    assert caught, f"no {kind} divergence against numpy-fd among {[(r['kind'], r['reference']) for r in found]}"
    if plant == "TanhGradientOffByOnePercent":  # shrunk to a program that has the planted op
        assert any("np.tanh" in r["example"]["inputs"]["f"] for r in caught), [r["example"] for r in caught]
