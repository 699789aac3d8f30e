"""Old records judged again, offline (compat.harness.rematch, ``report --rematch``), on records of
the first GPU run (fixtures/gpu-h200): a lost device is one crash and what its process wrote after
is void; a call that lost a child's device is a crash too, and what follows stands; a dtype the row
has not is counted, not a divergence; the device's contract and today's registry judge the rest."""

from __future__ import annotations

from dataclasses import replace

from compat.harness.rematch import Rematched, judged_again, rematch
from compat.results import records, registry
from tests.helpers import REPO, output, run

FIXTURE = REPO / "fixtures" / "gpu-h200"
DEVICES, CUPY = "20261128T064422Z-fbc3f4", "20261128T064419Z-c65b9d"
SECOND = "20261128T202959Z-8392c4"  # the second GPU check's torch@cuda:0


def rematched(run_id: str):
    recorded = records.load(FIXTURE, validate=True, run=run_id).latest()
    return recorded, rematch(recorded, registry.load(registry.DEFAULT))


def test_a_lost_device_is_one_crash_and_its_process_wrote_nothing_after_it():
    recorded, found = rematched(DEVICES)
    gw9 = [r for r in recorded.written if r.worker == "gw9"]
    lost = next(i for i, r in enumerate(gw9) if getattr(r, "op", "") == "take")  # the device-side assert
    kept = [r for r in found.run.written if r.worker == "gw9"]
    assert all(r.spec != s.spec for r in kept for s in gw9[lost + 1 :] if s.spec != gw9[lost].spec), kept
    crashes = [d for d in found.run.divergences if d.worker == "gw9" and d.kind == "crash"]
    assert [(d.op, d.reference) for d in crashes] == [("take", "numpy")], (
        crashes
    )  # once: not again vs the CPU
    assert crashes[0].actual["error"]["type"] == "compat.harness.isolation.DeviceLost"
    assert not [
        d for d in found.run.divergences if d.worker == "gw9" and "CUDA" in d.detail and d.kind != "crash"
    ]


def test_a_device_lost_in_a_child_process_spares_the_worker():
    recorded, found = rematched(DEVICES)
    before = [r for r in recorded.written if r.worker == "gw1"]
    after = [r for r in found.run.written if r.worker == "gw1"]
    assert len(after) == len(before) - 1, (before, after)  # the assert's record against the CPU only
    assert {d.kind for d in found.run.divergences if d.worker == "gw1" and "device-side" in d.detail} == {
        "crash"
    }


def test_a_run_that_ended_the_process_of_its_lost_device_voids_nothing():
    """Today's runs end the process a device-side assert left unusable (a DeviceLost crash) and run
    the rest in a new one: two such crashes of two specs in one worker are no poisoned process."""
    recorded, found = rematched(SECOND)
    crashes = [d for d in recorded.divergences if d.kind == "crash"]
    assert [d.spec.split("::")[1].partition("[")[0] for d in crashes] == [
        "test_gradient_conventions_survey",
        "test_item_in_place_add_and_subtract",
    ], crashes
    assert found.void == 0 and len(found.run.written) == len(recorded.written), found.lines()


def test_a_release_that_refuses_a_registered_behaviour_otherwise_matches_its_own_entry():
    """torch 2.11 refuses concatenate(axis=None) with a RuntimeError (the None taken for a dimension's
    name), 2.13 with a TypeError: an entry for the releases before 2.13 knows the first."""
    recorded, found = rematched(DEVICES)
    (before,) = [d for d in recorded.divergences if d.op == "concatenate"]
    (after,) = [d for d in found.run.divergences if d.op == "concatenate"]
    assert before.backend.version.startswith("2.11")
    assert (before.status, after.status, after.known) == (
        "new",
        "known",
        "torch-concatenate-axis-none-as-a-dimension-name",
    )


def test_the_devices_contract_judges_what_the_cpu_judged_bit_for_bit():
    recorded, found = rematched(DEVICES)
    within = {(d.backend.name, d.op) for d in found.run.divergences if d.status == "contract"}
    assert ("torch", "true_divide") in within and ("jax", "exp") in within, within
    assert all(d.contract for d in found.run.divergences if d.status == "contract")
    assert not [d for d in recorded.divergences if d.status == "contract"]  # the run judged them new


def test_a_record_too_long_to_judge_again_keeps_the_clause_its_run_found():
    """A record keeps its first 64 values: one its run found within the device's contract cannot be
    judged again offline and keeps the run's clause (the second H200 run's atan2 of 144 values read
    as new); one its run judged new stays new."""
    _, found = rematched(DEVICES)
    within = next(
        d for d in found.run.divergences if d.status == "contract" and len(d.actual.get("values", [])) > 1
    )
    cut = replace(within, actual={**within.actual, "values": within.actual["values"][:1]})
    kept = judged_again(cut, False, registry.load(registry.DEFAULT), Rematched(found.run))
    assert (kept.status, kept.contract) == ("contract", within.contract), kept
    new = replace(cut, status="new", contract=None)
    assert judged_again(new, False, registry.load(registry.DEFAULT), Rematched(found.run)).status == "new"


def test_a_dtype_the_row_has_not_is_counted_once_not_a_divergence():
    recorded, found = rematched(CUPY)
    refused = [d for d in recorded.divergences if "has no dtype bfloat16" in d.detail]
    assert refused and not [d for d in found.run.divergences if "has no dtype bfloat16" in d.detail]
    lacking = {what: n for c in found.run.checks for what, n in c.unsupported_cases.items()}
    assert lacking == {"dtype bfloat16": len(refused)}, lacking


def test_report_rematch_prints_what_changed(tmp_path):
    process = run(["-m", "compat", "report", str(FIXTURE), "--run", CUPY, "--rematch"], tmp_path)
    assert process.returncode == 0, output(process)
    assert process.stdout.startswith("rematched offline"), process.stdout[:300]
    assert "cupy: dtype bfloat16 (" in process.stdout and "4 cases not checked" in process.stdout, output(
        process
    )
