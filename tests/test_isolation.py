"""Calls run in a child process where they can kill their process: an abort there is a
``crash`` outcome, a call past the per-call limit a ``timeout``, a runaway allocation a
``crash`` that says so, and the calling process lives on."""

import numpy as np

from compat.adapters import load_adapter
from compat.core.case import Case
from compat.harness.isolation import Isolation
from compat.judge import oracle

INTS = np.array([1, 2], np.int64)


def test_an_aborting_call_becomes_a_crash_outcome_and_the_process_lives_on():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    isolation = Isolation()
    assert isolation.run(adapter, Case("multiply", (INTS, 2)), None).error is None  # it logs, and lives
    crashed = isolation.run(adapter, Case("add", (INTS, -1)), None)
    assert crashed.error_category == "crash", crashed.describe()
    # nothing said in the call that killed it: no cause, rather than a log line of before
    assert str(crashed.error) == "killed by SIGABRT", crashed.describe()
    fine = adapter.call("add", (INTS, 1))  # in this process
    assert fine.values.tolist() == [2, 3]
    expected = load_adapter("numpy").call("add", (INTS, -1))
    [mismatch] = oracle.compare(expected, crashed)
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("crash", "ok", "crash")


def test_an_isolated_call_that_returns_gives_the_same_outcome_as_in_process():
    adapter = load_adapter("tests.broken_adapters:AbortsOnNegativeInts")
    isolation = Isolation()
    child = isolation.run(adapter, Case("multiply", (np.array([1.5, -0.0], np.float32), 2)), None)
    here = adapter.call("multiply", (np.array([1.5, -0.0], np.float32), 2))
    assert not oracle.compare(here, child, exactness=oracle.Exactness.BITS)
    raised = isolation.run(adapter, Case("reshape", (np.arange(6), (4, 4))), None)
    raised_here = adapter.call("reshape", (np.arange(6), (4, 4)))
    assert (raised.error_category, str(raised.error)) == (raised_here.error_category, str(raised_here.error))
    assert raised.to_json()["error"]["type"] == "builtins.ValueError"  # the child's exception keeps its type


def test_a_call_past_the_limit_is_a_timeout_and_the_next_call_gets_a_new_child():
    adapter = load_adapter("tests.broken_adapters:HangsInSubtract")
    isolation = Isolation(call_limit=1.0)
    hung = isolation.run(adapter, Case("subtract", (np.float32(1), np.float32(2))), None)
    assert hung.error_category == "timeout" and "1 s" in str(hung.error), hung.describe()
    fine = isolation.run(adapter, Case("add", (INTS, 1)), None)
    assert fine.values.tolist() == [2, 3]


def test_a_runaway_allocation_is_a_crash_that_says_so():
    adapter = load_adapter("tests.broken_adapters:AllocatesWithoutBound")
    isolation = Isolation(memory_limit=1 << 30)
    ran_away = isolation.run(adapter, Case("add", (INTS, 1)), None)
    assert ran_away.error_category == "crash" and "resident memory above 1 GiB" in str(ran_away.error), (
        ran_away.describe()
    )


def test_a_call_that_leaves_its_device_unusable_is_a_crash_and_the_next_call_gets_a_new_child():
    """A CUDA device-side assert leaves every later call of its process failing: the child probes
    its device after a call that raised (``Adapter.probe``), the call is a crash that says why, and
    the next call runs in a new child, where the device computes again."""
    adapter = load_adapter("tests.broken_adapters:PoisonsItsDevice")
    isolation = Isolation()
    lost = isolation.run(adapter, Case("getitem", (np.arange(3, dtype=np.int32), (3,))), "gpu:0")
    assert lost.error_category == "crash", lost.describe()
    assert str(lost.error) == (
        "RuntimeError: CUDA error: device-side assert triggered; gpu:0 unusable after it "
        "(RuntimeError: CUDA error: unspecified launch failure)"
    ), lost.describe()
    fine = isolation.run(adapter, Case("add", (INTS, 2)), "gpu:0")
    assert fine.values.tolist() == [3, 4], fine.describe()
    refused = isolation.run(adapter, Case("getitem", (np.arange(3, dtype=np.int32), (5,))), "gpu:0")
    assert refused.error_category == "index", refused.describe()  # an error that spares the device: as it is


def test_a_child_loads_the_plugin_only_where_it_spares_the_accelerators():
    """A call isolated on an accelerator runs where the plug-in was not loaded: torch's PrivateUse1
    device breaks every CUDA backward of its process (pytorch/pytorch#161129). A plug-in that spares
    them shares one child with every device (a framework starts once)."""
    adapter = load_adapter("tests.broken_adapters:BrokenBesideItsPlugin")
    isolation = Isolation()
    for n, device in enumerate(("gpu:0", "apu:0", "gpu:0")):  # the accelerator's child stays its own
        outcome = isolation.run(adapter, Case("add", (INTS, n)), device)
        assert outcome.error is None and outcome.values.tolist() == [1 + n, 2 + n], (
            device,
            outcome.describe(),
        )
    assert len(isolation.children) == 2
    sharing = load_adapter("tests.broken_adapters:TwoDeviceKinds")
    for n, device in enumerate((None, "apu:0", "gpu:0")):
        assert isolation.run(sharing, Case("multiply", (INTS, n)), device).error is None
    assert len(isolation.children) == 3
