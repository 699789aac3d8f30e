"""A second reference (eager for a mode, the reference device, the gradient reference) that
crashed or hung is no reference: the row under test is judged against NumPy alone and says
which reference it lost; an error that the same call does not raise a second time is not
judged as the call's own."""

import json

import numpy as np

from compat.adapters import load_adapter
from compat.harness.checker import Checker, Session
from compat.harness.isolation import Isolation
from compat.results.registry import load
from compat.results.report import terminal_summary
from tests.helpers import checks_record, common

NUMPY = load_adapter("numpy")
UINT64 = np.array([1, 2], np.uint64)


def checker_of(adapter: str, mode: str = "eager") -> Checker:
    return Checker(
        load_adapter(f"tests.broken_adapters:{adapter}"),
        "promotion",
        "spec",
        Session(NUMPY, load(None), isolation=Isolation()),
        mode=mode,
    )


def test_a_mode_whose_eager_reference_crashed_is_judged_against_numpy_alone():
    traced = checker_of("EagerAbortsOnNegativeInts", mode="traced")
    outcome = traced.check("add", UINT64, -1)  # NumPy 2 and the traced call: OverflowError; eager: SIGABRT
    assert outcome.error_category == "overflow", outcome.describe()
    assert (
        not traced.ledger.kept and not traced.ledger.seen
    )  # no divergence: not from NumPy, and none from the crash
    [(table, row, value)] = traced.ledger.observations
    assert (table, row) == ("reference lost", "add vs mode:eager"), traced.ledger.observations
    assert value.startswith("crash: killed by SIGABRT; judged against NumPy alone; e.g. add(x0, -1)"), value


def test_a_row_whose_reference_crashed_still_diverges_from_numpy():
    traced = checker_of("EagerAbortsOnNegativeInts", mode="traced")
    traced.backend.compile = lambda mode, function: (
        lambda *operands: function(*operands) + 1
    )  # a wrong traced result
    traced.check("add", np.array([1, 2], np.int64), -1)
    assert {key.reference for key in traced.ledger.seen} == {"numpy"}, (
        traced.ledger.seen
    )  # eager was lost, NumPy still judges
    assert traced.ledger.observations[0][:2] == ("reference lost", "add vs mode:eager")


def test_an_error_the_same_call_does_not_raise_again_is_not_judged():
    flaky = checker_of("RaisesSystemErrorEveryOtherCall")
    for _ in range(3):  # SystemError, then OverflowError on the second call; and so on
        outcome = flaky.check("add", UINT64, -1)
        assert outcome.error_category == "overflow", outcome.describe()
    assert not flaky.ledger.seen, flaky.ledger.seen
    assert flaky.ledger.observations == [
        (
            "unstable errors",
            "add (uint64,py:int)",
            "SystemError (other), then OverflowError (overflow) once more",
        )
    ]


def test_an_error_raised_again_is_the_call_s_own():
    steady = checker_of("RaisesSystemErrorEveryOtherCall")
    steady.backend.call = lambda op, args, kwargs=None, device=None: NUMPY.call("reshape", (UINT64, (3,)))
    steady.check("add", UINT64, 1)  # raises a shape error every time, where NumPy computes
    assert {(key.kind, key.expected, key.actual) for key in steady.ledger.seen} == {("error", "ok", "shape")}
    assert not steady.ledger.observations


def test_the_run_s_summary_names_the_rows_that_lost_a_reference(tmp_path):
    run = tmp_path / "run-1"
    run.mkdir()
    cells = [
        (
            "reference lost",
            "power vs mode:eager",
            "crash: killed by SIGABRT; judged against NumPy alone; e.g. power(x0, -1)",
        ),
        (
            "unstable errors",
            "remainder (py:int,uint64)",
            "SystemError (other), then OverflowError (overflow) once more",
        ),
        ("float division by zero", "1 // 0", "raises"),
    ]  # another survey: not named
    lines = [
        json.dumps({**common(), "record": "observation", "table": t, "row": r, "value": v})
        for t, r, v in cells
    ]
    (run / "records-main.jsonl").write_text("\n".join(lines + [json.dumps(checks_record())]) + "\n")
    text = terminal_summary(run, load(None))
    assert (
        "references that crashed or hung (those cases judged against NumPy alone) (1; the survey table "
        "'reference lost' of python -m compat report):\n  numpy: power vs mode:eager" in text
    ), text
    assert "errors a second call did not raise again (the second call judged) (1; " in text, text
    assert "1 // 0" not in text
