"""A library's own function checked on every row (xp.check_function): the README's example runs as
written, with the user guide's gradient example added to it: the correct functions show no
divergence on any row, and a planted bug in each is a new divergence whose reproducer calls the
library's function: a constant without dtype= (float64 in NumPy, float32 in torch) in the values, and
a normaliser snapped to a grid (autodiff loses its term; the value check, of the function against
itself on NumPy, cannot see it) in the gradient."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from compat.core import ops, programs
from compat.results import records
from tests.helpers import REPO, Jobs, output, run_pytest

pytestmark = pytest.mark.xdist_group("own-functions")  # one worker: the module's runs are made once

CORRECT = "return e / xp.sum(e, axis=axis, keepdims=True)"
PLANTED = "return e * (xp.asarray(1.0) / xp.sum(e, axis=axis, keepdims=True))"
SNAPPED = "s = xp.round(s * 2**20) / 2**20"  # the guide's planted gradient bug
GRADIENT_CORRECT = "    return xp.squeeze(m + xp.log(s), axis=axis)"
BACKENDS = "numpy,torch,jax"  # TensorFlow's rows skip (see the last test): its import is seconds
DIFFERENTIATING = {"torch", "torch~compile", "torch@apu:0", "jax[x64]", "jax[x64]~jit", "jax[x32]"}


def example_file(name: str, page: str = "README.md") -> str:
    """A file of the own-functions example, exactly as written on ``page``."""
    block = re.search(rf"```python\n(# {re.escape(name)}\n.*?)```", (REPO / page).read_text(), re.S)
    assert block, f"{page} has no {name} example"
    return block.group(1)


def readme_file(name: str) -> str:
    """The README's file, with the user guide's continuation (its gradient example) appended."""
    return example_file(name) + "\n\n" + example_file(f"{name}, continued", "docs/guide.md")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The README's test file against the correct library and against the planted bug, together."""
    library = readme_file("mylib.py")
    assert CORRECT in library and GRADIENT_CORRECT in library
    assert SNAPPED in (REPO / "docs" / "guide.md").read_text()
    planted = library.replace(CORRECT, PLANTED).replace(
        GRADIENT_CORRECT, f"    {SNAPPED}\n{GRADIENT_CORRECT}"
    )
    jobs = {}
    for name, source in (("correct", library), ("planted", planted)):
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


def rows_of(text: str, outcome: str = "PASSED") -> dict[str, set[str]]:
    """Test -> the rows it ended with ``outcome`` on, from ``-rA``'s summary."""
    rows: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.startswith(f"{outcome} "):
            test, row = line.split(" - ", 1)[0].split("::", 1)[1].split("[", 1)
            rows.setdefault(test, set()).add(row[:-1])
    return rows


def test_the_correct_function_agrees_on_every_row(runs):
    """No new divergence on any row; a row where a backend's known behaviour shows (XLA's CPU
    flushes a subnormal exp to zero) is an expected failure, with a known divergence in its records."""
    here, process = runs["correct"]
    text = output(process)
    assert process.returncode == 0, text
    passed, known = rows_of(text), rows_of(text, "XFAIL")
    agreed = {test: passed.get(test, set()) | known.get(test, set()) for test in passed.keys() | known.keys()}
    assert {"numpy", *DIFFERENTIATING} <= agreed["test_softmax"], text
    assert agreed["test_logsumexp"] == agreed["test_softmax"], text
    found = divergences(here)
    assert [d for d in found if d.status == "new"] == []
    for test, rows in known.items():
        assert rows <= {d.backend.row for d in found if d.spec_name == test and d.known}, text


def test_the_gradient_is_checked_on_every_row_with_autodiff_and_said_unsupported_on_the_others(runs):
    """grad=True: a gradient per example on every row but NumPy's, whose record says why it has none."""
    from compat.adapters.numpy import NumpyAdapter

    here, _ = runs["correct"]
    checks = [c for run in records.load(here / "results").runs.values() for c in run.checks]
    checks = [c for c in checks if c.spec_name == "test_logsumexp"]
    differentiated = {c.where for c in checks if c.cases.get("grad", 0) > 0}
    assert differentiated >= DIFFERENTIATING and "numpy" not in differentiated, checks
    assert differentiated == {c.where for c in checks} - {"numpy"}
    (numpy,) = [c for c in checks if c.where == "numpy"]
    assert (
        numpy.unsupported == {"grad": NumpyAdapter().unsupported("grad")} and numpy.cases["mylib.logsumexp"]
    )


def test_a_planted_bug_is_a_new_divergence_whose_reproducer_calls_the_function(runs):
    here, process = runs["planted"]
    text = output(process)
    assert process.returncode == 1, text
    new = [d for d in divergences(here) if d.status == "new"]
    torch = [d for d in new if d.backend.row == "torch" and d.op == "mylib.softmax"]
    assert torch and torch[0].kind == "dtype", new
    assert (torch[0].signature["expected"], torch[0].signature["actual"]) == ("float64", "float32")
    assert "import mylib" in torch[0].reproducer and "mylib.softmax(torch.asarray(x0)" in torch[0].reproducer
    shown = subprocess.run(
        [sys.executable, "-c", torch[0].reproducer], cwd=here, capture_output=True, text=True, timeout=120
    )
    assert "numpy" in shown.stdout and "float64" in shown.stdout and "torch.float32" in shown.stdout, shown


def test_a_planted_gradient_bug_is_a_new_gradient_divergence_the_values_do_not_show(runs):
    """The snapped normaliser: logsumexp's values agree with NumPy's on every row; its gradient on
    torch is a new divergence from the finite differences, whose reproducer calls mylib.logsumexp
    with torch's autodiff and shows the two gradients apart."""
    here, _ = runs["planted"]
    new = [d for d in divergences(here) if d.status == "new"]
    assert not [d for d in new if d.op == "mylib.logsumexp"], new
    grads = [
        d for d in new if d.backend.row == "torch" and d.op == "grad" and d.spec_name == "test_logsumexp"
    ]
    assert grads and {(d.kind, d.reference) for d in grads} == {("value", "numpy-fd")}, new
    record = grads[0]
    assert "mylib.logsumexp(x0, axis=1)" in record.example["inputs"]["f"]
    assert "import mylib" in record.reproducer and "torch.autograd.grad" in record.reproducer
    shown = subprocess.run(
        [sys.executable, "-c", record.reproducer], cwd=here, capture_output=True, text=True, timeout=120
    )
    lines = {line.split(" ", 1)[0]: line for line in shown.stdout.splitlines()}
    fd, autodiff = (
        np.array(re.findall(r"-?\d+\.\d*", lines[side])[1:], float) for side in ("numpy-fd", "torch")
    )
    assert fd.shape == autodiff.shape and not np.allclose(fd, autodiff, atol=0.01), shown


def test_a_functions_gradient_program_differentiates_its_float_arrays_only():
    """programs.weighted_sum: the leading float arrays are the inputs, other arrays constants, the
    rest parameters; its gradient is the cotangent's (finite differences: take's is a scatter)."""
    from compat.adapters.numpy_fd import FiniteDifferences

    x, index, cotangent = np.array([1.0, 2.0, 3.0]), np.array([0, 2]), np.array([0.5, -2.0])
    program = programs.weighted_sum("take", (x, index), {"axis": 0}, cotangent)
    assert (
        program.inputs == (x,)
        and program.numpy_lambda() == "lambda x0: np.sum(np.multiply(np.take(x0, c0, axis=0), c1))"
    )
    fd = FiniteDifferences()
    (gradient,) = fd.call("grad", (program.bind(fd), x)).parts
    np.testing.assert_allclose(gradient.values, [0.5, 0.0, -2.0], atol=1e-9)
    for args, kwargs in (((index,), {}), ((x, 2, index), {}), ((x,), {"weights": x})):
        with pytest.raises(TypeError):
            programs.weighted_sum("take", args, kwargs, cotangent)


def shifted_inverse_sums(a):
    """Column sums of inv(a + 4 I): LAPACK's inverse, which NumPy has in float64, not in long double."""
    from array_api_compat import array_namespace

    xp = array_namespace(a)
    return xp.sum(xp.linalg.inv(a + 4 * xp.eye(a.shape[0], dtype=a.dtype)), axis=0)


def positive(x):
    return x > 0


def sum_of_terms(x, terms=1):
    return x * terms


def test_a_function_the_finite_differences_cannot_run_says_so_and_is_no_divergence():
    """A function that refuses long double arrays has no finite-difference gradient: the row counts
    grad unsupported with that reason (its values are still checked), not an error divergence; a
    function without a real floating result has no gradient to ask for. Declaring a function leaves
    the table as it is (the worker's later tests iterate it)."""
    pytest.importorskip("torch")
    from compat.adapters import load_adapter
    from compat.harness.checker import Checker, Session
    from compat.results.registry import load

    torch = Checker(load_adapter("torch"), "own", "spec", Session(load_adapter("numpy"), load(None)))
    torch.check_function(shifted_inverse_sums, np.eye(2) / 2, ulps=64, grad=True)
    assert "long double" in torch.ledger.unsupported["grad"] and not torch.ledger.seen, (
        torch.ledger.unsupported
    )
    assert torch.ledger.cases == {"tests.test_own_functions.shifted_inverse_sums": 1}
    # a user's function is an operation for the checker, not of the table adapters resolve
    assert "tests.test_own_functions.shifted_inverse_sums" not in ops.OPS and len(ops.OPS) == len(ops.TABLE)
    with pytest.raises(TypeError, match="real floating array result"):
        torch.check_function(positive, np.ones(2), grad=True)
    with pytest.raises(TypeError, match="parameter named 'terms'"):  # its terms= would be taken as compat's
        torch.check_function(sum_of_terms, np.ones(2), terms=2)


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
        x = adapter.values.from_numpy(np.ones(2, dtype=np.float32), None)
        try:
            array_namespace(x)
            refused = False
        except TypeError:
            refused = True
        assert refused == bool(adapter.no_array_namespace), adapter.id


def halved(x):
    """x times 0.5 as a constant without dtype=: float64 on NumPy, x's dtype on torch (the README's bug)."""
    from array_api_compat import array_namespace

    return x * array_namespace(x).asarray(0.5)


def halved_in_dtype(x):
    from array_api_compat import array_namespace

    xp = array_namespace(x)
    return x * xp.asarray(0.5, dtype=x.dtype)


USERS_REGISTRY = """
[[known]]
id = "{name}"
backend = "torch"
family = "own"
op = "tests.test_own_functions.{name}"
kind = "dtype"
differs = "float32 input, float32 result: NumPy's is float64"
reason = "planted by tests/test_own_functions.py"
[[known.examples]]
family = "own"
call = "tests.test_own_functions.{name}(x0)"
backends = ["torch"]
[known.examples.inputs]
x0 = "np.array([3.0], dtype=np.float32)"
"""


def test_a_users_registry_example_replays_at_the_test_s_first_check_of_the_function(tmp_path):
    """A registry entry of a user's function, its example as `compat known add` writes it, loads (the
    registry never imports the function's module) and replays on the row at the test's first check
    of the function, once: reproduced while the bug is there, fixed once it is gone; an example of a
    function the test never declares is not replayed (compat's known spec cannot run it either)."""
    pytest.importorskip("torch")
    from compat.adapters import load_adapter
    from compat.harness.checker import Checker, Session
    from compat.results.registry import load

    path = tmp_path / "registry.toml"
    path.write_text(
        "".join(USERS_REGISTRY.format(name=n) for n in ("halved", "halved_in_dtype", "undeclared"))
    )
    session = Session(load_adapter("numpy"), load(path))
    torch = Checker(load_adapter("torch"), "own", "spec", session)
    x = np.array([1.0, 2.0], dtype=np.float32)
    for function in (halved, halved_in_dtype, halved):
        torch.check_function(function, x)
    replays = [
        ("halved", "tests.test_own_functions.halved(x0)", "reproduced"),
        ("halved_in_dtype", "tests.test_own_functions.halved_in_dtype(x0)", "fixed"),
    ]
    assert [(entry, case.call(), status) for entry, case, status in torch.ledger.replays] == replays
    assert torch.ledger.matched["halved"] == 3  # the replay, then the two drawn calls
    torch.replay_known("own")  # compat's known spec: the declared functions' examples only
    assert [(entry, case.call(), status) for entry, case, status in torch.ledger.replays] == replays * 2


def test_a_users_function_s_cases_turn_back_into_themselves():
    """A record's example of a user's function, its value case and its gradient's, parses back into
    the same case: the call names the function by module, the program's lambda calls it."""
    from compat.core.case import Case
    from compat.core.parse import case_from_source

    x, cotangent = np.array([[1.0, -2.0]], dtype=np.float32), np.array([[0.5, 2.0]], dtype=np.float32)
    op = ops.declare_function(halved, ulps=4)
    gradient = programs.weighted_sum(op, (x,), {}, cotangent)
    for case in (Case(op, (x,)), Case("grad", (x,), program=gradient)):
        example = case.example()
        again = case_from_source(example["call"], example["inputs"])
        assert again.example() == example and again.op == case.op, example
        assert (again.program and again.program.root) == (case.program and case.program.root)
