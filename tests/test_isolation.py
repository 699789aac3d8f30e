"""Calls an adapter names as dangerous run in a child process: an abort there is a
``crash`` outcome (and divergence), not the end of the test worker."""

import numpy as np

from compat.core import oracle
from compat.adapters import load_adapter


def test_an_aborting_call_becomes_a_crash_outcome_and_the_process_lives_on():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    crashed = adapter.run("add", (np.array([1, 2], np.int64), -1))
    assert crashed.error_category == "crash", crashed.describe()
    assert "SIGABRT" in str(crashed.error)
    fine = adapter.run("add", (np.array([1, 2], np.int64), 1))  # not isolated, in this process
    assert fine.values.tolist() == [2, 3]
    expected = load_adapter("numpy").run("add", (np.array([1, 2], np.int64), -1))
    [mismatch] = oracle.compare(expected, crashed)
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("crash", "ok", "crash")


def test_an_isolated_call_that_returns_gives_the_same_outcome_as_in_process():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    adapter.isolate = lambda op, args: True  # isolate everything; nothing here aborts
    child = adapter.run("multiply", (np.array([1.5, -0.0], np.float32), 2))
    here = adapter.call("multiply", (np.array([1.5, -0.0], np.float32), 2))
    assert not oracle.compare(here, child, exact=True)
    raised = adapter.run("reshape", (np.arange(6), (4, 4)))
    raised_here = adapter.call("reshape", (np.arange(6), (4, 4)))
    assert (raised.error_category, str(raised.error)) == (raised_here.error_category, str(raised_here.error))
    assert raised.to_json()["error"]["type"] == "builtins.ValueError"  # the child's exception keeps its type
