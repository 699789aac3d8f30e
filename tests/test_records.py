"""Records: the JSON schema, records written by a real run, concurrent writers,
and loading results that contain malformed lines."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import jsonschema
import pytest

from compat.results import records, report
from tests.helpers import (
    BACKEND,
    REPO,
    checks_record,
    common,
    divergence_record,
    json_of,
    output,
    run_pytest,
    subprocess_env,
)

pytestmark = pytest.mark.xdist_group("records")  # one worker: the module's fixtures are made once

SCHEMA_FILE = REPO / "compat" / "results" / "record.schema.json"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_FILE.read_text())
    return jsonschema.Draft202012Validator(schema)


def test_schema_is_a_valid_draft_2020_12_schema():
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert records.SCHEMA_PATH.resolve() == SCHEMA_FILE.resolve()


def test_hand_built_records_validate(validator):
    for record in (checks_record(), divergence_record()):
        assert list(validator.iter_errors(record)) == []


@pytest.mark.parametrize(
    "spoil",
    [
        lambda r: r.pop("reproducer"),
        lambda r: r.update(kind="values"),
        lambda r: r.update(count=0),
        lambda r: r.update(status="old"),
        lambda r: r.update(schema=records.SCHEMA_VERSION + 1),
        lambda r: r.update(run_id=""),
        lambda r: r["backend"].pop("version"),
        lambda r: r["expected"].update(error={"type": "ValueError", "category": "nonsense", "message": ""}),
        lambda r: r["signature"].pop("actual"),
        lambda r: r.update(record="checks"),
    ],
    ids=[
        "no-reproducer",
        "bad-kind",
        "zero-count",
        "bad-status",
        "schema-from-the-future",
        "empty-run-id",
        "no-version",
        "bad-error-category",
        "no-signature-actual",
        "divergence-as-checks",
    ],
)
def test_schema_rejects_spoiled_divergences(validator, spoil):
    record = divergence_record()
    spoil(record)
    assert list(validator.iter_errors(record)), record
    assert records.problem_with(record) is not None


def test_schema_rejects_spoiled_checks(validator):
    for record in (
        checks_record(cases={"add": -1}),
        {**checks_record(), "cases": None},
        {"record": "checks"},
    ):
        assert list(validator.iter_errors(record))
        assert records.problem_with(record) is not None


# -- a real run ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """NumPy and a broken adapter (float32 results slightly off) in report mode:
    checks records for both, divergence records (exhaustive and Hypothesis-shrunk) for the broken one."""
    tmp = tmp_path_factory.mktemp("real-run")
    process = run_pytest(
        [
            "compat/specs/promotion.py",
            "compat/specs/broadcasting.py",
            "-q",
            "--backends",
            "numpy",
            "--adapter",
            "compat.adapters.broken:Float32SlightlyOff",
            "--compat-mode",
            "report",
            "--hypothesis-seed",
            "0",
            "-k",
            "(binary_operation_on_every_pair or elementwise_operands_broadcast) and add",
        ],
        tmp,
    )
    assert process.returncode == 0, output(process)
    return tmp / "results"


def test_records_of_a_real_run_follow_the_schema(real_run, validator):
    files = sorted(real_run.rglob("records-*.jsonl"))
    assert files, f"no records under {real_run}"
    lines = [line for f in files for line in f.read_text().splitlines() if line.strip()]
    kinds = set()
    for line in lines:
        record = json.loads(line)
        errors = [e.message for e in validator.iter_errors(record)]
        assert errors == [], (errors, line[:500])
        kinds.add((record["record"], record["backend"]["name"]))
    assert {
        ("checks", "numpy"),
        ("checks", "broken_float32_value"),
        ("divergence", "broken_float32_value"),
    } <= kinds
    assert ("divergence", "numpy") not in kinds
    (run_json,) = real_run.rglob("run.json")
    meta = json.loads(run_json.read_text())
    assert {json.loads(line)["run_id"] for line in lines} == {meta["run_id"]} == {run_json.parent.name}

    loaded = records.load(real_run)
    assert loaded.problems == []
    (run,) = loaded.runs.values()
    assert len(json_of(run.divergences)) + len(json_of(run.checks)) == len(lines)
    assert {r["family"] for r in json_of(run.divergences)} == {"promotion", "broadcasting"}


# -- concurrent writers --------------------------------------------------------------

WRITER = """
import sys, time
from pathlib import Path
from compat.results import records
from compat.results.records import RecordWriter
from tests.helpers import checks_record

run_directory, worker, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
writer = RecordWriter(run_directory, worker)
(run_directory.parent / f"ready-{worker}").touch()
go = run_directory.parent / "go"
deadline = time.time() + 60
while not go.exists() and time.time() < deadline:
    time.sleep(0.002)
for i in range(count):
    record = checks_record(cases={"add": i, "multiply": 2 * i}, run_id="concurrent", worker=worker,
                           spec=f"compat/specs/promotion.py::test_x[{worker}-{i}]")
    writer.write(records.from_json(record))
writer.close()
"""


def test_two_processes_writing_to_one_run_lose_and_duplicate_nothing(tmp_path):
    run_directory = tmp_path / "results" / "concurrent"
    count = 2000
    workers = ["gw0", "gw1"]
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(run_directory), w, str(count)],
            cwd=REPO,
            env=subprocess_env(tmp_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in workers
    ]
    try:
        deadline = time.time() + 60
        while not all((tmp_path / "results" / f"ready-{w}").exists() for w in workers):
            assert time.time() < deadline and all(p.poll() is None for p in processes), [
                p.communicate() for p in processes
            ]
            time.sleep(0.01)
        (tmp_path / "results" / "go").touch()  # both write at the same time from here on
        for p in processes:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, (out, err)
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()

    loaded = records.load(tmp_path / "results")
    assert loaded.problems == []
    assert set(loaded.runs) == {"concurrent"}
    got = [(r.worker, r.spec, r.cases["add"], r.cases["multiply"]) for r in loaded.runs["concurrent"].checks]
    assert len(got) == 2 * count
    want = {
        (w, f"compat/specs/promotion.py::test_x[{w}-{i}]", i, 2 * i) for w in workers for i in range(count)
    }
    assert set(got) == want
    assert len(set(got)) == len(got)


# -- malformed lines -----------------------------------------------------------------


def test_malformed_lines_are_reported_with_file_and_line_and_the_rest_loads(tmp_path):
    run_directory = tmp_path / "run-1"
    run_directory.mkdir()
    good = [divergence_record(op="add"), checks_record(), divergence_record(op="multiply")]
    lines = [
        json.dumps(good[0]),
        "this is not JSON {",
        json.dumps(good[1]),
        json.dumps({**checks_record(), "cases": {"add": "three"}}),  # JSON, but not a record
        "",
        json.dumps(good[2]),
        '{"record": "divergence", "truncated": ',  # a worker killed mid-write
    ]
    path = run_directory / "records-gw0.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (run_directory / "records-gw1.jsonl").write_text(json.dumps(checks_record(worker="gw1")) + "\n")

    loaded = records.load(tmp_path)
    assert len(loaded.problems) == 3, loaded.problems
    assert loaded.problems[0].startswith(f"{path}:2:") and "JSON" in loaded.problems[0]
    assert loaded.problems[1].startswith(f"{path}:4:") and "cases" in loaded.problems[1]
    assert loaded.problems[2].startswith(f"{path}:7:")
    assert all("\n" not in p for p in loaded.problems)
    run = loaded.runs["run-1"]
    assert [r["op"] for r in json_of(run.divergences)] == ["add", "multiply"]
    assert sorted(r["worker"] for r in json_of(run.checks)) == ["gw1", "main"]


def test_one_run_is_read_without_the_others_of_its_directory(tmp_path):
    """report and known read the run they show: the other runs' records (a spoiled line
    among them) are not read, and an id that names no run reads nothing."""
    for run_id, started, ops in (
        ("run-1", "2026-01-01T00:00:00Z", ["add"]),
        ("run-2", "2026-02-01T00:00:00Z", ["sub"]),
    ):
        folder = tmp_path / run_id
        folder.mkdir()
        (folder / "run.json").write_text(json.dumps({"run_id": run_id, "started": started}))
        lines = [json.dumps(divergence_record(op=op, run_id=run_id)) for op in ops]
        (folder / "records-main.jsonl").write_text(
            "\n".join(lines + (["not JSON {"] if run_id == "run-1" else [])) + "\n"
        )

    everything = records.load(tmp_path)
    assert set(everything.runs) == {"run-1", "run-2"} and len(everything.problems) == 1
    latest = records.load(tmp_path, run="latest")
    assert set(latest.runs) == {"run-2"} and latest.problems == []
    assert [r.op for r in latest.runs["run-2"].divergences] == ["sub"]
    older = records.load(tmp_path, run="run-1")
    assert [r.op for r in older.runs["run-1"].divergences] == ["add"] and len(older.problems) == 1
    assert records.load(tmp_path, run="run-3").runs == {}


def test_load_refuses_a_missing_directory(tmp_path):
    with pytest.raises(records.ResultsError) as raised:
        records.load(tmp_path / "nope")
    assert "nope" in str(raised.value) and "\n" not in str(raised.value)


def test_a_report_line_names_the_device_a_divergence_was_found_on():
    on_cpu, on_device = (
        records.from_json(divergence_record()),
        records.from_json({**divergence_record(), "device": "apu:0"}),
    )
    backend = on_cpu.backend.id
    assert report.one_line(on_cpu).startswith(f"{backend} promotion ")
    assert report.one_line(on_device).startswith(f"{backend}@apu:0 promotion ")


def test_a_record_round_trips_through_json_and_keeps_its_identity():
    record = records.from_json(divergence_record())
    again = records.from_json(json.loads(json.dumps(record.to_json())))
    assert again == record and again.key == record.key
    assert again.key == (
        record.backend.id,
        None,
        "numpy",
        "promotion",
        "add",
        "dtype",
        "int8,uint8",
        "int16",
        "int8",
    )


def test_a_record_of_format_1_still_loads(tmp_path):
    old = {**divergence_record(), "schema": 1}
    (tmp_path / "records-main.jsonl").write_text(json.dumps(old) + "\n")
    loaded = records.load(tmp_path)
    assert loaded.problems == []
    [record] = loaded.runs["run-1"].divergences
    assert record.schema == 1 and record.tables == []


# -- input classes covered -------------------------------------------------------------


def test_checks_say_which_input_class_each_param_covered(real_run):
    from compat.core.strategies import RANK_RELATIONS
    from compat.results import aggregate, report

    (run,) = records.load(real_run).runs.values()
    (coverage,) = [
        c for c in aggregate.input_classes(run.checks) if c.spec == "test_elementwise_operands_broadcast"
    ]
    assert (coverage.name, coverage.classes) == ("ranks", list(RANK_RELATIONS[2]))
    assert coverage.covered == {"numpy": set(coverage.classes), "broken_float32_value": set(coverage.classes)}
    assert (
        f"  test_elementwise_operands_broadcast by ranks: {' | '.join(coverage.classes)} - all, "
        "on 2 backend(s)/device(s)" in report.class_coverage_lines(run)
    )


def test_a_class_without_a_checked_case_is_reported_missing():
    from compat.results import aggregate

    declared = ["first lower", "second lower", "equal ranks"]
    made = [
        records.from_json(
            {
                **checks_record(cases={"add": n}, spec=f"compat/specs/broadcasting.py::test_x[numpy-{c}]"),
                "input_class": {"name": "ranks", "value": c, "all": declared},
            }
        )
        for c, n in zip(declared, [3, 0, 2])
    ]
    (coverage,) = aggregate.input_classes(made)
    assert coverage.missing() == {"numpy": ["second lower"]}


def test_a_survey_has_a_column_per_backend_row_modes_and_devices_apart():
    """The same cell observed eagerly, under jax.jit and on a second device: three columns,
    none overwriting another (a mode's cell in the eager column would pass for eager's)."""
    from compat.results import aggregate

    def observed(value, mode=None, device=None):
        backend = {**BACKEND, "config": {**BACKEND.get("config", {}), **({"mode": mode} if mode else {})}}
        return records.from_json(
            {
                **common(),
                "record": "observation",
                "table": "t",
                "row": "exp float32",
                "value": value,
                "backend": backend,
                "device": device,
            }
        )

    (table,) = aggregate.survey_tables(
        [observed("eager"), observed("jit", mode="jit"), observed("device", device="cpu:1")]
    ).values()
    row = BACKEND["id"]
    assert table.rows["exp float32"] == {row: "eager", f"{row}~jit": "jit", f"{row} cpu:1": "device"}


def test_the_summary_leaves_out_a_family_that_checked_and_showed_nothing():
    """A config row replays the registry's examples of every family; one it has none of checks
    nothing there: no summary row (the families it checked keep theirs)."""
    from compat.results import aggregate
    from tests.helpers import run_of

    run = run_of(checks_record({}) | {"family": "sets"}, checks_record({"add": 2}))
    assert [(r.family, r.cases) for r in aggregate.summary(run.checks, run.divergences)] == [("promotion", 2)]
