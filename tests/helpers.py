"""Shared helpers for compat's own tests: subprocess runs from the checkout,
run concurrently (each pytest start-up costs seconds), and hand-built records."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from compat.harness import supervision
from compat.results import records

REPO = Path(__file__).resolve().parent.parent
SPECS = REPO / "compat" / "specs"
TIMEOUT = 300


def subprocess_env(tmp: Path, **extra: str) -> dict[str, str]:
    """The environment of a child run: ``tests`` importable; Hypothesis's database
    in ``tmp`` (so no example is replayed from, or saved into, the checkout);
    bytecode read from and written to the usual __pycache__ folders (a child
    reuses what pip and this pytest compiled and assertion-rewrote: the frameworks'
    thousands of modules, the whole hypothesis package as a plugin); no CI variable
    (Hypothesis loads its own ci profile where it is set); nothing inherited from this pytest (PYTEST_ADDOPTS,
    xdist worker variables, the supervisor's mark: a child run has a supervisor of its own)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", supervision.SUPERVISED)
        and not k.startswith("PYTEST_XDIST_")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in [env.get("PYTHONPATH", "")] if p])
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(tmp / "hypothesis-db")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.update(extra)
    return env


def run(args: list[str], tmp: Path, **extra_env: str) -> subprocess.CompletedProcess:
    """``python <args>`` from the checkout, output captured as text."""
    tmp.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env=subprocess_env(tmp, **extra_env),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def run_pytest(
    args: list[str],
    tmp: Path,
    results: Path | None = None,
    shipped_registry: bool = False,
    supervised: bool = False,
    **extra_env: str,
) -> subprocess.CompletedProcess:
    """``python -m pytest <args>`` with records under ``results`` (default tmp/results)
    and an empty registry, so that what the shipped registry says cannot change the
    outcome; with ``shipped_registry`` the plugin's default registry (that of the checkout).
    Eager only (``--modes none``) unless the args choose modes. Without compat's supervisor
    process unless ``supervised``: only a child that may die needs it (tests/test_casualties.py),
    and it is a second pytest start-up for every child (0.8 s)."""
    results = results if results is not None else tmp / "results"
    args = ["-m", "pytest", "-p", "no:cacheprovider", "--compat-results", str(results), *args]
    if not supervised:
        args.append("--no-compat-supervisor")
    if not any(a.startswith("--modes") for a in args):  # eager only, unless a test is about modes
        args += ["--modes", "none"]
    if not shipped_registry and not any(a.startswith("--compat-registry") for a in args):
        args += ["--compat-registry", "none"]
    return run(args, tmp, **extra_env)


def side_by_side(plants: dict[str, tuple[str, str]]) -> list[str]:
    """pytest arguments that run broken adapters of compat.adapters.broken side by side in
    one child run, each only on its specs: adapter class -> (its name, the -k expression
    of its specs)."""
    select = " or ".join(f"({specs}) and {name}" for name, specs in plants.values())
    return [
        "-k",
        select,
        *(a for adapter in plants for a in ("--adapter", f"compat.adapters.broken:{adapter}")),
    ]


def output(process: subprocess.CompletedProcess) -> str:
    """Everything a child printed, for assertion messages."""
    return (
        f"exit code {process.returncode}\n--- stdout ---\n{process.stdout}\n--- stderr ---\n{process.stderr}"
    )


def nonempty_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


class Jobs:
    """Subprocess runs of one test module, each waited for by the test that needs it.

    On first use all of them are started together (a pool as wide as the
    machine, or ``width``), since each costs seconds of start-up. A module that uses Jobs is one
    ``xdist_group`` (tests/test_layout.py checks it): under pytest-xdist its tests
    run on one worker, so each job runs once."""

    def __init__(self, jobs: dict[object, Callable[[], object]], width: int | None = None):
        self.jobs = jobs
        self.futures: dict[object, Future] = {}
        self.executor = ThreadPoolExecutor(max_workers=width or max(2, os.cpu_count() or 2))

    def __getitem__(self, name):
        for key in self.jobs:
            if key not in self.futures:
                self.futures[key] = self.executor.submit(self.jobs[key])
        return self.futures[name].result()

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


# -- hand-built records that follow compat/results/record.schema.json ------------------

BACKEND = {"name": "numpy", "id": "numpy", "version": "2.0.0", "config": {}}


def common(
    run_id: str = "run-1", worker: str = "main", spec: str = "compat/specs/promotion.py::test_x[numpy]"
) -> dict:
    return {
        "schema": records.SCHEMA_VERSION,
        "run_id": run_id,
        "worker": worker,
        "family": "promotion",
        "spec": spec,
        "backend": dict(BACKEND),
        "device": None,
        "reference": "numpy",
    }


def checks_record(cases: dict[str, int] | None = None, **kwargs) -> dict:
    return {**common(**kwargs), "record": "checks", "cases": cases if cases is not None else {"add": 3}}


def run_of(*found: dict) -> records.Run:
    """One run of records given as JSON (checks_record, divergence_record)."""
    run = records.Run("run-1")
    for data in found:
        run.add(records.from_json(data))
    return run


def divergence_record(op: str = "add", **kwargs) -> dict:
    return {
        **common(**kwargs),
        "record": "divergence",
        "op": op,
        "kind": "dtype",
        "signature": {"inputs": "int8,uint8", "expected": "int16", "actual": "int8"},
        "expected": {"dtype": "int16", "shape": [1], "values": [3]},
        "actual": {"dtype": "int8", "shape": [1], "values": [3]},
        "detail": "dtype int8, expected int16",
        "example": {
            "call": f"{op}(x0, x1)",
            "inputs": {"x0": "np.array([2], dtype=np.int8)", "x1": "np.array([1], dtype=np.uint8)"},
        },
        "reproducer": "print('hello')\n",
        "count": 1,
        "known": None,
        "status": "new",
    }


def run_reproducer(record: dict, tmp: Path) -> str:
    """Run a record's reproducer snippet from the checkout; it must exit 0. Its stdout."""
    process = subprocess.run(
        [sys.executable, "-c", record["reproducer"]],
        cwd=REPO,
        env=subprocess_env(tmp),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 0, output(process) + "\n--- reproducer ---\n" + record["reproducer"]
    return process.stdout


def reproducer_lines(stdout: str, backend_name: str) -> tuple[str, str]:
    """The reproducer's one NumPy line and one line of the named backend."""
    lines = stdout.splitlines()
    reference = [line for line in lines if line.startswith("numpy ")]
    backend = [line for line in lines if line.startswith(backend_name + " ")]
    assert len(reference) == 1 and len(backend) == 1, stdout
    return reference[0], backend[0]


def json_of(typed: list) -> list[dict]:
    """Typed records as the JSON objects their files hold (what a user reads)."""
    return [record.to_json() for record in typed]
