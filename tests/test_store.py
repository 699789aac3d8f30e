"""The SQLite store: ingesting runs, deduplication, grown worker files, malformed lines,
two processes ingesting at once, the compiled record check, and ``python -m compat merge``."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import jsonschema

from compat.results import records, store
from tests.helpers import REPO, checks_record, divergence_record, nonempty_lines, output, run, subprocess_env

FIXTURE = REPO / "fixtures" / "results"


def record_lines(directory: Path) -> list[str]:
    return [
        line
        for path in sorted(directory.rglob("records-*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ]


def run_directories(directory: Path) -> list[Path]:
    return sorted(p.parent for p in directory.rglob("run.json"))


def stored(store_path: Path, query: str, *args) -> list[tuple]:
    connection = sqlite3.connect(store_path)
    try:
        return connection.execute(query, args).fetchall()
    finally:
        connection.close()


def copy_run(source: Path, target_root: Path, run_id: str) -> Path:
    """A copy of a recorded run under another run id (as another CI job would leave it)."""
    target = target_root / run_id
    target.mkdir(parents=True)
    meta = json.loads((source / "run.json").read_text())
    (target / "run.json").write_text(json.dumps({**meta, "run_id": run_id}))
    for path in source.glob("records-*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        (target / path.name).write_text(
            "".join(json.dumps({**r, "run_id": run_id}, sort_keys=True) + "\n" for r in lines)
        )
    return target


# -- ingesting -----------------------------------------------------------------------


def test_ingest_keeps_every_run_with_its_environment_and_every_record(tmp_path):
    db = tmp_path / "store.sqlite"
    result = store.ingest(db, [FIXTURE])
    lines = record_lines(FIXTURE)
    runs = run_directories(FIXTURE)
    assert len(runs) >= 2 and lines
    assert result.skipped == []
    assert result.records == len(lines) == result.lines
    assert sorted(result.runs) == sorted(p.name for p in runs) == sorted(result.described)

    by_type = {}
    for line in lines:
        kind = json.loads(line)["record"]
        by_type[kind] = by_type.get(kind, 0) + 1
    counts = store.counts(db)
    assert counts == {"runs": len(runs), "described": len(runs), "records": len(lines), "by_type": by_type}
    # each run keeps its run.json, and every line is stored as it was written
    for run_directory in runs:
        (meta,) = stored(db, "SELECT meta FROM runs WHERE run_id = ?", run_directory.name)
        assert json.loads(meta[0]) == json.loads((run_directory / "run.json").read_text())
    assert sorted(body for (body,) in stored(db, "SELECT body FROM records_with_body")) == sorted(
        line.strip() for line in lines
    )
    # the columns reports group by are the record's fields
    for body, backend_id, family, op, status in stored(
        db, "SELECT body, backend_id, family, op, status FROM records_with_body"
    ):
        record = json.loads(body)
        assert (backend_id, family, op, status) == (
            record["backend"]["id"],
            record["family"],
            record.get("op"),
            record.get("status"),
        )


def test_ingesting_the_same_runs_again_adds_nothing(tmp_path):
    db = tmp_path / "store.sqlite"
    store.ingest(db, [FIXTURE])
    before = store.counts(db)
    again = store.ingest(db, [FIXTURE])
    assert (again.records, again.runs, again.described, again.skipped) == (0, [], [], [])
    # the same run copied elsewhere (an artifact downloaded twice) is the same run
    copy = tmp_path / "artifact"
    shutil.copytree(FIXTURE, copy)
    assert store.ingest(db, [copy, FIXTURE]).records == 0
    assert store.counts(db) == before


def test_a_worker_file_that_grew_adds_only_its_new_lines(tmp_path):
    source = run_directories(FIXTURE)[-1]
    worker = max(source.glob("records-*.jsonl"), key=lambda p: len(p.read_text().splitlines()))
    lines = worker.read_text().splitlines(keepends=True)
    assert len(lines) >= 10
    results = tmp_path / "results"
    target = results / source.name
    target.mkdir(parents=True)
    (target / "run.json").write_text((source / "run.json").read_text())
    growing = target / worker.name
    growing.write_text("".join(lines[:4]))
    db = tmp_path / "store.sqlite"
    assert store.ingest(db, [results]).records == 4

    growing.write_text("".join(lines))  # the worker wrote more since
    grown = store.ingest(db, [results])
    assert grown.records == len(lines) - 4
    assert grown.per_run == {source.name: len(lines) - 4}
    assert store.counts(db)["records"] == len(lines)

    # the very same line written again by the worker is a record of its own
    with open(growing, "a") as file:
        file.write(lines[0])
    assert store.ingest(db, [results]).records == 1
    assert store.ingest(db, [results]).records == 0
    bodies = [b for (b,) in stored(db, "SELECT body FROM records_with_body")]
    assert bodies.count(lines[0].strip()) == 2 and len(bodies) == len(lines) + 1


def test_malformed_lines_are_reported_with_file_and_line_and_skipped(tmp_path):
    run_directory = tmp_path / "results" / "run-1"
    run_directory.mkdir(parents=True)
    path = run_directory / "records-gw0.jsonl"
    lines = [
        json.dumps(divergence_record(op="add")),
        "not JSON at all {",
        json.dumps(checks_record()),
        json.dumps({**checks_record(), "cases": {"add": "three"}}),  # JSON, but not a record
        "",
        json.dumps([1, 2, 3]),
        json.dumps({**divergence_record(op="multiply"), "record": "nonsense"}),
        json.dumps(divergence_record(op="subtract")),
        '{"record": "divergence", "truncated": ',  # a worker killed mid-write
    ]
    path.write_text("\n".join(lines) + "\n")
    (run_directory / "records-gw1.jsonl").write_bytes(
        b"\xff\xfe not utf-8\n" + json.dumps(checks_record(worker="gw1")).encode() + b"\n"
    )
    db = tmp_path / "store.sqlite"
    result = store.ingest(db, [tmp_path / "results"])
    bad = {
        f"{path}:2:",
        f"{path}:4:",
        f"{path}:6:",
        f"{path}:7:",
        f"{path}:9:",
        f"{run_directory / 'records-gw1.jsonl'}:1:",
    }
    assert {p.split(" ", 1)[0] for p in result.skipped} == bad, result.skipped
    assert all("\n" not in p and len(p) < 500 for p in result.skipped)
    assert any("cases" in p for p in result.skipped if p.startswith(f"{path}:4:"))
    assert result.records == 4 and result.bad_lines == len(bad)
    assert sorted(op for (op,) in stored(db, "SELECT op FROM records WHERE type = 'divergence'")) == [
        "add",
        "subtract",
    ]


WORKER = """
import sys, time
from pathlib import Path
from compat.results import store

db, ready, go = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
directories = sys.argv[4:]
ready.touch()
deadline = time.time() + 60
while not go.exists() and time.time() < deadline:
    time.sleep(0.002)
result = store.ingest(db, directories)
print(result.records, len(result.runs), len(result.skipped))
"""


def test_two_processes_ingesting_overlapping_runs_lose_and_duplicate_nothing(tmp_path):
    sources = run_directories(FIXTURE)
    roots = [tmp_path / f"job-{i}" for i in range(6)]
    for i, root in enumerate(roots):  # six CI jobs, each with its own run
        copy_run(sources[i % len(sources)], root, f"20260101T00000{i}Z-job{i}")
    first, second = roots[:4], roots[2:]  # jobs 2 and 3 are ingested by both
    db = tmp_path / "store.sqlite"
    processes = []
    for name, directories in (("a", first), ("b", second)):
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER,
                    str(db),
                    str(tmp_path / f"ready-{name}"),
                    str(tmp_path / "go"),
                    *map(str, directories),
                ],
                cwd=REPO,
                env=subprocess_env(tmp_path),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        deadline = time.time() + 60
        while not all((tmp_path / f"ready-{n}").exists() for n in "ab"):
            assert time.time() < deadline and all(p.poll() is None for p in processes), [
                p.communicate() for p in processes
            ]
            time.sleep(0.01)
        (tmp_path / "go").touch()
        outputs = []
        for p in processes:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, (out, err)
            outputs.append([int(n) for n in out.split()])
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()

    expected = sorted(line.strip() for root in roots for line in record_lines(root))
    assert sorted(b for (b,) in stored(db, "SELECT body FROM records_with_body")) == expected
    assert sum(o[0] for o in outputs) == len(expected)  # each record was added by exactly one of them
    assert sum(o[1] for o in outputs) == len(roots)
    assert all(o[2] == 0 for o in outputs)
    assert stored(db, "SELECT count(*) FROM runs WHERE meta IS NOT NULL") == [(len(roots),)]


# -- the compiled record check agrees with the schema --------------------------------

SPOILERS = [
    lambda r: r.pop("run_id"),
    lambda r: r.update(schema=2),
    lambda r: r.update(run_id=""),
    lambda r: r.update(device=3),
    lambda r: r["backend"].pop("config"),
    lambda r: r["backend"].update(version=2),
    lambda r: r.update(record="checks"),
    lambda r: r.update(record="nonsense"),
    lambda r: r.update(reference=None),
    lambda r: r.update(count=0) if "count" in r else r.update(cases={"add": -1}),
    lambda r: r.update(count=True) if "count" in r else r.update(cases={"add": True}),
    lambda r: r.update(count=2.0) if "count" in r else r.update(cases={"add": 2.0}),
    lambda r: r.update(kind="values") if "kind" in r else r.pop("record"),
    lambda r: (
        r["expected"].update(error={"type": "E", "category": "nope", "message": ""})
        if "expected" in r
        else None
    ),
    lambda r: r["expected"].update(shape=[-1]) if "expected" in r else None,
    lambda r: r["signature"].pop("actual") if "signature" in r else None,
    lambda r: r["example"].update(inputs={"x0": 1}) if "example" in r else None,
    lambda r: r.update(ops={"Add": {"device": 1}}) if "ops" in r else None,
    lambda r: r.update(value=1.0) if "value" in r else None,
    lambda r: r.update(count=1) if "count" in r else r.update(cases={"add": 0}),  # at the minimum: valid
    lambda r: r.update(schema=True),  # true is not 1 in JSON
    lambda r: r.update(status="stale") if "status" in r else None,
    lambda r: r.update(known=None) if "known" in r else None,
    lambda r: r.update(extra_field=1),
]


def replay_of(divergence: dict) -> dict:
    """A replay record (none is in the fixture runs, which predate them) of a divergence's example."""
    common = {
        k: v
        for k, v in divergence.items()
        if k
        in ("schema", "run_id", "worker", "family", "spec", "backend", "device", "reference", "op", "example")
    }
    return {**common, "record": "replay", "known": "an-entry", "status": "reproduced"}


def test_problem_with_is_jsonschemas_verdict_on_spoiled_fixture_records():
    """And so is fastjsonschema's compiled check that decides before jsonschema is asked (a record it
    wrongly rejected would only cost time, one it wrongly accepted would be stored)."""
    schema = json.loads(records.SCHEMA_PATH.read_text())
    reference = jsonschema.Draft202012Validator(schema)
    originals = [json.loads(line) for line in record_lines(FIXTURE)]
    originals.append(replay_of(next(r for r in originals if r["record"] == "divergence")))
    assert {r["record"] for r in originals} == set(records.TYPES)
    verdicts = set()
    for original in originals:
        assert reference.is_valid(original) and records.problem_with(original) is None
        for spoil in SPOILERS:
            record = json.loads(json.dumps(original))
            spoil(record)
            verdict = reference.is_valid(record)
            assert (records.problem_with(record) is None) == verdict, (
                record,
                list(reference.iter_errors(record))[:1],
            )
            if record.get("record") in records.TYPES:
                assert records.conforms(record["record"])(record) == verdict, (record, verdict)
            verdicts.add(verdict)
    assert verdicts == {True, False}
    for junk in (None, [], "x", 3, {}, {"record": "checks"}):
        assert records.problem_with(junk) is not None and not reference.is_valid(junk)


def test_a_line_cut_short_by_a_dying_worker_is_reported_and_nothing_else_is_lost(tmp_path):
    run_directory = tmp_path / "results" / "run-cut"
    run_directory.mkdir(parents=True)
    whole = [json.dumps(checks_record(run_id="run-cut", spec=f"s[{i}]")) for i in range(5)]
    cut = json.dumps(checks_record(run_id="run-cut", spec="s[5]"))[:40]  # killed in the middle of this line
    (run_directory / "records-gw0.jsonl").write_text("\n".join(whole) + "\n" + cut)
    ingested = store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])
    assert ingested.records == 5
    assert len(ingested.skipped) == 1 and ingested.skipped[0].startswith(
        f"{run_directory / 'records-gw0.jsonl'}:6:"
    )
    again = store.ingest(tmp_path / "s.sqlite", [tmp_path / "results"])  # merging again adds nothing
    assert again.records == 0 and store.counts(tmp_path / "s.sqlite")["records"] == 5


# -- the CLI -------------------------------------------------------------------------


def assert_one_line_error(process, *phrases: str) -> str:
    text = output(process)
    assert process.returncode == 2, text
    assert "Traceback" not in text, text
    lines = nonempty_lines(process.stderr)
    assert len(lines) == 1, text
    for phrase in phrases:
        assert phrase in lines[0], text
    return lines[0]


def test_merge_prints_what_it_added_and_exits_1_on_skipped_lines(tmp_path):
    db = tmp_path / "s.sqlite"
    process = run(["-m", "compat", "merge", str(FIXTURE), "--store", str(db)], tmp_path)
    assert process.returncode == 0, output(process)
    assert (
        f"{len(run_directories(FIXTURE))} run(s) and {len(record_lines(FIXTURE))} record(s)" in process.stdout
    )
    for run_directory in run_directories(FIXTURE):
        assert run_directory.name in process.stdout
    again = run(["-m", "compat", "merge", str(FIXTURE), "--store", str(db)], tmp_path)
    assert again.returncode == 0 and "added 0 run(s) and 0 record(s)" in again.stdout, output(again)

    broken = tmp_path / "broken" / "run-x"
    broken.mkdir(parents=True)
    (broken / "records-gw0.jsonl").write_text(json.dumps(checks_record(run_id="run-x")) + "\n{oops\n")
    process = run(["-m", "compat", "merge", str(broken.parent), "--store", str(db)], tmp_path)
    assert process.returncode == 1, output(process)
    assert "Traceback" not in process.stderr
    assert nonempty_lines(process.stderr) == [
        line for line in nonempty_lines(process.stderr) if "records-gw0.jsonl:2:" in line
    ]
    assert len(nonempty_lines(process.stderr)) == 1
    assert "1 record(s)" in process.stdout


def test_merge_and_dashboard_error_paths_are_one_line_with_exit_2(tmp_path):
    not_results = tmp_path / "empty-dir"
    not_results.mkdir()
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"this is not an SQLite database, just some bytes" * 100)
    foreign = tmp_path / "foreign.sqlite"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE something (x)")
    connection.commit()
    connection.close()
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    cases = {
        "missing-dir": (["merge", str(tmp_path / "nope")], [str(tmp_path / "nope"), "no such directory"]),
        "not-results": (["merge", str(not_results)], [str(not_results), "not a compat results directory"]),
        "file-as-dir": (["merge", str(a_file)], [str(a_file), "not a directory"]),
        "corrupt-store": (["merge", str(FIXTURE), "--store", str(corrupt)], [str(corrupt)]),
        "foreign-store": (
            ["merge", str(FIXTURE), "--store", str(foreign)],
            [str(foreign), "not a compat store"],
        ),
        "dir-as-store": (["merge", str(FIXTURE), "--store", str(tmp_path)], [str(tmp_path), "directory"]),
        "dashboard-no-store": (
            ["dashboard", "--store", str(tmp_path / "none.sqlite"), "-o", str(tmp_path / "out")],
            [str(tmp_path / "none.sqlite")],
        ),
        "dashboard-corrupt": (
            ["dashboard", "--store", str(corrupt), "-o", str(tmp_path / "out")],
            [str(corrupt)],
        ),
        "dashboard-missing-results": (
            [
                "dashboard",
                "--results",
                str(tmp_path / "nope"),
                "--store",
                str(tmp_path / "x.sqlite"),
                "-o",
                str(tmp_path / "out"),
            ],
            ["no such directory"],
        ),
    }
    for name, (args, phrases) in cases.items():
        process = run(["-m", "compat", *args], tmp_path / name)
        line = assert_one_line_error(process, *phrases)
        assert line.startswith(f"compat {args[0]}: "), (name, line)
    assert corrupt.read_bytes().startswith(b"this is not")  # left alone
    assert not (tmp_path / "x.sqlite").exists()  # bad input: nothing created


OPENER = """
import sys, time
from pathlib import Path
from compat.results import store

db, go = Path(sys.argv[1]), Path(sys.argv[2])
deadline = time.time() + 60
while not go.exists() and time.time() < deadline:
    time.sleep(0.0005)
store.connect(db).close()
"""


def test_processes_creating_one_new_store_at_once_all_succeed(tmp_path):
    # Creating the schema and switching to WAL race; before the write lock covered
    # both, one of three openers failed with "database is locked" about every eighth time.
    for attempt in range(8):
        db, go = tmp_path / f"store-{attempt}.sqlite", tmp_path / f"go-{attempt}"
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(db), str(go)],
                cwd=REPO,
                env=subprocess_env(tmp_path),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        time.sleep(0.3)
        go.touch()
        for p in processes:
            _out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
        assert store.counts(db)["runs"] == 0


def test_the_columns_follow_the_records(tmp_path):
    """The records table is the columns ``store.FIELDS`` declares, and a divergence's key
    columns (what the dashboard groups by) hold its ``Key``."""
    connection = store.connect(tmp_path / "s.sqlite")
    columns = [row[1] for row in connection.execute("PRAGMA table_info(records)")]
    assert columns == ["id", *store.COLUMNS]
    record = records.from_json(divergence_record())
    row = dict(zip(store.COLUMNS, store.row_of(record, "digest", 1)))
    assert records.Key(*(row[c] for c in store.KEY_COLUMNS)) == record.key
