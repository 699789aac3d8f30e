"""On a share row (a device, an execution mode) an operation that several specs check beside
their own runs in one of them; a backend's own row, a plug-in fault's row and the full-size
profiles keep every param."""

from __future__ import annotations

from types import SimpleNamespace

from compat.core.row import Row
from compat.harness.plan import Plan, beside_once


class Item:
    def __init__(self, spec: str, row: Row, op: str, beside: bool = True):
        self.nodeid = f"compat/specs/x.py::{spec}[{row}-{op}]"
        self.callspec = SimpleNamespace(params={"xp": row, "op": op})
        self.beside = beside

    def get_closest_marker(self, name):
        return object() if name == "compat_beside" and self.beside else None


def session(full_size=False, seed=0):
    torch = SimpleNamespace(id="torch", plugin=None)
    return SimpleNamespace(adapters=[torch], seed=seed, plan=Plan(full_size=full_size, mode_share=0.2))


def items_of(row: Row) -> list[Item]:
    beside = [Item(spec, row, op) for spec in ("test_a", "test_b", "test_c") for op in ("sin", "cos")]
    return [*beside, Item("test_a", row, "add", beside=False)]


def test_a_share_row_runs_each_operation_beside_once_and_its_own_params_all():
    compiled = Row.of("torch", mode="compile")
    for seed in range(6):
        kept, dropped = beside_once(items_of(compiled), session(seed=seed))
        ops = sorted(item.callspec.params["op"] for item in kept)
        assert ops == ["add", "cos", "sin"], (seed, [i.nodeid for i in kept])
        assert len(dropped) == 4
    specs = {
        item.nodeid.split("::")[1].split("[")[0]
        for seed in range(12)
        for item in beside_once(items_of(compiled), session(seed=seed))[0]
    }
    assert specs == {"test_a", "test_b", "test_c"}  # over the seeds each spec meets the operation


def test_the_backends_own_row_a_fault_and_the_thorough_profile_keep_every_param():
    eager = items_of(Row.of("torch"))
    assert beside_once(eager, session()) == (eager, [])
    compiled = items_of(Row.of("torch", mode="compile"))
    assert beside_once(compiled, session(full_size=True)) == (compiled, [])
    faulty = items_of(Row.of("torch", mode="compile", fault="broken_thing"))
    assert beside_once(faulty, session()) == (faulty, [])
