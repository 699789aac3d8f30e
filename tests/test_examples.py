"""Shared failing examples: ``compat.harness.examples.example_database`` and ``--compat-examples``.

A failing example that one pytest run saves is replayed first by the next run that
points at the same database (a directory, or a real Redis server when one is
installed); bad values are one-line usage errors. The child runs use a tiny
Hypothesis test of their own (no framework is imported), with Hypothesis's default
database moved under tmp, so that the checkout's .hypothesis is never touched.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase, MultiplexedDatabase, ReadOnlyDatabase

from compat.harness import examples as database
from compat.harness.examples import ExamplesError, example_database
from tests.helpers import Jobs, nonempty_lines, output, run_pytest

pytestmark = pytest.mark.xdist_group("examples")  # one worker: the module's fixtures are made once

THRESHOLD = 1000  # the tiny test fails for n >= THRESHOLD: Hypothesis shrinks every failure to exactly this
TINY = f"""
import os

from hypothesis import given, strategies as st


@given(st.integers(0, 10**6))
def test_tiny(n):
    with open(os.environ["TINY_LOG"], "a") as log:
        log.write(f"{{n}}\\n")
    assert n < {THRESHOLD}
"""
CONFTEST = """
import importlib.metadata

try:
    importlib.metadata.distribution("compat")
except importlib.metadata.PackageNotFoundError:
    pytest_plugins = ["compat.harness.plugin"]
"""
REDIS_SERVER = shutil.which("redis-server")


def tiny_project(tmp: Path) -> Path:
    project = tmp / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / "test_tiny.py").write_text(TINY)
    (project / "conftest.py").write_text(CONFTEST)
    return project


def run_tiny(tmp: Path, name: str, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[int]]:
    """One pytest run of the tiny test: the process and the examples it tried, in order."""
    log = tmp / f"{name}.log"
    log.unlink(missing_ok=True)
    process = run_pytest(
        [str(tiny_project(tmp) / "test_tiny.py"), "-p", "no:xdist", "-q", "--backends", "numpy", *args],
        tmp / name,
        results=tmp / "results",
        TINY_LOG=str(log),
        **env,
    )
    tried = [int(line) for line in log.read_text().split()] if log.exists() else []
    return process, tried


def default_database_of(tmp: Path, name: str) -> Path:
    """Where Hypothesis's default database of a run_tiny run lies (helpers.subprocess_env moves it under tmp)."""
    return tmp / name / "hypothesis-db" / "examples"


def saved_files(directory: Path) -> list[Path]:
    return [p for p in directory.rglob("*") if p.is_file()] if directory.exists() else []


def assert_replayed_first(process, tried: list[int]) -> None:
    assert process.returncode == 1, output(process)
    assert tried and tried[0] == THRESHOLD, (tried[:10], output(process))


# -- the function ----------------------------------------------------------------------


def test_each_kind_of_spec_makes_its_database(tmp_path):
    assert isinstance(example_database(None), DirectoryBasedExampleDatabase)
    assert example_database(None) == example_database("") == example_database("local")
    assert example_database("none") is None
    directory = example_database(str(tmp_path / "examples"))
    assert directory == DirectoryBasedExampleDatabase(tmp_path / "examples")
    assert not (tmp_path / "examples").exists()  # made when the first example is saved
    readonly = example_database(f"readonly:{tmp_path / 'examples'}")
    assert isinstance(readonly, ReadOnlyDatabase)
    both = example_database(f"local, readonly:{tmp_path / 'examples'}")
    assert isinstance(both, MultiplexedDatabase)


def test_a_fleet_database_is_read_and_never_written_when_readonly(tmp_path):
    fleet, mine = DirectoryBasedExampleDatabase(tmp_path / "fleet"), tmp_path / "mine"
    fleet.save(b"key", b"from the fleet")
    db = example_database(f"{mine},readonly:{tmp_path / 'fleet'}")
    db.save(b"key", b"mine")
    assert set(db.fetch(b"key")) == {b"from the fleet", b"mine"}
    assert set(fleet.fetch(b"key")) == {b"from the fleet"}
    assert set(DirectoryBasedExampleDatabase(mine).fetch(b"key")) == {b"mine"}


@pytest.mark.parametrize(
    "spec, phrases",
    [
        ("ftp://host/examples", ["ftp://host/examples", "unsupported scheme"]),
        ("a,,b", ["empty entry"]),
        ("readonly:", ["'readonly:' needs a database"]),
        ("none,local", ["'none' cannot be combined"]),
        ("redis://:hunter2@localhost:notaport/0", ["not a Redis URL", ":***@"]),
    ],
)
def test_a_bad_spec_is_a_one_line_error(spec, phrases):
    if spec.startswith("redis://"):
        pytest.importorskip("redis")
    with pytest.raises(ExamplesError) as raised:
        example_database(spec)
    message = str(raised.value)
    assert "\n" not in message
    for phrase in phrases:
        assert phrase in message, message
    assert "hunter2" not in message


def test_a_file_is_not_a_directory_of_examples(tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(ExamplesError, match="not a directory"):
        example_database(str(tmp_path / "a-file"))


def test_redis_without_the_redis_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)  # import redis now raises ImportError
    monkeypatch.delitem(sys.modules, "hypothesis.extra.redis", raising=False)
    with pytest.raises(ExamplesError) as raised:
        example_database("local,readonly:redis://:secret@localhost:6379/0")
    message = str(raised.value)
    assert "needs the redis package" in message and "compat[redis]" in message, message
    assert "secret" not in message and "\n" not in message


def test_the_environment_variable_is_the_options_default(monkeypatch):
    monkeypatch.setenv(database.ENVIRONMENT, "/some/where")
    assert database.default_spec() == "/some/where"
    monkeypatch.setenv(database.ENVIRONMENT, "")
    assert database.default_spec() is None


# -- through pytest ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("examples")


@pytest.fixture(scope="module")
def errors(tmp):
    """The usage-error runs, started together."""
    (tmp / "a-file").write_text("")
    table = {
        "scheme": lambda: run_tiny(tmp, "scheme", "--compat-examples", "s3://bucket/examples"),
        "file": lambda: run_tiny(tmp, "file", COMPAT_EXAMPLES=str(tmp / "a-file")),
        "unreachable": lambda: run_tiny(
            tmp, "unreachable", "--compat-examples", f"redis://127.0.0.1:{closed_port()}/0"
        ),
    }
    started = Jobs(table)
    yield started
    started.close()


def assert_usage_error(process, *phrases: str) -> None:
    text = output(process)
    assert process.returncode == 4, text  # pytest's usage error
    assert "Traceback" not in text
    lines = nonempty_lines(process.stderr)
    assert len(lines) == 1 and lines[0].startswith("ERROR: --compat-examples: "), text
    for phrase in phrases:
        assert phrase in lines[0], text


def test_a_bad_option_value_is_a_pytest_usage_error(errors):
    process, tried = errors["scheme"]
    assert_usage_error(process, "s3://bucket/examples", "unsupported scheme")
    assert tried == []


def test_a_bad_environment_value_is_a_pytest_usage_error(errors, tmp):
    process, _ = errors["file"]
    assert_usage_error(process, str(tmp / "a-file"), "not a directory")


def test_an_unreachable_redis_is_one_error_at_the_start(errors):
    pytest.importorskip("redis")
    process, tried = errors["unreachable"]
    assert_usage_error(process, "cannot reach Redis at redis://127.0.0.1:")
    assert tried == []


def test_a_failing_example_saved_in_a_directory_is_replayed_first_by_the_next_run(tmp):
    shared = tmp / "shared-examples"
    # the ci profile has no database of its own: the option gives it one
    first, tried = run_tiny(tmp, "first", "--compat-examples", str(shared), CI="true")
    assert first.returncode == 1, output(first)
    assert THRESHOLD in tried and tried[0] != THRESHOLD, tried[:10]
    assert saved_files(shared), "nothing was saved in the shared directory"
    assert not saved_files(default_database_of(tmp, "first")), "saved in the default database too"
    # another profile, the database from the environment: the saved failure comes first
    second, tried = run_tiny(tmp, "second", "--hypothesis-profile", "thorough", COMPAT_EXAMPLES=str(shared))
    assert_replayed_first(second, tried)
    assert not saved_files(default_database_of(tmp, "second"))
    # without the option, in the dev profile, Hypothesis's own (empty) default database: nothing to replay
    fresh, tried = run_tiny(tmp, "fresh", "--hypothesis-profile", "dev")
    assert fresh.returncode == 1 and tried[0] != THRESHOLD, (tried[:10], output(fresh))
    assert saved_files(default_database_of(tmp, "fresh"))
    # readonly: replayed from, not written to
    before = {p: p.read_bytes() for p in saved_files(shared)}
    third, tried = run_tiny(
        tmp, "third", "--hypothesis-profile", "dev", "--compat-examples", f"local,readonly:{shared}"
    )
    assert_replayed_first(third, tried)
    assert {p: p.read_bytes() for p in saved_files(shared)} == before
    assert saved_files(default_database_of(tmp, "third"))  # "local" keeps the developer's own


def test_the_test_command_draws_the_same_examples_every_run_and_a_seed_draws_others(tmp):
    # no profile named, no CI variable: the README's test command
    (first, tried), (_second, again) = (run_tiny(tmp, name, "-v") for name in ("same-1", "same-2"))
    assert tried and tried == again, (tried[:10], again[:10])
    assert "compat: examples: Hypothesis profile 'ci', derandomized" in first.stdout, output(first)
    assert not saved_files(default_database_of(tmp, "same-1"))  # nothing to replay into a later run
    seeded, other = run_tiny(tmp, "seeded", "-v", "--hypothesis-seed", "3")
    assert other != tried, other[:10]
    assert (
        "compat: examples: Hypothesis profile 'dev', seed 3 (again: --hypothesis-seed 3)" in seeded.stdout
    ), output(seeded)


# -- a real Redis server ---------------------------------------------------------------------


def closed_port() -> int:
    """A loopback port nothing listens on (just released by the OS)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    """A redis-server of its own on a free loopback port, nothing persisted; stopped after the test."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    redis = pytest.importorskip(
        "redis", reason="the redis package is not installed (pip install -e '.[redis]')"
    )
    port = closed_port()
    server = subprocess.Popen(
        [
            REDIS_SERVER,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server on port {port} did not start (exit code {server.poll()})")
                time.sleep(0.1)
        yield f"redis://127.0.0.1:{port}/0"
        client.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_a_failing_example_saved_in_redis_is_replayed_first_by_another_machine(redis_url, tmp_path):
    import redis

    first, tried = run_tiny(tmp_path, "first", "--compat-examples", redis_url)
    assert first.returncode == 1 and tried[0] != THRESHOLD, (tried[:10], output(first))
    client = redis.Redis.from_url(redis_url)
    assert client.keys("hypothesis-example:*"), "nothing was saved in Redis"
    client.close()
    assert not saved_files(default_database_of(tmp_path, "first"))
    # "another machine": a fresh local database, the fleet's read-only
    second, tried = run_tiny(tmp_path, "second", COMPAT_EXAMPLES=f"local,readonly:{redis_url}")
    assert_replayed_first(second, tried)
    assert saved_files(default_database_of(tmp_path, "second"))


def test_the_options_help_says_what_it_accepts():
    text = database.HELP
    for phrase in ("directory", "redis://", "readonly:", "none", "local", "COMPAT_EXAMPLES"):
        assert phrase in text
