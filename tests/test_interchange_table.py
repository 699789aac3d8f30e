"""The interchange matrix of the report and dashboard (compat.results.interchange_table): a
record set where one pair kept every bit, one did not (known and new crossings), and a producer
that a row did not import, each in its cell."""

import json
import re

from compat.results.report import interchange_lines
from tests.helpers import checks_record, divergence_record, run_of

SPEC = "compat/specs/interchange.py::test_every_producer_dtype_and_layout_keeps_every_bit[{}]"


def backend(name: str) -> dict:
    return {"name": name, "id": name, "version": "1.0", "config": {}}


def checks(row: str) -> dict:
    record = checks_record({"from_dlpack_of": 90}, spec=SPEC.format(row))
    record.update(family="interchange", backend=backend(row))
    return record


def crossing(row: str, inputs: str, status: str = "new") -> dict:
    record = divergence_record("from_dlpack_of", spec=SPEC.format(row))
    record.update(
        family="interchange",
        backend=backend(row),
        kind="error",
        signature={"inputs": inputs, "expected": "ok", "actual": "other"},
        status=status,
        known="some-entry" if status == "known" else None,
    )
    return record


RECORDS = (
    checks("numpy"),
    checks("tensorflow"),
    crossing("tensorflow", "numpy:float32:sliced", "known"),
    crossing("tensorflow", "numpy:float32:transposed", "known"),
    crossing("tensorflow", "numpy:float32:transposed,copy=False"),
    crossing("numpy", "tensorflow:int8:contiguous,copy=True", "known"),
)


def test_each_pair_counts_the_crossings_that_did_not_keep_every_bit():
    text = "\n".join(interchange_lines(run_of(*RECORDS)))
    rows = {cells[0]: cells[1:] for cells in (re.split(r"  +", line) for line in text.splitlines()[4:])}
    assert rows["numpy"] == ["=", "new:1 known:2"], text  # columns: numpy, tensorflow
    assert rows["tensorflow"] == ["known:1", "="], text
    assert interchange_lines(run_of()) == []


def test_a_producer_the_run_did_not_check_is_not_a_row():
    text = "\n".join(interchange_lines(run_of(checks("numpy"))))
    assert [line.split()[0] for line in text.splitlines()[4:]] == ["numpy"], text


def test_the_dashboard_page_shows_the_cells(tmp_path):
    from compat import dashboard
    from compat.results import store

    run_id = "20261127T010000Z-b0b0b0"
    directory = tmp_path / "results" / run_id
    directory.mkdir(parents=True)
    (directory / "records-main.jsonl").write_text(
        "".join(json.dumps(r | {"run_id": run_id}) + "\n" for r in RECORDS)
    )
    store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    dashboard.render(tmp_path / "s.sqlite", tmp_path / "site")
    page = (tmp_path / "site" / "interchange.html").read_text()
    row = page[page.index("<code>numpy</code>") :].split("</tr>")[0]
    assert ">=<" in row and ">new:1 known:2<" in row, row
