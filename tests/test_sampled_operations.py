"""On a share row (a device, a mode, a config) a spec with a param per input class and operation
(compat.core.params.operation_classes: the operator forms) checks the row's share of each
class's operations, the seed's; over the seeds every operation. A backend's own row, a plug-in
fault's row and the full-size profiles keep every param."""

from __future__ import annotations

from types import SimpleNamespace

from compat.core.row import Row
from compat.harness.plan import Plan, sampled, step

FORMS = [
    f"__{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor")
]
CLASSES = ("array op array", "array op Python scalar")


class Item:
    def __init__(self, row: Row, operands: str, op: str, marked: bool = True):
        self.nodeid = f"compat/specs/operators.py::test_binary_operators[{row}-{operands}-{op}]"
        self.callspec = SimpleNamespace(params={"xp": row, "operands": operands, "op": op})
        self.module = SimpleNamespace(__name__="compat.specs.operators")
        self.originalname = "test_binary_operators"
        self.marked = marked

    def get_closest_marker(self, name):
        return object() if name == "compat_sampled" and self.marked else None


def session(full_size=False, seed=0, mode_share=0.2):
    torch = SimpleNamespace(id="torch", plugin=None)
    return SimpleNamespace(adapters=[torch], seed=seed, plan=Plan(full_size=full_size, mode_share=mode_share))


def items_of(row: Row) -> list[Item]:
    return [Item(row, operands, op) for operands in CLASSES for op in FORMS]


def test_a_share_row_checks_its_share_of_each_class_and_the_seeds_cover_every_form():
    compiled = Row.of("torch", mode="compile")
    covered = {operands: set() for operands in CLASSES}
    for seed in range(5):  # k = 5 consecutive seeds
        kept, dropped = sampled(items_of(compiled), session(seed=seed))
        assert len(kept) + len(dropped) == len(FORMS) * len(CLASSES)
        for operands in CLASSES:
            forms = [i.callspec.params["op"] for i in kept if i.callspec.params["operands"] == operands]
            assert len(forms) == len(FORMS) // 5, (seed, operands, forms)  # a fifth: every fifth form
            covered[operands] |= set(forms)
        again, _ = sampled(items_of(compiled), session(seed=seed))
        assert [i.nodeid for i in again] == [i.nodeid for i in kept]  # the seed's, every time
    assert covered == {operands: set(FORMS) for operands in CLASSES}
    # a share smaller than one form in a class still checks one of its forms
    kept, _ = sampled(items_of(compiled), session(mode_share=0.01))
    assert len(kept) == len(CLASSES)


def test_the_backends_own_row_a_fault_the_thorough_profile_and_other_params_keep_every_param():
    eager = items_of(Row.of("torch"))
    assert sampled(eager, session()) == (eager, [])
    compiled = items_of(Row.of("torch", mode="compile"))
    assert sampled(compiled, session(full_size=True)) == (compiled, [])
    faulty = items_of(Row.of("torch", device="apu:0", fault="copy_truncate"))
    assert sampled(faulty, session()) == (faulty, [])
    unmarked = [Item(Row.of("torch", mode="compile"), "array op array", op, marked=False) for op in FORMS]
    assert sampled(unmarked, session()) == (unmarked, [])


def test_a_table_share_and_a_class_share_step_alike():
    assert step(100, 0.2, 5) == 5 and step(100, 0.2, 40) == 2 and step(3, 0.2, 5) == 1
    assert step(10, 0.01, 1) == 10  # one row of ten at the least
