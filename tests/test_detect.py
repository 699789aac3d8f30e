"""``python -m compat detect``: the detection benchmark reports a fault the specs catch as
caught, one they cannot catch as missed, and NumPy against itself as clean. Small: one
seed, one spec, two faults (the full benchmark is not part of the default run)."""

import re
import subprocess
import sys

import pytest

from compat.harness import detect as benchmark
from compat.specs import FAMILIES
from tests.helpers import REPO, output, subprocess_env


def detect(args, tmp_path):
    return subprocess.run(
        [sys.executable, "-m", "compat", "detect", *args],
        cwd=REPO,
        env=subprocess_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )


def rows(stdout: str) -> dict[str, list[str]]:
    """Table rows by fault (the control as 'numpy (control)')."""
    found = {}
    for line in stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 4 and cells[0] in FAMILIES:
            found[cells[1]] = cells[2:]
    return found


def test_a_caught_fault_a_missed_one_and_a_clean_control(tmp_path):
    process = detect(
        [
            "--seeds",
            "1",
            "--first-seed",
            "3",
            "--faults",
            "broken_int8_uint8,tests.broken_adapters:NotBroken",
            "-k",
            "test_binary_operation_on_every_pair_of_dtypes and add and not logaddexp",
        ],
        tmp_path,
    )
    table = rows(process.stdout)
    assert set(table) == {"numpy (control)", "broken_int8_uint8", "not_broken"}, output(process)
    assert table["numpy (control)"][0] == "0 divergences (good)", output(process)
    caught, examples, spec, kinds = table["broken_int8_uint8"]
    assert (
        caught == "1/1" and int(examples) >= 1 and spec == "test_binary_operation_on_every_pair_of_dtypes"
    ), output(process)
    assert kinds == "dtype", output(process)
    assert table["not_broken"][0] == "0/1 MISSED", output(process)
    assert "1 of 2 faults caught under every one of 1 seed(s)" in process.stdout
    assert process.returncode == 1, output(process)  # a miss fails the benchmark


def test_bad_input_is_one_line(tmp_path):
    for args, message in [
        (["--seeds", "0"], "--seeds: must be at least 1, not 0"),
        (["--faults", "no_such_fault"], "compat detect: no fault 'no_such_fault'"),
        (["--faults", "compat.adapters.numpy:NumpyAdapter"], "has no family attribute"),
    ]:
        process = detect(args, tmp_path)
        assert process.returncode == 2, output(process)
        lines = process.stderr.strip().splitlines()
        assert message in lines[-1] and "Traceback" not in process.stderr, output(process)
        if args[0] != "--seeds":  # argparse shows its usage above the error
            assert len(lines) == 1, output(process)


def test_a_seed_is_a_seed_in_a_ci_job_too(tmp_path):
    # Hypothesis loads its derandomized profile wherever $CI is set; compat's own profiles
    # must not inherit it, or every seed of `detect` and `selftest` draws the same examples
    profiles = ["dev", "thorough", "detect", "selftest"]
    process = subprocess.run(
        [
            sys.executable,
            "-c",
            "import compat.harness.plugin; from hypothesis import settings; "
            f"print([settings.get_profile(name).derandomize for name in {profiles!r}])",
        ],
        cwd=REPO,
        env=subprocess_env(tmp_path, CI="true"),
        capture_output=True,
        text=True,
    )
    assert process.stdout.split() == ["[False,", "False,", "False,", "False]"], output(process)


def test_a_fault_built_on_a_namespace_is_caught_only_by_what_the_intact_namespace_does_not_show():
    """Its control is the framework the namespace wraps; the intact namespace runs beside it, and
    the namespace's own divergences (array_api_compat.numpy's, registered) are not the fault's."""
    pytest.importorskip("array_api_compat")
    fault = benchmark.fault_of("broken_wrapper_value_based_casting")
    assert (fault.base, fault.beside) == ("numpy", "array-api:array_api_compat.numpy")
    assert benchmark.besides([fault]) == ["array-api:array_api_compat.numpy"]
    own = ("test_sort", False, "sort", "value", ())  # the namespace's own divergence
    planted = ("test_python_scalar_with_every_dtype", False, "add", "dtype", ())
    for shown, caught in (({own}, 0), ({own, planted}, 1)):
        rows = {("promotion", name): benchmark.Row(None, name, "promotion") for name in ("numpy", fault.name)}
        seen = {
            "numpy": benchmark.Seen(),
            fault.beside: benchmark.Seen({own: ("test_sort", "value", 1)}),
            fault.name: benchmark.Seen({key: (key[0], key[3], 1) for key in shown}),
        }
        benchmark.judge(rows, "promotion", "numpy", [fault], seen)
        assert rows[("promotion", fault.name)].caught == caught


def test_the_controls_disagreement_with_its_own_other_call_is_not_noise_but_is_not_a_catch():
    """NumPy's result_type against its own add (reference itself:add) is NumPy's behaviour: the
    control row shows no noise for it, and a fault that shows only it is not caught by it; a
    divergence against NumPy the control lacks is still the fault's, and a control divergence
    against NumPy is still noise."""
    fault = benchmark.fault_of("broken_int8_uint8")
    own = ("test_result_type_is_the_dtype_of_the_backends_own_add", False, "result_type", "error", ())
    noise = ("test_python_scalar_with_every_dtype", False, "add", "value", ())
    planted = ("test_python_scalar_with_every_dtype", False, "add", "dtype", ())
    for control, shown, divergences, caught in (
        ({own}, {own}, 0, 0),
        ({own}, {own, planted}, 0, 1),
        ({own, noise}, {own}, 1, 0),
    ):
        rows = {("promotion", name): benchmark.Row(None, name, "promotion") for name in ("numpy", fault.name)}
        keys = {key: (key[0], key[3], 1) for key in control}
        seen = {
            "numpy": benchmark.Seen(keys, own={own}),
            fault.name: benchmark.Seen({key: (key[0], key[3], 1) for key in shown}, own={own}),
        }
        benchmark.judge(rows, "promotion", "numpy", [fault], seen)
        assert rows[("promotion", "numpy")].divergences == divergences
        assert rows[("promotion", fault.name)].caught == caught


def test_a_control_divergence_the_registry_knows_is_the_backends_not_noise(tmp_path):
    """Dask, the control of the chunked faults, differs from NumPy where compat's registry says why
    (searchsorted with a sorter raises: dask-searchsorted-sorter-and-0d-x2-refused): that is Dask's
    behaviour, so its row stays clean (before, every full benchmark failed on it), while the fault
    built on it is caught."""
    pytest.importorskip("dask")
    process = detect(
        [
            "--seeds",
            "1",
            "--faults",
            "broken_chunked_argmax",
            "-k",
            "searchsorted_with_side_and_sorter or argmax",
        ],
        tmp_path,
    )
    assert process.returncode == 0, output(process)
    found = rows(process.stdout)
    assert found["dask (control)"][0] == "0 divergences (good)", output(process)
    assert found["broken_chunked_argmax"][0] == "1/1", output(process)
