"""The coverage of the Array API standard (compat.results.coverage): per row, which of the
standard's 135 functions and which operator forms a run checked, as the report, the terminal
summary and ``python -m compat ops`` show it; and what an adapter declares unsupported."""

from __future__ import annotations

import json

import pytest

from compat.adapters import unsupported
from compat.adapters.numpy import NumpyAdapter
from compat.cli import main
from compat.cli.ops import status
from compat.core import ops, standard
from compat.core.operation import Op
from compat.results import coverage, records, registry, report
from tests.helpers import BACKEND, checks_record

TORCH = {"name": "torch", "id": "torch", "version": "2.13.0", "config": {}}


def write_run(tmp_path, lines: list[dict], run_id: str = "20261126T120000Z-c0c0c0"):
    directory = tmp_path / "results" / run_id
    directory.mkdir(parents=True)
    (directory / "records-main.jsonl").write_text(
        "".join(json.dumps(line | {"run_id": run_id}) + "\n" for line in lines)
    )
    return tmp_path / "results"


def test_a_function_counts_where_a_case_of_it_was_checked_under_either_name():
    (found,) = coverage.coverage([("numpy", {"add": 3, "power": 1, "relu": 5, "multiply": 0}, {})])
    assert found.functions == ["add", "pow"]  # power is the standard's pow; relu is compat's own
    assert found.checked["pow"] == {"power"}
    assert found.line() == "2 of 135 functions, 0 operator forms checked"


def test_the_count_grows_with_each_function_checked_and_rows_stay_apart():
    rows = coverage.coverage(
        [
            ("torch", {"add": 1}, {}),
            ("numpy", {"add": 2}, {}),
            ("torch", {"sqrt": 4, "add": 1}, {}),  # another spec on the same row
            ("torch@apu:0", {}, {"sqrt": "no kernel"}),
        ]
    )
    assert [r.row for r in rows] == ["numpy", "torch", "torch@apu:0"]
    assert [len(r.functions) for r in rows] == [1, 2, 0]
    assert rows[2].unsupported == {"sqrt": "no kernel"}


def test_operator_forms_are_counted_as_soon_as_the_table_has_them(monkeypatch):
    spaceship = Op("__spaceship__", "(x1, x2)", "operator", "x1 <=> x2")  # an operator Python may get one day
    monkeypatch.setattr(ops, "TABLE", (*ops.TABLE, spaceship))
    monkeypatch.setattr(ops, "OPS", {**ops.OPS, spaceship.name: spaceship})
    assert coverage.operator_forms()[-1] == "__spaceship__"
    (found,) = coverage.coverage([("numpy", {"__spaceship__": 2, "add": 1}, {})])
    assert found.operators == ["__spaceship__"] and found.functions == ["add"]
    assert found.line() == "1 of 135 functions, 1 operator forms checked"


def test_the_report_and_the_terminal_summary_show_each_rows_count(tmp_path):
    results = write_run(
        tmp_path,
        [
            checks_record({"add": 3, "power": 1}),
            checks_record({"add": 3}) | {"backend": TORCH},
            checks_record({"sqrt": 2}, spec="compat/specs/promotion.py::test_y[torch]") | {"backend": TORCH},
        ],
    )
    run = records.load(results).latest()
    text = report.text_report(run, registry.load(None))
    assert "numpy  2 of 135 functions, 0 operator forms checked" in text, text
    assert "torch  2 of 135 functions, 0 operator forms checked" in text, text
    summary = report.terminal_summary(next(results.iterdir()), registry.load(None))
    assert "torch  2 of 135 functions, 0 operator forms checked" in summary, summary
    (numpy_row, torch_row) = report.json_report(run, registry.load(None))["coverage"]
    assert numpy_row["functions"] == ["add", "pow"] and torch_row["functions"] == ["add", "sqrt"]


class WithoutAdd(NumpyAdapter):
    name = "numpy"
    OPS = {**NumpyAdapter.OPS, "add": unsupported("this build has no add")}


def test_an_adapter_declaring_a_function_unsupported_shows_it_with_its_reason():
    row = coverage.Coverage("numpy")
    assert status("add", ["add"], row, WithoutAdd()) == (
        "unsupported",
        "numpy has no add: this build has no add",
    )
    assert status("add", ["add"], row, NumpyAdapter()) == ("mapped", None)  # mapped, no case checked
    row.checked["add"] = {"add"}
    assert status("add", ["add"], row, WithoutAdd()) == ("checked", None)
    assert status("nonzero", [], coverage.Coverage("numpy"), NumpyAdapter()) == (
        "-",
        None,
    )  # not in the table


def test_ops_lists_every_function_of_the_standard_per_row_of_the_latest_run(tmp_path, capsys):
    results = write_run(
        tmp_path,
        [
            checks_record({"add": 3, "power": 1}),
            checks_record({"add": 1}, spec="compat/specs/promotion.py::test_x[numpy@cpu:1]")
            | {"device": "cpu:1", "unsupported": {"power": "not on this device"}},
        ],
    )
    assert main(["ops", "--backends", "numpy", str(results), "--view", "coverage"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for name in standard.FUNCTIONS:
        assert name in lines, name
    assert lines["add"][-2:] == ["checked", "checked"]
    assert lines["pow"][2:] == ["power", "checked", "unsupported[1]"]
    assert "[1] numpy has no power: not on this device" in out
    assert "numpy@cpu:1: 1 of 135 functions, 0 operator forms checked" in out
    assert "numpy: 2 of 135 functions, 0 operator forms checked" in out
    assert BACKEND["id"] == "numpy"


def test_ops_without_a_run_shows_what_each_adapter_maps_or_declares(tmp_path, capsys):
    assert main(["ops", "--backends", "numpy", str(tmp_path / "none"), "--view", "coverage"]) == 0
    out = capsys.readouterr().out
    assert "no run read" in out
    cells = [line.split()[-1] for line in out.splitlines() if line.startswith(("add ", "__add__ "))]
    assert cells == ["mapped", "mapped"]
    functions = sum(
        line.split()[-1] == "mapped"
        for line in out.splitlines()
        if line.split()[:1] and line.split()[0] in standard.FUNCTIONS
    )
    assert f"numpy: {functions} of 135 functions, " in out and "operator forms mapped" in out


@pytest.mark.parametrize("view", ["table", "all"])
def test_ops_still_prints_the_table_of_operations(tmp_path, capsys, view):
    assert main(["ops", "--backends", "numpy", str(tmp_path / "none"), "--view", view]) == 0
    out = capsys.readouterr().out
    assert "result_type(*arrays_and_dtypes)" in out
    assert ("of 135 functions" in out) == (view == "all")


def test_the_parameters_view_lists_every_function_of_the_standard_and_the_kinds_checked(tmp_path, capsys):
    """Per function and parameter of the standard: the kinds its signature admits, and per row the
    kinds a case gave it there (all, or those checked and -kind for each missed; unsupported: a
    keyword the row's function does not take)."""
    results = write_run(
        tmp_path,
        [
            checks_record({"sum": 2})
            | {
                "forms": {
                    "sum": {"x": {"array": 2}, "axis": {"absent": 1, "int": 1}, "keepdims": {"True": 1}}
                }
            },
            checks_record({"sum": 1}, spec="compat/specs/statistics.py::test_x[tensorflow]")
            | {"backend": {**BACKEND, "name": "tensorflow", "id": "tensorflow"}}
            # dtype left out (absent) in the calls the row could take: still a keyword it does not take
            | {
                "forms": {"sum": {"x": {"array": 1}, "dtype": {"absent": 1}}},
                "unsupported": {"sum(dtype=)": "no dtype="},
            },
        ],
    )
    assert main(["ops", str(results), "--view", "parameters"]) == 0
    out = capsys.readouterr().out
    rows = {tuple(line.split()[:2]): line.split() for line in out.splitlines() if line.strip()}
    functions = {name for name, _ in rows}
    for name in [*standard.FUNCTIONS, *(f"{e}.{n}" for e, ns in standard.EXTENSIONS.items() for n in ns)]:
        assert name in functions, name
    assert rows[("sum", "x")][-2:] == ["all", "all"]
    axis = next(line for line in out.splitlines() if line.split()[:2] == ["sum", "axis"])
    assert "absent int -None -negative -tuple" in axis  # numpy's row: two kinds checked of five
    dtype_line = next(line for line in out.splitlines() if line.split()[:2] == ["sum", "dtype"])
    assert dtype_line.split()[-1] == "unsupported" and "absent None dtype" in dtype_line
    assert rows[("add", "x1")][-2:] == ["-", "-"]  # add was not checked on either row


def test_the_parameters_view_without_a_run_shows_what_compats_calls_give(tmp_path, capsys):
    assert main(["ops", str(tmp_path / "none"), "--view", "parameters"]) == 0
    out = capsys.readouterr().out
    assert "no run read" in out
    keepdims = next(line for line in out.splitlines() if line.split()[:2] == ["sum", "keepdims"])
    assert keepdims.split()[-1] == "all"
