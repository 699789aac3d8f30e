"""User-facing error paths of ``pytest`` with the compat plugin and of ``python -m compat``:
one line, a non-zero exit code, no traceback. Every child runs from the checkout
with its results (and Hypothesis database) under tmp."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.helpers import (
    REPO,
    Jobs,
    checks_record,
    divergence_record,
    nonempty_lines,
    output,
    run,
    run_pytest,
)

pytestmark = pytest.mark.xdist_group("cli-errors")  # one worker: the module's fixtures are made once

PROMOTION = "compat/specs/promotion.py"
ADAPTER_MODULE = "thirdparty_missing_adapter"


def assert_one_line_error(process, *phrases: str, code: int | None = None) -> str:
    text = output(process)
    assert process.returncode != 0, text
    if code is not None:
        assert process.returncode == code, text
    assert "Traceback" not in process.stdout + process.stderr, text
    lines = nonempty_lines(process.stderr)
    assert len(lines) == 1, text
    for phrase in phrases:
        assert phrase in lines[0], text
    return lines[0]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def malformed_results(tmp):
    """A results directory with one run: a valid divergence and checks record, and a broken line 2."""
    directory = tmp / "malformed-results"
    run_directory = directory / "run-1"
    run_directory.mkdir(parents=True)
    lines = [
        json.dumps(divergence_record(op="bitwise_xor")),
        "{not json",
        json.dumps(checks_record(cases={"bitwise_xor": 7})),
    ]
    (run_directory / "records-x.jsonl").write_text("\n".join(lines) + "\n")
    return directory


@pytest.fixture(scope="module")
def jobs(tmp, malformed_results):
    """All the child processes of this module, started together."""
    (tmp / "bad-registry.toml").write_text(
        '[[known]]\nid = "no-reason-here"\nbackend = "torch"\nkind = "dtype"\ndiffers = "x"\n'
    )
    (tmp / "a-file").write_text("")
    adapters = tmp / "adapters"
    adapters.mkdir()
    (adapters / f"{ADAPTER_MODULE}.py").write_text(
        textwrap.dedent("""
        from compat.adapters import Adapter


        class Missing(Adapter):
            name = "missingfw"
            requires = "no_such_framework_xyz"
    """)
    )
    good_results = tmp / "good-results" / "run-2"
    good_results.mkdir(parents=True)
    (good_results / "records-main.jsonl").write_text(json.dumps(checks_record(run_id="run-2")) + "\n")
    quick = ["-q", "-k", "literal and 1j"]
    table = {
        "unknown-backend": lambda: run_pytest(
            [PROMOTION, *quick, "--backends", "nosuch"], tmp / "unknown-backend"
        ),
        "bad-registry": lambda: run_pytest(
            [PROMOTION, *quick, "--backends", "numpy", "--compat-registry", str(tmp / "bad-registry.toml")],
            tmp / "bad-registry",
        ),
        "unwritable-results": lambda: run_pytest(
            [PROMOTION, *quick, "--backends", "numpy"], tmp / "unwritable", results=tmp / "a-file" / "sub"
        ),
        "unknown-mode": lambda: run_pytest(
            [PROMOTION, *quick, "--backends", "numpy", "--modes", "numpy:jit"], tmp / "unknown-mode"
        ),
        "bad-adapter-path": lambda: run_pytest(
            [PROMOTION, *quick, "--adapter", "no_such_module_xyz:Adapter"], tmp / "bad-adapter"
        ),
        "not-installed": lambda: run_pytest(
            [
                PROMOTION,
                "-k",
                "literal",
                "-rs",
                "--adapter",
                f"{ADAPTER_MODULE}:Missing",
                "--device",
                "missingfw:gpu:0",
                "--reference-device",
                "missingfw:cpu:0",
            ],
            tmp / "not-installed",
            PYTHONPATH=str(adapters),
        ),
        # in an xdist controller, which asks the framework (a plug-in's own device it does not)
        "unknown-device": lambda: run_pytest(
            [PROMOTION, *quick, "-n", "1", "--backends", "jax[x64]", "--device", "jax:cpu:5"],
            tmp / "unknown-device",
        ),
        "bench-unknown-backend": lambda: run(
            ["-m", "compat", "bench", "--backends", "nosuch"], tmp / "bench-unknown"
        ),
        "report-missing-dir": lambda: run(
            ["-m", "compat", "report", str(tmp / "no-such-dir")], tmp / "report-missing"
        ),
        "report-malformed": lambda: run(
            ["-m", "compat", "report", str(malformed_results), "--registry", str(tmp / "empty.toml")],
            tmp / "report-malformed",
        ),
        "report-bad-registry": lambda: run(
            ["-m", "compat", "report", str(good_results), "--registry", str(tmp / "bad-registry.toml")],
            tmp / "report-bad-registry",
        ),
    }
    (tmp / "empty.toml").write_text("")
    started = Jobs(table)
    yield started
    started.close()


def test_unknown_backend(jobs):
    line = assert_one_line_error(jobs["unknown-backend"], "unknown backend 'nosuch'")
    assert "numpy" in line  # names the known ones


def test_unknown_device(jobs):
    assert_one_line_error(jobs["unknown-device"], "jax[x64] has no device cpu:5", "it sees: cpu:0")


def test_bench_of_an_unknown_backend(jobs):
    assert_one_line_error(jobs["bench-unknown-backend"], "compat bench: unknown backend 'nosuch'", code=2)


def test_unknown_execution_mode(jobs):
    assert_one_line_error(jobs["unknown-mode"], "--modes 'numpy:jit'", "no execution mode 'jit'")


def test_malformed_registry(jobs, tmp):
    assert_one_line_error(jobs["bad-registry"], str(tmp / "bad-registry.toml"), "no-reason-here", "reason")


def test_unwritable_results_directory(jobs, tmp):
    assert_one_line_error(jobs["unwritable-results"], "cannot write results", str(tmp / "a-file" / "sub"))
    assert not (tmp / "a-file").is_dir()


def test_adapter_module_that_does_not_import(jobs):
    assert_one_line_error(jobs["bad-adapter-path"], "no_such_module_xyz")


def test_backend_not_installed_is_skipped_with_a_reason(jobs):
    process = jobs["not-installed"]
    text = output(process)
    assert process.returncode == 0, text
    assert "Traceback" not in text
    assert "skipped" in process.stdout, text
    assert "not installed" in process.stdout, text
    assert "no_such_framework_xyz" in process.stdout, text
    assert " passed" not in process.stdout and "failed" not in process.stdout, text


def test_report_of_a_missing_directory(jobs, tmp):
    assert_one_line_error(jobs["report-missing-dir"], str(tmp / "no-such-dir"), code=2)
    assert jobs["report-missing-dir"].stdout == ""


def test_report_skips_a_malformed_line_and_reports_the_rest(jobs, malformed_results):
    process = jobs["report-malformed"]
    text = output(process)
    assert process.returncode == 1, text
    assert "Traceback" not in text
    path = malformed_results / "run-1" / "records-x.jsonl"
    lines = nonempty_lines(process.stderr)
    assert len(lines) == 1 and f"{path}:2" in lines[0], text
    # the good records are still reported: the divergence and the checked cases
    assert "bitwise_xor" in process.stdout, text
    assert "int8,uint8" in process.stdout, text
    assert "run-1" in process.stdout, text
    assert any(line.split()[:3] == ["numpy", "promotion", "7"] for line in process.stdout.splitlines()), text


def test_report_with_a_malformed_registry(jobs, tmp):
    assert_one_line_error(jobs["report-bad-registry"], "no-reason-here", code=2)


def test_a_report_whose_reader_went_away_ends_without_a_traceback(tmp):
    """``python -m compat report | head``: the reader closes the pipe (here before the first write)."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        process = subprocess.run(
            [sys.executable, "-m", "compat", "report", "fixtures/results"],
            cwd=REPO,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert process.returncode == 1 and "Traceback" not in process.stderr, process.stderr


def test_a_report_lists_a_few_skipped_lines_and_counts_the_rest(tmp_path, capsys):
    """A results file of another format (every line skipped) gives a few lines, not thousands."""
    import argparse

    from compat.cli.common import SKIPPED_SHOWN, chosen_run

    run_directory = tmp_path / "results" / "run-1"
    run_directory.mkdir(parents=True)
    bad = SKIPPED_SHOWN + 30
    lines = ["{not json"] * bad + [json.dumps(checks_record(cases={"add": 1}))]
    (run_directory / "records-x.jsonl").write_text("\n".join(lines) + "\n")
    run, _ = chosen_run(argparse.Namespace(results=str(tmp_path / "results"), run=None), "report")
    shown = nonempty_lines(capsys.readouterr().err)
    assert len(shown) == SKIPPED_SHOWN + 1, shown
    assert shown[-1] == "compat report: ... and 30 more skipped"
    assert run.checks
