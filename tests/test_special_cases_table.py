"""The special-case table of the report (compat.results.special_cases_table): a record set in
which a row follows the standard where NumPy does not, one in which a row differs from both, and
NumPy's own departures, each in its cell."""

import numpy as np

from compat.core import special_cases
from compat.core.outcome import json_values
from compat.core.source import array_source
from compat.results import special_cases_table
from compat.results.report import special_case_lines
from tests.helpers import checks_record, divergence_record, run_of

SPEC = "compat/specs/special_cases.py::test_every_special_case_of_the_standard[{}]"
DEPARTING = {d.case.clause for d in special_cases.departures()[0] if d.case.op == "floor_divide"}


def backend(name: str) -> dict:
    return {"name": name, "id": name, "version": "1.0", "config": {}}


def floor_divide_record(row: str, change, status: str = "new", reference: str = "numpy") -> dict:
    """A divergence of ``row`` from NumPy on floor_divide's clauses in float64, as the checker
    writes it: its example holds the elements that differ. ``change(i, case, numpy_value,
    element)`` gives the row's value of element i (None: NumPy's)."""
    args, per_element = special_cases.operands("floor_divide", "float64")
    with np.errstate(all="ignore"):
        numpy = np.floor_divide(*args)
    changed = {}
    for i, case in enumerate(per_element):
        value = change(i, case, numpy[i], tuple(a[i : i + 1] for a in args))
        if value is not None:
            changed[i] = value
    where = np.array(sorted(changed), dtype=int)
    expected, actual = numpy[where], np.array([changed[i] for i in where], dtype=numpy.dtype)
    record = divergence_record("floor_divide", spec=SPEC.format(row))
    record.update(
        family="special_cases",
        backend=backend(row),
        reference=reference,
        kind="value",
        signature={"inputs": "float64,float64", "expected": "nan", "actual": "+inf"},
        expected={"dtype": "float64", "shape": [len(where)], "values": json_values(expected, limit=1000)},
        actual={"dtype": "float64", "shape": [len(where)], "values": json_values(actual, limit=1000)},
        example={
            "call": "floor_divide(x0, x1)",
            "inputs": {"x0": array_source(args[0][where]), "x1": array_source(args[1][where])},
        },
        status=status,
    )
    return record


def numpys_departures() -> dict:
    """NumPy's own row against the standard: its floor_divide elements that depart (the standard's
    value as expected, NumPy's as actual)."""
    record = floor_divide_record("numpy", follows_the_standard, status="known", reference="standard")
    record["expected"], record["actual"] = record["actual"], record["expected"]
    return record


def follows_the_standard(i, case, numpy_value, element):
    want = special_cases.expected(case, element)
    if want is not None and not special_cases.agrees(case, np.array([numpy_value]), want)[0]:
        return want[0]
    return None


def checks(row: str) -> dict:
    record = checks_record({"floor_divide": 2, "add": 2}, spec=SPEC.format(row))
    record.update(family="special_cases", backend=backend(row))
    return record


def test_a_row_that_follows_the_standard_where_numpy_departs_is_std_not_new():
    cells = special_cases_table.cells(
        run_of(checks("tensorflow"), floor_divide_record("tensorflow", follows_the_standard))
    )
    cell = cells["tensorflow"]["floor_divide"]
    assert DEPARTING and cell.std == DEPARTING
    assert not cell.new and cell.text() == f"std:{len(DEPARTING)}"
    assert cells["tensorflow"]["add"].text() == "="


def test_a_row_that_differs_from_numpy_and_the_standard_is_new_with_its_clause():
    def wrong_at_zero(i, case, numpy_value, element):
        return 7.0 if i == 0 else None

    _, per_element = special_cases.operands("floor_divide", "float64")
    cell = special_cases_table.cells(run_of(checks("torch"), floor_divide_record("torch", wrong_at_zero)))[
        "torch"
    ]["floor_divide"]
    assert cell.new == {per_element[0].clause} and cell.text() == "new:1"


def test_a_known_divergence_counts_as_known():
    def wrong_at_zero(i, case, numpy_value, element):
        return 7.0 if i == 0 else None

    record = floor_divide_record("jax", wrong_at_zero, status="known")
    assert special_cases_table.cells(run_of(checks("jax"), record))["jax"]["floor_divide"].text() == "known:1"


def test_numpys_row_shows_its_departures_from_the_standard():
    cells = special_cases_table.cells(run_of(checks("numpy"), numpys_departures()))
    assert cells["numpy"]["floor_divide"].departs == DEPARTING
    assert cells["numpy"]["add"].text() == "="


def test_the_text_report_shows_the_table_and_each_clause():
    lines = special_case_lines(
        run_of(
            checks("numpy"),
            numpys_departures(),
            checks("tensorflow"),
            floor_divide_record("tensorflow", follows_the_standard),
        )
    )
    text = "\n".join(lines)
    row = next(line for line in text.splitlines() if line.startswith("floor_divide ("))
    assert row.split()[2:4] == [f"dep:{len(DEPARTING)}", f"std:{len(DEPARTING)}"], row
    assert "tensorflow floor_divide: follows the standard, not NumPy" in text
    assert special_case_lines(run_of()) == []


def test_the_dashboard_page_shows_the_cells(tmp_path):
    import json

    from compat import dashboard
    from compat.results import store

    run_id = "20261127T010000Z-a0a0a0"
    lines = [
        checks("numpy"),
        numpys_departures(),
        checks("tensorflow"),
        floor_divide_record("tensorflow", follows_the_standard),
    ]
    directory = tmp_path / "results" / run_id
    directory.mkdir(parents=True)
    (directory / "records-main.jsonl").write_text(
        "".join(json.dumps(r | {"run_id": run_id}) + "\n" for r in lines)
    )
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    page = (tmp_path / "site" / "special-cases.html").read_text()
    row = page[page.index("<code>floor_divide (") :].split("</tr>")[0]
    assert f">dep:{len(DEPARTING)}<" in row and f">std:{len(DEPARTING)}<" in row, row


def test_a_row_that_departs_as_numpy_does_shows_it_in_its_own_cell():
    """A row whose result is NumPy's where NumPy departs from the standard: its records against the
    standard (status departs) count as dep on its row, and the report says it departs as NumPy does."""
    record = numpys_departures()
    record.update(backend=backend("torch"), spec=SPEC.format("torch"), status="departs")
    run = run_of(checks("numpy"), numpys_departures(), checks("torch"), record)
    cells = special_cases_table.cells(run)
    assert cells["torch"]["floor_divide"].departs == DEPARTING == cells["numpy"]["floor_divide"].departs
    assert cells["torch"]["floor_divide"].text() == f"dep:{len(DEPARTING)}"
    text = "\n".join(special_case_lines(run))
    assert "torch floor_divide: departs from the standard as NumPy does" in text
    assert "numpy floor_divide: NumPy departs from the standard" in text
