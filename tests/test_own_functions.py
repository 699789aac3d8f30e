"""A library's own function checked on every row (xp.check_function): the README's example runs as
written: the correct function shows no divergence on any row, and a planted bug (a constant without
dtype=, float64 in NumPy and float32 in torch) is a new divergence whose reproducer calls the
library's function."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from compat.results import records
from tests.helpers import REPO, Jobs, output, run_pytest

pytestmark = pytest.mark.xdist_group("own-functions")  # one worker: the module's runs are made once

CORRECT = "return e / xp.sum(e, axis=axis, keepdims=True)"
PLANTED = "return e * (xp.asarray(1.0) / xp.sum(e, axis=axis, keepdims=True))"
BACKENDS = "numpy,torch,jax"  # TensorFlow's rows skip (see the last test): its import is seconds


def readme_file(name: str) -> str:
    """A file of the README's own-functions example, exactly as written there."""
    block = re.search(rf"```python\n(# {re.escape(name)}\n.*?)```", (REPO / "README.md").read_text(), re.S)
    assert block, f"the README has no {name} example"
    return block.group(1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The README's test file against the correct library and against the planted bug, together."""
    library = readme_file("mylib.py")
    assert CORRECT in library
    jobs = {}
    for name, source in (("correct", library), ("planted", library.replace(CORRECT, PLANTED))):
        here = tmp_path_factory.mktemp(name)
        (here / "mylib.py").write_text(source)
        (here / "test_mylib.py").write_text(readme_file("test_mylib.py"))
        # the correct function on every row the README's command runs (modes too); the bug eagerly
        modes, backends = ("default", BACKENDS) if name == "correct" else ("none", "numpy,torch")
        args = [str(here / "test_mylib.py"), "--backends", backends, "--modes", modes, "-rA"]
        jobs[name] = (
            here,
            lambda args=args, here=here: run_pytest(
                args, here, shipped_registry=True, PYTHONPATH=f"{here}:{REPO}"
            ),
        )
    started = Jobs({name: job for name, (_, job) in jobs.items()})
    yield {name: (here, started[name]) for name, (here, _) in jobs.items()}
    started.close()


def divergences(here) -> list[records.Divergence]:
    return [d for run in records.load(here / "results").runs.values() for d in run.divergences]


def test_the_correct_function_agrees_on_every_row(runs):
    here, process = runs["correct"]
    text = output(process)
    assert process.returncode == 0, text
    passed = {line.split("[", 1)[1][:-1] for line in text.splitlines() if line.startswith("PASSED")}
    assert {
        "numpy",
        "torch",
        "torch~compile",
        "torch@apu:0",
        "jax[x64]",
        "jax[x64]~jit",
        "jax[x32]",
    } <= passed, text
    assert [d for d in divergences(here) if d.status == "new"] == []


def test_a_planted_bug_is_a_new_divergence_whose_reproducer_calls_the_function(runs):
    here, process = runs["planted"]
    text = output(process)
    assert process.returncode == 1, text
    new = [d for d in divergences(here) if d.status == "new"]
    torch = [d for d in new if d.backend.row == "torch"]
    assert torch and torch[0].op == "mylib.softmax" and torch[0].kind == "dtype", new
    assert (torch[0].signature["expected"], torch[0].signature["actual"]) == ("float64", "float32")
    assert "import mylib" in torch[0].reproducer and "mylib.softmax(torch.asarray(x0)" in torch[0].reproducer
    shown = subprocess.run(
        [sys.executable, "-c", torch[0].reproducer], cwd=here, capture_output=True, text=True, timeout=120
    )
    assert "numpy" in shown.stdout and "float64" in shown.stdout and "torch.float32" in shown.stdout, shown


def test_no_array_namespace_is_said_exactly_of_the_backends_whose_arrays_it_refuses():
    """Adapter.no_array_namespace (users' functions skipped, with it) holds where array_api_compat's
    array_namespace refuses the backend's arrays, and only there."""
    import numpy as np
    from array_api_compat import array_namespace

    from compat import adapters

    for name in ("numpy", "torch", "jax", "tensorflow"):
        try:
            (adapter,) = adapters.resolve(name)[:1]
        except adapters.BackendMissing:
            continue
        x = adapter.from_numpy(np.ones(2, dtype=np.float32), None)
        try:
            array_namespace(x)
            refused = False
        except TypeError:
            refused = True
        assert refused == bool(adapter.no_array_namespace), adapter.id
