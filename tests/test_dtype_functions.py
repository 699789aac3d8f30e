"""The data type functions as compat asks and judges them: dtypes as arguments (written, read
back and tagged as records do), their answers as outcomes (a dtype, a bool, finfo's fields),
finfo's fields compared by name, and a backend's result_type against its own add."""

from __future__ import annotations

import numpy as np

from compat.adapters.numpy import NumpyAdapter
from compat.core import dtypes
from compat.core.case import Case
from compat.core.dtypes import DType
from compat.core.outcome import Outcome
from compat.core.parse import case_from_source
from compat.harness.found import Found
from compat.harness.ledger import example_of
from compat.harness.references import OwnAnswer
from compat.harness.reproducer import reproducer
from compat.judge import judge, oracle
from compat.results import registry
from tests.helpers import output, run

NUMPY = NumpyAdapter()


def test_a_dtype_argument_is_written_read_back_and_tagged_by_its_name():
    case = Case("result_type", (DType("bfloat16"), DType("int8")))
    assert case.call() == "result_type(dtype('bfloat16'), dtype('int8'))"
    assert case.input_tags() == "bfloat16,int8"
    again = case_from_source(case.call(), case.inputs_source())
    assert again.args == case.args and all(isinstance(a, DType) for a in again.args)
    assert case.dtype_names() == {"bfloat16", "int8"}
    nested = Case("concatenate", ((np.zeros(1, np.int8), np.zeros(1, dtypes.bfloat16())),), {"axis": None})
    assert nested.dtype_names() == {"bfloat16", "int8"}  # arrays in a sequence are held too
    assert Case("astype", (np.zeros(1, np.int8),), {"dtype": "float16"}).dtype_names() == {"int8", "float16"}


def test_numpy_answers_as_outcomes():
    promoted = NUMPY.call("result_type", (DType("int8"), DType("uint8")))
    assert (promoted.dtype, promoted.values, promoted.describe()) == ("int16", None, "dtype int16")
    assert promoted.to_json() == {"shape": None, "dtype": "int16"}
    cast = NUMPY.call("can_cast", (DType("float64"), DType("float32")))
    assert cast.dtype == "bool" and not cast.values
    # bfloat16 is of the kinds float16 is of in the reference (NumPy counts it in none)
    assert NUMPY.call("isdtype", (DType("bfloat16"), "real floating")).values
    assert not NUMPY.call("isdtype", (DType("bfloat16"), DType("float16"))).values


def test_finfo_and_iinfo_are_their_fields_as_python_numbers():
    info = NUMPY.call("finfo", (DType("bfloat16"),))
    assert info.names == ("bits", "eps", "max", "min", "smallest_normal", "dtype")
    fields = dict(zip(info.names, info.parts))
    assert fields["bits"].values == 16 and fields["eps"].values == 2.0**-7
    assert fields["eps"].dtype == "float64" and fields["dtype"].dtype == "bfloat16"
    assert NUMPY.call("finfo", (DType("complex64"),)).parts[-1].dtype == "float32"  # its component's
    integers = NUMPY.call("iinfo", (DType("uint64"),))
    assert integers.names == ("bits", "max", "min", "dtype")
    assert int(integers.parts[1].values) == 2**64 - 1


def test_a_wrong_field_is_named_in_the_signature():
    expected = NUMPY.call("finfo", (DType("float32"),))
    parts = list(expected.parts)
    parts[1] = Outcome(values=np.asarray(2.0**-22), dtype="float64", shape=())
    (mismatch,) = oracle.compare(expected, Outcome(parts=parts, names=expected.names), oracle.EXACT)
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("value", "eps: finite", "eps: finite")
    assert mismatch.detail.startswith("eps: ")


class Runner:
    """Calls an adapter as the checker's runner does."""

    def call(self, adapter, case, device=None, mode="eager"):
        return adapter.call(case.op, case.args, case.kwargs, device)


class Int8Uint8AddsToInt8(NumpyAdapter):
    """An add that gives int8 for int8 with uint8, where result_type says int16."""

    def call(self, op, args, kwargs=None, device=None, mode="eager"):
        outcome = super().call(op, args, kwargs, device)
        if op == "add" and {a.dtype.name for a in args} == {"int8", "uint8"}:
            return super().call("astype", (outcome.values,), {"dtype": "int8"})
        return outcome


def own_answer(adapter):
    left, right = np.array([2], np.int8), np.array([1], np.uint8)
    case = Case("result_type", (DType("int8"), DType("uint8")))
    itself = OwnAnswer(adapter, Case("add", (left, right)), Runner())
    return case, itself, judge(itself, case, adapter.call(case.op, case.args), lambda *_: None)


def test_result_type_against_the_backends_own_add():
    _, itself, verdict = own_answer(NUMPY)
    assert itself.id == "itself:add" and verdict.mismatches == []
    _, _, verdict = own_answer(Int8Uint8AddsToInt8())
    (mismatch,) = verdict.mismatches
    assert (mismatch.kind, mismatch.expected, mismatch.actual) == ("dtype", "int8", "int16")


def test_the_reproducer_of_a_result_type_against_its_own_add_prints_both(tmp_path):
    case, itself, _ = own_answer(NUMPY)
    text = reproducer(case, itself, NUMPY)
    assert "np.add(x0, x1)" in text and "np.result_type(np.int8, np.uint8)" in text
    process = run(["-c", text], tmp_path)
    assert process.returncode == 0, output(process) + text
    add, result_type = process.stdout.splitlines()
    assert add.startswith("numpy ") and " add: " in add and add.endswith("int16 [3]"), add
    assert " add" not in result_type and result_type.endswith("int16"), result_type


def test_an_example_against_the_backends_own_answer_keeps_its_question_and_replays_it():
    case, itself, verdict = own_answer(Int8Uint8AddsToInt8())
    found = Found(case, verdict.expected, verdict.actual, verdict.mismatches, [None], itself)
    example = example_of(found)
    assert example["against"] == "add(x0, x1)" and set(example["inputs"]) == {"x0", "x1"}
    entry = registry.load(registry.DEFAULT).by_id()["torch-result-type-of-unsigned-types-add-cannot-compute"]
    (replayed,) = entry.examples
    assert replayed.case().op == "result_type" and replayed.question().op == "add"
    assert [a.dtype.name for a in replayed.question().args] == ["uint16", "uint16"]
