"""Meta-tests for the gradient family (compat/specs/gradients.py): gradient bugs planted
in the torch adapter (compat/adapters/broken/), registered through the public path
``--adapter compat.adapters.broken:Name``, must be caught against finite differences
(reference numpy-fd) with the right kind, and fail the spec in strict mode."""

from __future__ import annotations

import pytest

from compat.results import records
from tests.helpers import json_of, output, run_pytest, side_by_side

pytest.importorskip("torch")

pytestmark = [
    pytest.mark.xdist_group("meta-broken-gradients"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

SPEC = "compat/specs/gradients.py"
PLANTS = {  # class -> (its adapter name, -k expression, the kind it must be caught as)
    "TanhGradientOffByOnePercent": (
        "broken_tanh_gradient",
        "test_gradient_of_random_programs and float64",
        "value",
    ),
    "GradientNotReducedOverBroadcast": (
        "broken_unreduced_gradient",
        "test_gradient_of_random_programs and float64",
        "shape",
    ),
    "Float64GradientsForFloat32": (
        "broken_float64_gradient",
        "test_gradient_of_random_programs and float32",
        "dtype",
    ),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The broken adapters side by side, each on its spec, in one child run in strict mode,
    under the detection benchmark's profile: the default examples, unshrunk (shrinking a
    random program against finite differences took 80% of the run)."""
    where = tmp_path_factory.mktemp("meta-gradients")
    process = run_pytest(
        [
            SPEC,
            "--hypothesis-seed",
            "0",
            "--hypothesis-profile",
            "detect",
            "-p",
            "no:xdist",
            "--device",
            "none",  # the plants are in torch's own autodiff, on every device
            *side_by_side({plant: (name, spec) for plant, (name, spec, _) in PLANTS.items()}),
        ],
        where,
    )
    assert process.returncode == 1, output(process)  # strict mode: a new divergence fails the spec
    loaded = records.load(where / "results")
    assert not loaded.problems, loaded.problems
    return [r for run in loaded.runs.values() for r in json_of(run.divergences)]


@pytest.mark.parametrize("plant", PLANTS)
def test_planted_gradient_bug_is_caught(plant, run):
    name, _, kind = PLANTS[plant]
    found = [r for r in run if r["backend"]["name"] == name]
    caught = [r for r in found if r["kind"] == kind and r["reference"] == "numpy-fd" and r["op"] == "grad"]
    assert caught, (
        f"no {kind} divergence against numpy-fd among {[(r['kind'], r['reference']) for r in found]}"
    )
    if plant == "TanhGradientOffByOnePercent":  # a program that has the planted op (nothing else is broken)
        assert any("np.tanh" in r["example"]["inputs"]["f"] for r in caught), [r["example"] for r in caught]
