"""Calls an adapter names as dangerous run in a child process: an abort there is a
``crash`` outcome (and divergence), not the end of the test worker."""

import numpy as np

from compat.adapters import load_adapter
from compat.core import oracle
from compat.harness.isolation import Isolation


def test_an_aborting_call_becomes_a_crash_outcome_and_the_process_lives_on():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    crashed = Isolation().run(adapter, "add", (np.array([1, 2], np.int64), -1), None, None)
    assert crashed.error_category == "crash", crashed.describe()
    assert "SIGABRT" in str(crashed.error)
    fine = adapter.call("add", (np.array([1, 2], np.int64), 1))  # in this process
    assert fine.values.tolist() == [2, 3]
    expected = load_adapter("numpy").call("add", (np.array([1, 2], np.int64), -1))
    [mismatch] = oracle.compare(expected, crashed)
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("crash", "ok", "crash")


def test_an_isolated_call_that_returns_gives_the_same_outcome_as_in_process():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    child = Isolation().run(adapter, "multiply", (np.array([1.5, -0.0], np.float32), 2), None, None)
    here = adapter.call("multiply", (np.array([1.5, -0.0], np.float32), 2))
    assert not oracle.compare(here, child, exact=True)
    raised = Isolation().run(adapter, "reshape", (np.arange(6), (4, 4)), None, None)
    raised_here = adapter.call("reshape", (np.arange(6), (4, 4)))
    assert (raised.error_category, str(raised.error)) == (raised_here.error_category, str(raised_here.error))
    assert raised.to_json()["error"]["type"] == "builtins.ValueError"  # the child's exception keeps its type
