"""What a wrapper changes (compat.results.wrapper_table): a hand-made run of torch's own row and
array_api_compat.torch's, where the wrapper removes one divergence, adds one, keeps one, and
leaves unchecked an operation torch diverges on (not a removal)."""

from compat.results import aggregate, records, registry, wrapper_table
from compat.results.registry import Registry
from compat.results.report import json_report, summary_table, wrapper_lines
from tests.helpers import checks_record, common, divergence_record, run_of
from tests.test_registry import entry, write

TORCH = {"name": "torch", "id": "torch", "version": "2.13.0", "config": {}}
WRAPPER = {
    "name": "array-api:array_api_compat.torch",
    "id": "array-api:array_api_compat.torch",
    "version": "1.16.0",
    "config": {},
    "wraps": TORCH,
}


def checked(backend: dict, family: str, *ops: str) -> dict:
    return checks_record({op: 5 for op in ops}) | {"family": family, "backend": backend}


def crossed(backend: dict, family: str, *ops: str) -> dict:
    """The checks of compat.harness.crossreplay: the other row's examples of ``ops``, replayed on this one."""
    return checked(backend, family, *ops) | {"spec": wrapper_table.CROSS_REPLAY}


def diverged(backend: dict, family: str, op: str, kind: str, known: str | None = None, **fields) -> dict:
    record = divergence_record(op) | {"family": family, "backend": backend, "kind": kind}
    return record | {"known": known, "status": "known" if known else "new", **fields}


RECORDS = (
    checked(TORCH, "promotion", "add", "mean", "cumsum", "sum"),
    checked(WRAPPER, "promotion", "add", "mean", "cumsum"),  # sum unchecked by the wrapper's share
    diverged(TORCH, "promotion", "mean", "error", known="torch-mean-needs-float"),  # the wrapper removes it
    diverged(TORCH, "promotion", "add", "dtype", known="torch-add"),  # kept
    diverged(WRAPPER, "promotion", "add", "dtype", known="torch-add"),
    diverged(WRAPPER, "promotion", "cumsum", "error"),  # the wrapper adds it
    diverged(TORCH, "promotion", "sum", "value", known="torch-sum"),  # not checked by the wrapper
    diverged(TORCH, "promotion", "add", "value", device="apu:0"),  # a device's: not the wrapper's business
    CROSSED := crossed(TORCH, "promotion", "cumsum"),  # the wrapper's cumsum example, replayed on torch's row
)


def test_the_table_lists_what_the_wrapper_removes_and_adds_where_both_rows_checked():
    found = wrapper_table.changes(run_of(*RECORDS))
    assert [(c.op, c.kind, c.change, c.entry, c.version) for c in found] == [
        ("mean", "error", "unconfirmed", "torch-mean-needs-float", "2.13.0"),  # no replay says so
        ("cumsum", "error", "added", "new", "1.16.0"),
    ]
    assert {(c.wrapper, c.wrapped, c.family) for c in found} == {
        ("array-api:array_api_compat.torch", "torch", "promotion")
    }
    assert wrapper_table.compared(run_of(*RECORDS)) == {
        ("array-api:array_api_compat.torch", "torch"): {"promotion": ["add", "cumsum", "mean"]}
    }


def typed(dtype: str) -> dict:
    return {"signature": {"inputs": f"{dtype},{dtype}", "expected": dtype, "actual": "float32"}}


def test_a_removal_is_listed_when_another_entry_of_the_same_op_and_kind_stays():
    """The wrapper removes float16's divergence (its own entry's replay no longer diverges there) and
    keeps bfloat16's: float16's is removed, with each distinct divergence and its examples."""
    found = wrapper_table.changes(
        run_of(
            checked(TORCH, "promotion", "add"),
            checked(WRAPPER, "promotion", "add"),
            diverged(
                TORCH, "promotion", "add", "dtype", known="torch-add-float16", **typed("float16"), count=3
            ),
            diverged(TORCH, "promotion", "add", "dtype", known="torch-add-bfloat16", **typed("bfloat16")),
            diverged(WRAPPER, "promotion", "add", "dtype", known="torch-add-bfloat16", **typed("bfloat16")),
            replay(WRAPPER, "torch-add-float16", "fixed") | {"op": "add"},
        )
    )
    assert [(c.op, c.kind, c.change, c.entry) for c in found] == [
        ("add", "dtype", "removed", "torch-add-float16")
    ]
    assert [(key.backend_id, key.inputs, n) for key, n in found[0].divergences] == [
        ("torch", "float16,float16", 3)
    ]
    assert found[0].examples == 3


def test_the_report_prints_the_table_and_the_json_holds_it():
    run = run_of(*RECORDS)
    text = "\n".join(wrapper_lines(run))
    rows = [line.split() for line in text.splitlines()[4:]]
    assert rows == [
        [
            "array-api:array_api_compat.torch",
            "torch",
            "promotion",
            "mean",
            "error",
            "unconfirmed",
            "torch-mean-needs-float",
            "1",
            "1",
            "draws",
        ],
        [
            "array-api:array_api_compat.torch",
            "torch",
            "promotion",
            "cumsum",
            "error",
            "added",
            "new",
            "1",
            "1",
            "replay",
        ],
    ], text
    data = json_report(run, Registry())["wrappers"]
    assert [(c["change"], c["entry"], c["divergences"], c["examples"]) for c in data] == [
        ("unconfirmed", "torch-mean-needs-float", 1, 1),
        ("added", "new", 1, 1),
    ]


def test_a_run_without_a_wrapper_has_no_table():
    plain = [r for r in RECORDS if r["backend"] is TORCH]
    assert wrapper_lines(run_of(*plain)) == []


def test_a_wrapped_backend_survives_the_json_round_trip():
    record = records.from_json(diverged(WRAPPER, "promotion", "add", "dtype"))
    assert record.backend.wraps == records.Backend("torch", "torch", "2.13.0", {})
    assert records.from_json(record.to_json()).backend == record.backend
    assert "wraps" not in records.from_json(diverged(TORCH, "promotion", "add", "dtype")).to_json()["backend"]


def replay(backend: dict, known: str, status: str) -> dict:
    example = {"call": "mean(x0)", "inputs": {"x0": "np.array([1], dtype=np.int8)"}}
    return (
        common()
        | {"record": "replay", "backend": backend, "op": "mean", "known": known, "status": status}
        | {"example": example}
    )


def test_an_entry_of_the_framework_that_its_wrapper_does_not_show_is_removed_not_fixed(tmp_path):
    reg = registry.load(
        write(tmp_path, entry("torch-mean", "torch") + entry("own-mean", "array-api:array_api_compat.torch"))
    )
    run = run_of(
        replay(TORCH, "torch-mean", "reproduced"),
        replay(WRAPPER, "torch-mean", "fixed"),
        replay(WRAPPER, "own-mean", "fixed"),
    )
    fixed = aggregate.fixed(map(aggregate.replayed, run.replays))
    assert [
        (f.id, f.backend)
        for f in aggregate.removed_by_wrappers(fixed, aggregate.wrapper_rows(run.replays), reg)
    ] == [("torch-mean", "array-api:array_api_compat.torch")]
    text = summary_table(run, reg)
    removed, fixed_part = text.split("removed by a wrapper")[1].split("fixed: ")
    assert "torch-mean on array-api:array_api_compat.torch" in removed and "own-mean" not in removed
    assert (
        "own-mean: fixed in array-api:array_api_compat.torch" in fixed_part and "torch-mean" not in fixed_part
    )
    data = json_report(run, reg)
    assert [f["id"] for f in data["removed_by_wrappers"]] == ["torch-mean"]
    assert [f["id"] for f in data["fixed"]] == ["own-mean"]


def test_a_row_lacks_a_signature_by_replay_where_the_entrys_example_of_the_op_diverges_no_more_there():
    """The wrapper's replay of torch-mean-needs-float's example of mean does not diverge: removed by
    replay; the new cumsum error has no entry, but its example was replayed on torch's row (the
    cross-replay) and does not diverge there: added by replay; without the replay, or where one still
    diverges, the change is unconfirmed: the rows draw different examples."""
    fixed = replay(WRAPPER, "torch-mean-needs-float", "fixed")
    found = wrapper_table.changes(run_of(*RECORDS, fixed))
    assert [(c.op, c.change, wrapper_table.evidence(c)) for c in found] == [
        ("mean", "removed", "replay"),
        ("cumsum", "added", "replay"),
    ]
    drawn_only = [r for r in RECORDS if r is not CROSSED]
    (_, cumsum) = wrapper_table.changes(run_of(*drawn_only, fixed))
    assert (cumsum.change, wrapper_table.evidence(cumsum)) == ("unconfirmed", "draws")
    # torch's mean example replayed on the wrapper's row by the cross-replay: removed by replay too
    (mean, _) = wrapper_table.changes(run_of(*RECORDS, crossed(WRAPPER, "promotion", "mean")))
    assert (mean.change, wrapper_table.evidence(mean)) == ("removed", "replay")
    # ... but not a divergence judged against the standard's stated value, which it does not replay
    stated = [r | {"reference": "standard"} if r.get("op") == "mean" and "kind" in r else r for r in RECORDS]
    (mean, _) = wrapper_table.changes(run_of(*stated, crossed(WRAPPER, "promotion", "mean")))
    assert (mean.change, wrapper_table.evidence(mean)) == ("unconfirmed", "draws")
    on_a_device = replay(WRAPPER, "torch-mean-needs-float", "fixed") | {"device": "apu:0"}
    again = replay(WRAPPER, "torch-mean-needs-float", "reproduced")
    for replays in ([on_a_device], [fixed, again]):  # not on the default device; one example still diverges
        (mean, _) = wrapper_table.changes(run_of(*RECORDS, *replays))
        assert (wrapper_table.evidence(mean), mean.change) == ("draws", "unconfirmed"), replays
