"""The cross-replay (compat.harness.crossreplay): a run of torch's row beside array_api_compat.torch's
where each row drew examples the other did not, settled at the end of the run by replaying each
row's minimal examples on the other: a removal the wrapper really makes, a divergence both rows have
(no change once replayed), an addition of the wrapper's; and a replay that diverges anew counts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from compat.core.case import Case
from compat.results import records, registry, wrapper_table

pytest.importorskip("torch")
pytest.importorskip("array_api_compat")

WRAPPER = "array-api:array_api_compat.torch"
RUN = "20261127T170000Z-c0ffee"
F32 = np.array([0.5, -1.0], dtype=np.float32)
# each row's checks: (op, args); torch's row and the wrapper's check every op, on different inputs
DRAWN = {
    "torch": [
        ("atan2", (F32, 2.0)),  # torch.atan2 takes no Python scalar; the wrapper converts it: removed
        ("__abs__", (np.array(6, dtype=np.uint32),)),  # no uint32 kernel, on both rows: no change
        ("matmul", (F32.reshape(1, 2), F32.reshape(2, 1))),
    ],
    WRAPPER: [
        ("atan2", (F32, F32)),
        ("__abs__", (np.array(6, dtype=np.int8),)),
        # the wrapper's matmul promotes int32 with float32 to float32, torch's own (and NumPy) float64
        ("matmul", (np.array([[1, 2]], dtype=np.int32), np.array([[1.0], [0.0]], dtype=np.float32))),
    ],
}


def drawn_run(folder, registry_path) -> list[dict]:
    """The two rows' records, as their specs would write them, and the run's description."""
    from compat.adapters import load_adapter
    from compat.harness.checker import Checker, Session, backend_info

    session = Session(load_adapter("numpy"), registry.load(registry_path))
    writer = records.RecordWriter(folder, "gw0")
    described = []
    for row, cases in DRAWN.items():
        adapter = load_adapter(row)
        described.append(backend_info(adapter).to_json())
        for family in ("promotion", "operators"):
            checker = Checker(adapter, family, f"compat/specs/{family}.py::spec[{row}]", session)
            for op, args in cases:
                if (family == "operators") == op.startswith("__"):
                    checker.replay(Case(op, args))
            common = dict(
                run_id=RUN, worker="gw0", family=family, spec=checker.spec, backend=checker.backend_info
            )
            common |= dict(device=None, reference="numpy")
            for record in checker.ledger.records([], common, []):
                writer.write(record)
            writer.write(records.Checks(**common, cases=dict(checker.ledger.cases)))
    writer.close()
    (folder / "run.json").write_text(json.dumps({"run_id": RUN, "backends": described}))
    return described


def changes(folder) -> list[tuple[str, str, str, str]]:
    run = records.load(folder).latest()
    return [(c.op, c.change, c.entry, wrapper_table.evidence(c)) for c in wrapper_table.changes(run)]


def test_the_rows_examples_replayed_on_each_other_settle_what_the_wrapper_changes(tmp_path):
    from compat.harness import crossreplay

    described = drawn_run(tmp_path, registry.DEFAULT)
    assert sorted(changes(tmp_path)) == [  # each row drew only one side's inputs
        ("__abs__", "unconfirmed", "torch-limited-uint16-uint32-uint64", "draws"),
        ("atan2", "unconfirmed", "torch-functions-take-no-python-scalar", "draws"),
        ("matmul", "unconfirmed", "compat-torch-matmul-promotes-first", "draws"),
    ]
    assert crossreplay.after_run(tmp_path, [registry.DEFAULT], described) == ([], 0)
    # the wrapper's matmul example refused on torch's row (mixed dtypes), and that replayed back on the
    # wrapper's (a second round): the wrapper removes a divergence of torch's that its row never drew
    assert sorted(changes(tmp_path)) == [
        ("atan2", "removed", "torch-functions-take-no-python-scalar", "replay"),
        ("matmul", "added", "compat-torch-matmul-promotes-first", "replay"),
        ("matmul", "removed", "torch-matmul-needs-same-dtype", "replay"),
    ]
    replayed = [r for r in records.load(tmp_path).latest().checks if r.spec == wrapper_table.CROSS_REPLAY]
    assert {(r.backend.id, r.family, tuple(r.cases)) for r in replayed} == {
        ("torch", "promotion", ("matmul",)),
        (WRAPPER, "operators", ("__abs__",)),
        (WRAPPER, "promotion", ("atan2",)),
        (WRAPPER, "promotion", ("matmul",)),  # the second round
    }


def test_a_replay_that_diverges_anew_is_counted_and_said(tmp_path):
    """With a registry that knows none of these divergences, what the replays show is new: a strict
    run fails on it (the controller sets the exit status), and a line says where it came from."""
    from compat.harness import crossreplay

    empty = tmp_path / "empty.toml"
    empty.write_text("")
    described = drawn_run(tmp_path / "run", empty)
    lines, new = crossreplay.after_run(tmp_path / "run", [empty], described)
    assert new == 3 and "3 example(s) showed a new divergence" in lines[0], lines
    replayed = [d for d in records.load(tmp_path / "run").latest().divergences if d.spec == "cross-replay"]
    assert sorted((d.backend.id, d.op, d.kind, d.status) for d in replayed) == [
        (WRAPPER, "__abs__", "error", "new"),  # torch's uint32 example
        (WRAPPER, "matmul", "dtype", "new"),  # torch's row's answer to the wrapper's example, replayed back
        ("torch", "matmul", "error", "new"),  # the wrapper's int32 @ float32 example
    ]


def test_a_child_that_fails_leaves_the_changes_unconfirmed_and_says_so(tmp_path):
    from compat.harness import crossreplay

    described = drawn_run(tmp_path, registry.DEFAULT)
    lines, new = crossreplay.after_run(tmp_path, [tmp_path / "no-such-registry.toml"], described)
    assert new == 0 and lines[0].startswith("compat: the wrappers' cross-replay failed (exit 1"), lines
    assert {change for _, change, _, _ in changes(tmp_path)} == {"unconfirmed"}
    # a run without a wrapper beside its framework replays nothing, nor does one where no spec ran
    # (harness tests only: no child, no records file, which would make the run print a summary)
    assert crossreplay.after_run(tmp_path, [registry.DEFAULT], described[:1]) == ([], 0)
    no_spec = tmp_path / "no-spec"
    no_spec.mkdir()
    (no_spec / "run.json").write_text(json.dumps({"run_id": RUN, "backends": described}))
    assert crossreplay.after_run(no_spec, [registry.DEFAULT], described) == ([], 0)
    assert [p.name for p in no_spec.iterdir()] == ["run.json"]
