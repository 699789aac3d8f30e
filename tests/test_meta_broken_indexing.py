"""Meta-tests for the indexing family (compat/specs/indexing.py): the harness must catch
indexing bugs planted in NumPy adapters (compat/adapters/broken/) registered through the
public path ``--adapter compat.adapters.broken:Name``, record each with the right op and
kind and an example call in Python syntax, give a reproducer that shows NumPy and the
broken adapter disagreeing, and fail the spec in strict mode.

The plants run side by side, each on its spec (``-k``), in one child pytest in strict mode,
which writes the records that report mode writes, and fails (tests/test_meta_broken_adapters.py
checks report mode's exit code). The seed is fixed, since one plant's run time varies a lot
from seed to seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pytest

from compat.adapters import broken
from compat.results import records
from tests.helpers import json_of, output, reproducer_lines, run_pytest, run_reproducer, side_by_side

pytestmark = [
    pytest.mark.xdist_group("meta-broken-indexing"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

SPEC = "compat/specs/indexing.py"


@dataclass(frozen=True)
class Plant:
    adapter: str  # class in compat.adapters.broken
    name: str  # its adapter name
    select: str  # -k expression
    op: str
    kinds: frozenset  # divergence kinds the plant may show (all of its records have one of them)


PLANTS = {
    # Most draws diverge, under one signature per dtype and set of index item kinds, and
    # Hypothesis shrinks each signature on its own: seed 0 records ~26 signatures in ~12 s,
    # while most seeds record 90-120 in 60-100 s (every seed tried found the bug).
    "negative_step": Plant(
        "NegativeStepSliceOffByOne",
        "broken_negative_step",
        "test_basic_indexing",
        "getitem",
        frozenset({"shape"}),
    ),
    # the spec draws every layout of advanced indices early (strategies.input_classes),
    # so the default 40 examples catch it under any seed
    "advanced_order": Plant(
        "AdvancedIndicesLeftInPlace",
        "broken_advanced_order",
        "test_advanced_indices_mixed_with_slices",
        "getitem",
        frozenset({"shape", "value"}),
    ),
    "clamp": Plant(
        "OutOfBoundsIndicesClamped",
        "broken_clamp",
        "test_invalid_indices_raise",
        "getitem",
        frozenset({"error"}),
    ),
    "duplicate_add": Plant(
        "AddAtLastWriteWins",
        "broken_duplicate_add",
        "test_functional_update_with_duplicate_indices and add_at",
        "add_at",
        frozenset({"value"}),
    ),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The plants' specs in strict mode (the default), with the helpers' empty registry."""
    where = tmp_path_factory.mktemp("meta-indexing")
    process = run_pytest(
        [
            SPEC,
            "-q",
            "--hypothesis-seed",
            "0",
            *side_by_side({plant.adapter: (plant.name, plant.select) for plant in PLANTS.values()}),
        ],
        where,
    )
    loaded = records.load(where / "results")
    assert loaded.problems == []
    (records_run,) = loaded.runs.values()
    found = json_of(records_run.divergences)
    assert {r["backend"]["name"] for r in found} <= {plant.name for plant in PLANTS.values()}, output(process)
    return found, process


def divergences(run, key) -> list[dict]:
    """The plant's divergence records (all of its op and kinds)."""
    plant = PLANTS[key]
    found, process = run
    found = [r for r in found if r["backend"]["name"] == plant.name]
    assert found, output(process)
    assert {r["op"] for r in found} == {plant.op}, [r["example"]["call"] for r in found]
    assert {r["kind"] for r in found} <= plant.kinds, [r["detail"] for r in found]
    for record in found:
        assert record["family"] == "indexing" and record["status"] == "new" and record["known"] is None
        fault = getattr(broken, plant.adapter)
        assert record["backend"]["adapter"] == f"{fault.__module__}:{fault.__qualname__}"
    return found


def simplest(found: list[dict]) -> dict:
    return min(found, key=lambda r: (len(r["reproducer"]), r["example"]["call"]))


def namespace(record: dict) -> dict:
    """np (and ml_dtypes if used) and the example's input arrays, rebuilt from their source."""
    names = {"np": np}
    if any("ml_dtypes" in source for source in record["example"]["inputs"].values()):
        names["ml_dtypes"] = pytest.importorskip("ml_dtypes")
    names.update({name: eval(source, dict(names)) for name, source in record["example"]["inputs"].items()})
    return names


def subscript(record: dict):
    """(x0, index) of a getitem example, the index read back from the call's subscript."""
    call = record["example"]["call"]
    assert call.startswith("x0[") and call.endswith("]"), call
    names = namespace(record)
    return names["x0"], eval("np.s_" + call[len("x0") :], names)


def result_lines(stdout: str, plant: Plant) -> tuple[str, str]:
    """What the reproducer printed for NumPy and for the broken adapter (labels cut off);
    they must differ."""
    reference, backend = (line.split(": ", 1)[1] for line in reproducer_lines(stdout, plant.name))
    assert reference != backend, stdout
    return reference, backend


def shown_shape(line: str) -> tuple[int, ...]:
    """The shape in an Outcome.describe() line: 'int32[2, 0] [...]' -> (2, 0)."""
    match = re.match(r"\w+\[([\d, ]*)\] ", line)
    assert match, line
    return tuple(int(v) for v in match.group(1).split(",") if v.strip())


def numbers(line: str) -> list[float]:
    """The values printed after the dtype (and shape) on a reproducer line."""
    shown = re.sub(r"^\w+(?:\[[\d, ]*\])? ", "", line)
    assert "..." not in shown, f"example too large to compare all values: {line}"
    return [float(v) for v in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+", shown)]


def items_of(index) -> tuple:
    return index if isinstance(index, tuple) else (index,)


# -- strict mode ----------------------------------------------------------------------


def check_strict_mode_fails_the_spec(run, key):
    """The run exits 1 and names the plant's divergences."""
    plant = PLANTS[key]
    _, process = run
    text = output(process)
    assert process.returncode == 1, text
    assert "new divergence(s) against numpy" in process.stdout, text
    kinds = "|".join(sorted(plant.kinds))
    assert re.search(rf"{plant.name} \w+ \[(?:{kinds})\] {plant.op}\(", process.stdout), text
    assert "Traceback" not in text


# -- (a) negative-step slices start one element late ---------------------------------------------


def test_negative_step_slice_off_by_one_is_a_shape_divergence(run, tmp_path):
    plant = PLANTS["negative_step"]
    found = divergences(run, "negative_step")
    for record in found:
        x, index = subscript(record)
        steps = [i.step for i in items_of(index) if isinstance(i, slice) and i.step is not None]
        assert any(step < 0 for step in steps), record["example"]["call"]
        truth = x[index]
        assert record["expected"]["shape"] == list(truth.shape)
        # one element fewer along each axis a negative-step slice selected from
        actual = record["actual"]["shape"]
        assert len(actual) == truth.ndim and actual != list(truth.shape)
        assert all(a in (e, e - 1) for a, e in zip(actual, truth.shape)), (actual, truth.shape)

    record = simplest(found)
    call = record["example"]["call"]
    assert call.startswith("x0[") and "::-" in call, call
    x, index = subscript(record)
    truth = x[index]
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert str(truth.tolist()) in reference
    assert shown_shape(backend) == tuple(record["actual"]["shape"]) != truth.shape

    check_strict_mode_fails_the_spec(run, "negative_step")


# -- (b) advanced indices separated by a slice left in place ---------------------------------------


def moved_to_first_array(truth: np.ndarray, x: np.ndarray, index: tuple) -> np.ndarray:
    """The result as if the broadcast index dimensions stood where the first integer array is."""
    arrays = [n for n, item in enumerate(index) if isinstance(item, np.ndarray)]
    rank = len(np.broadcast_shapes(*(index[n].shape for n in arrays)))
    spanned = x.ndim - sum(1 for item in index if item is not None and item is not Ellipsis)
    before = sum(max(spanned, 0) if item is Ellipsis else 1 for item in index[: arrays[0]])
    return np.moveaxis(truth, list(range(rank)), list(range(before, before + rank)))


def test_advanced_indices_left_in_place_is_detected(run, tmp_path):
    plant = PLANTS["advanced_order"]
    found = divergences(run, "advanced_order")
    for record in found:
        x, index = subscript(record)
        arrays = [n for n, item in enumerate(index) if isinstance(item, np.ndarray)]
        assert len(arrays) >= 2 and arrays[-1] - arrays[0] >= len(arrays), record["example"][
            "call"
        ]  # not adjacent
        truth = x[index]
        wrong = moved_to_first_array(truth, x, index)
        assert record["expected"]["shape"] == list(truth.shape)
        assert record["actual"]["shape"] == list(wrong.shape)
        if record["kind"] == "shape":
            assert wrong.shape != truth.shape
        else:
            assert wrong.shape == truth.shape and not np.array_equal(wrong, truth)

    record = simplest(found)
    assert record["example"]["call"].count("np.array(") >= 2
    x, index = subscript(record)
    truth = x[index]
    wrong = moved_to_first_array(truth, x, index)
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert str(truth.tolist()) in reference
    assert backend.startswith(f"int32{list(wrong.shape)} ")
    shown = numbers(backend.split(", ...", 1)[0])  # Outcome.describe() shows 8 values at most
    assert len(shown) == min(wrong.size, 8) and shown == list(wrong.reshape(-1)[:8])

    check_strict_mode_fails_the_spec(run, "advanced_order")


# -- (c) out-of-range indices clamped instead of raising ---------------------------------------------


def test_clamped_out_of_bounds_index_is_an_error_divergence(run, tmp_path):
    plant = PLANTS["clamp"]
    found = divergences(run, "clamp")
    for record in found:
        assert (record["signature"]["expected"], record["signature"]["actual"]) == ("index", "ok")
        assert record["expected"]["error"]["type"] == "builtins.IndexError"
        assert record["expected"]["error"]["category"] == "index"
        assert "error" not in record["actual"]
        x, index = subscript(record)
        with pytest.raises(IndexError):
            x[index]
        # what the plant returns: the entries clipped into range
        clipped = tuple(
            np.clip(item, -side, side - 1) if isinstance(item, (int, np.ndarray)) else item
            for item, side in zip(items_of(index), x.shape)
        )
        assert record["actual"]["shape"] == list(x[clipped].shape)
        assert record["actual"]["values"] == x[clipped].reshape(-1).tolist()

    record = simplest(found)
    assert record["example"]["call"].startswith("x0[")
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert reference.startswith("raised IndexError")
    assert backend.startswith("int32[") and "raised" not in backend

    check_strict_mode_fails_the_spec(run, "clamp")


# -- (d) add_at with duplicate indices keeps the last write --------------------------------------------


def add_at(x, index, values):
    y = x.copy()
    np.add.at(y, index, values)
    return y


def last_write_wins(x, index, values):
    y = x.copy()
    y[index] = x[index] + values
    return y


def test_add_at_keeping_the_last_write_is_a_value_divergence(run, tmp_path):
    plant = PLANTS["duplicate_add"]
    found = divergences(run, "duplicate_add")
    for record in found:
        call = record["example"]["call"]
        assert call.startswith("add_at(x0, (np.array(") and call.endswith(", x2)"), call
        names = namespace(record)
        x, index, values = eval(call, {**names, "add_at": lambda *args: args})
        rows = list(zip(*(a.tolist() for a in index)))
        assert len(set(rows)) < len(rows), call  # an index repeats
        truth, wrong = add_at(x, index, values), last_write_wins(x, index, values)
        assert record["expected"]["values"] == truth.reshape(-1).tolist()
        assert record["actual"]["values"] == wrong.reshape(-1).tolist() != record["expected"]["values"]

    record = simplest(found)
    names = namespace(record)
    x, index, values = eval(record["example"]["call"], {**names, "add_at": lambda *args: args})
    reference, backend = result_lines(run_reproducer(record, tmp_path), plant)
    assert numbers(reference) == list(add_at(x, index, values).reshape(-1))
    assert numbers(backend) == list(last_write_wins(x, index, values).reshape(-1))

    check_strict_mode_fails_the_spec(run, "duplicate_add")
