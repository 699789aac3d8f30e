"""Adding a backend is one module: the documented example (docs/adapters.md) runs as written;
an adapter that maps an operation to something that does not exist stops the run at start-up
with one line naming it; an operation an adapter declares unsupported is counted and shown."""

from __future__ import annotations

import re
import textwrap

import pytest

from compat.adapters import AdapterError, unsupported
from compat.adapters.numpy import NumpyAdapter
from compat.adapters.tensorflow import TensorflowAdapter
from compat.results import records
from tests.helpers import REPO, SPECS, Jobs, nonempty_lines, output, run_pytest

pytestmark = pytest.mark.xdist_group("adding-a-backend")  # one worker: the module's fixtures are made once

MISSPELLED = textwrap.dedent("""
    from compat.adapters.numpy import NumpyAdapter


    class Misspelled(NumpyAdapter):
        name = "misspelled"
        OPS = {**NumpyAdapter.OPS, "floor_divide": "np.floordivide"}
""")


def readme_example() -> str:
    """The my_adapters.py of docs/adapters.md, exactly as written there."""
    text = (REPO / "docs" / "adapters.md").read_text()
    block = re.search(r"```python\n(# my_adapters\.py\n.*?)```", text, re.S)
    assert block, "docs/adapters.md has no my_adapters.py example"
    return block.group(1)


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adding")
    modules = tmp / "modules"
    modules.mkdir()
    (modules / "my_adapters.py").write_text(readme_example())
    (modules / "misspelled_adapters.py").write_text(MISSPELLED)
    quick = [
        str(SPECS / "placement.py"),
        "-q",
        "-p",
        "no:xdist",
        "-k",
        "computed_and_compiled",
        "--device",
        "none",
    ]
    jobs = Jobs(
        {
            "readme": lambda: run_pytest(
                [*quick, "--adapter", "my_adapters:StrictNumpy", "--compat-mode", "report"],
                tmp / "readme",
                PYTHONPATH=str(modules),
            ),
            "misspelled": lambda: run_pytest(
                [*quick, "--adapter", "misspelled_adapters:Misspelled"],
                tmp / "misspelled",
                PYTHONPATH=str(modules),
            ),
        }
    )
    yield jobs, tmp
    jobs.close()


def test_the_readme_example_runs_as_written_and_shows_what_it_declares_unsupported(jobs):
    """The documented adapter checks NumPy under errstate; it declares compiled_add unsupported:
    that spec runs, counts the operation with its reason, shows it, and fails nothing."""
    process = jobs[0]["readme"]
    assert process.returncode == 0, output(process)
    run = records.load(jobs[1] / "readme" / "results").latest()
    checked = {(c.backend.id, op) for c in run.checks for op in c.cases}
    assert ("numpy-strict", "add") in checked, checked
    reasons = {op: reason for c in run.checks for op, reason in c.unsupported.items()}
    assert reasons == {"compiled_add": "NumPy compiles nothing"}, reasons
    assert not [d for d in run.divergences if d.op == "compiled_add"]
    assert "numpy-strict: compiled_add (NumPy compiles nothing)" in process.stdout, output(
        process
    )  # the summary


def test_a_misspelled_operation_stops_the_run_at_start_up_with_one_line(jobs):
    process = jobs[0]["misspelled"]
    assert process.returncode == 4, output(process)  # pytest's usage error: nothing ran
    errors = [line for line in nonempty_lines(process.stderr) if line.startswith("ERROR")]
    assert len(errors) == 1 and "Traceback" not in process.stderr, output(process)
    assert "misspelled" in errors[0] and "'floor_divide'" in errors[0] and "np.floordivide" in errors[0], (
        errors[0]
    )


def test_a_misspelled_operation_is_an_adapter_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPAT_CACHE_DIR", str(tmp_path))  # where passed checks are kept

    class Typo(NumpyAdapter):
        name = "typo"
        OPS = {**NumpyAdapter.OPS, "sqrt": "np.sqrtt"}

    with pytest.raises(AdapterError, match=r"typo maps operation 'sqrt' to np\.sqrtt"):
        Typo().check_operations()
    Typo.OPS = {**NumpyAdapter.OPS, "sqrt": unsupported("on purpose")}
    Typo().check_operations()  # declared: no error
    assert Typo().unsupported("sqrt") == "on purpose"


def test_a_passed_check_is_kept_until_a_mapping_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPAT_CACHE_DIR", str(tmp_path))

    class Renamed(NumpyAdapter):
        name = "renamed"
        OPS = {**NumpyAdapter.OPS, "sqrt": "np.sqrt"}

    Renamed().check_operations()
    resolved = []
    with monkeypatch.context() as patch:
        patch.setattr(Renamed.Spelling, "resolve", lambda self, path: resolved.append(path))
        Renamed().check_operations()
    assert resolved == []  # kept: nothing imported or resolved again
    Renamed.OPS = {**NumpyAdapter.OPS, "sqrt": "np.sqrtt"}
    with pytest.raises(AdapterError, match=r"renamed maps operation 'sqrt' to np\.sqrtt"):
        Renamed().check_operations()  # another mapping: checked anew


def test_tensorflow_declares_what_tf_numpy_lacks():
    """put_along_axis is declared, with a reason, not left to fail as an AttributeError."""
    assert "no put_along_axis" in TensorflowAdapter().unsupported("put_along_axis")
