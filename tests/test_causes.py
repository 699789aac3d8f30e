"""Divergences counted by cause (compat.results.causes): one group per registry entry, and per new
cause (row, operation group, kind, the outcomes' classes, an error's class and message shape)."""

from __future__ import annotations

from compat.results import causes
from tests.helpers import divergence_record, run_of


def raised(op: str, message: str, inputs: str, error: str = "NotImplementedError", **fields) -> dict:
    return {
        **divergence_record(op, **fields),
        "kind": "error",
        "signature": {"inputs": inputs, "expected": "ok", "actual": "dtype"},
        "actual": {"error": {"type": f"builtins.{error}", "category": "dtype", "message": message}},
    }


def test_a_message_shape_takes_out_what_varies_between_examples():
    assert causes.message_shape("\"index_cuda\" not implemented for 'UInt16'") == (
        "'…' not implemented for '…'"
    )
    assert causes.message_shape("index 12 is out of bounds for axis 0 with size 3\nmore") == (
        "index N is out of bounds for axis N with size N"
    )
    assert (
        causes.message_shape("shapes (2, 3) and (4,) differ at 0x7f3a") == "shapes (N…) and (N…) differ at N"
    )
    assert causes.message_shape("") == ""


def test_records_of_one_cause_are_one_group_whatever_their_signatures():
    """torch's CUDA kernels missing for two dtypes in two indexing operations: one cause; the same
    message in a linear algebra operation, another (another group); a known record, its entry."""
    run = run_of(
        raised("take", "\"index_cuda\" not implemented for 'UInt16'", "uint16,int64"),
        raised("take", "\"index_cuda\" not implemented for 'UInt16'", "uint16,int32"),
        raised("take_along_axis", "\"gather_cuda\" not implemented for 'Int'", "int32,int64"),
        raised("matmul", "\"addmm_cuda\" not implemented for 'Int'", "int32,int32"),
        {**divergence_record("add"), "status": "known", "known": "an-entry"},
        {**divergence_record("multiply"), "status": "known", "known": "an-entry"},
    )
    found = causes.by_cause(run.divergences)
    assert [(g.name, g.status, len(g.records)) for g in found] == [
        ("numpy [error] indexing: ok -> NotImplementedError: '…' not implemented for '…'", "new", 3),
        ("an-entry", "known", 2),
        ("numpy [error] linalg: ok -> NotImplementedError: '…' not implemented for '…'", "new", 1),
    ]
    new = causes.by_cause(run.divergences, status="new")
    assert causes.per_row(new) == {"numpy": (2, 4)}


def test_an_operator_is_in_the_group_of_the_function_it_computes():
    assert causes.group_of("__floordiv__") == causes.group_of("floor_divide") == "arithmetic"
    assert causes.group_of("mylib.softmax") == "own"


def test_a_value_cause_is_its_classes_and_a_crash_its_message():
    value = {**divergence_record("maximum"), "kind": "value"}
    value["signature"] = {"inputs": "float32", "expected": "-0", "actual": "+0"}
    crash = raised("add", "killed by SIGABRT: Check failed: 3 == 4", "float32", error="compat.Crash")
    crash["kind"] = "crash"
    assert causes.cause_of(records_of(value)).title == "numpy [value] arithmetic: -0 -> +0"
    assert causes.cause_of(records_of(crash)).actual == "Crash: killed by SIGABRT: Check failed: N == N"


def records_of(data: dict):
    (record,) = run_of(data).divergences
    return record
