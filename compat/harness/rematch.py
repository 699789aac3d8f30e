"""Old records judged again, offline: ``python -m compat report DIR --rematch``.

A run's records keep what each divergence was matched against when it was written. When the
registry, the devices' contracts or compat's rules change (a record of torch 2.11 met an entry of
2.13's wording; a GPU run was judged bit for bit against its CPU), the same records are judged
again here, without the machine they came from:

- a device lost: a divergence whose error is what its row's framework raises for a device it lost
  (``Adapter.device_lost``) is a ``crash`` (DeviceLost, as a run now records it: the call is
  probed, compat.harness.runner). Where that happened in the worker's own process (a later spec's
  calls failed so too), the records that process wrote after it (the rest of its spec's, every
  later spec's) are void, as a run now never makes them: each worker's records are read in the
  order it wrote them;
- what a row has not: an error that is a namespace row's refusal of a dtype it lacks is counted as
  that unsupported dtype, not kept as a divergence;
- a crash or hang against the reference device or eager is NumPy's to judge, once;
- a device's contract (compat.core.contracts): a value divergence of a device row whose values the
  record keeps whole is judged by it, its ULPs from NumPy's correctly rounded result of the
  record's example (recomputed here);
- the registry: every divergence matched again (known, or new).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from compat.adapters import AdapterError, load_adapter, load_class
from compat.adapters.namespace import refused_dtype
from compat.core import contracts
from compat.core.outcome import from_json
from compat.core.parse import ParseError
from compat.harness.checker import Session
from compat.harness.references import NumPy
from compat.harness.runner import Runner
from compat.judge.contract import allowing
from compat.judge.oracle import Mismatch
from compat.results.records import Checks, Divergence, Observation, Run
from compat.results.registry import Example, Registry

LOST = "compat.harness.isolation.DeviceLost"


@dataclass
class Rematched:
    """A run judged again, and what the rematch changed."""

    run: Run
    void: int = 0  # records written after their process lost its device
    crashes: int = 0  # divergences that showed the device lost, now crashes
    unsupported: Counter = field(default_factory=Counter)  # (row, 'dtype <name>') -> records folded
    contract: int = 0  # divergences now within a device's contract
    statuses: Counter = field(default_factory=Counter)  # (old status, new status) -> distinct records

    def lines(self) -> list[str]:
        changed = sorted((f"{a} -> {b}: {n}" for (a, b), n in self.statuses.items() if a != b), key=str)
        return [
            f"rematched offline (python -m compat report --rematch): {self.void} records written after "
            f"their process lost its device were void, {self.crashes} became crashes, "
            f"{sum(self.unsupported.values())} were a dtype the row has not, {self.contract} are within a "
            f"device's contract; statuses changed: {', '.join(changed) or 'none'}"
        ]


def rematch(run: Run, registry: Registry) -> Rematched:
    """``run``'s records judged again by today's rules, contracts and ``registry`` (see the module)."""
    found = Rematched(Run(run.run_id, run.meta))
    for worker in sorted({r.worker for r in run.written}):
        written = [r for r in run.written if r.worker == worker]
        lost = [i for i, r in enumerate(written) if shows_lost_device(r)]
        poisoned = first_poisoned(written, lost)
        for i, record in enumerate(written):
            if poisoned is not None and i > poisoned and after(record, written[poisoned]):
                found.void += 1
                continue
            if isinstance(record, Divergence):
                record = judged_again(record, i in lost, registry, found)
                if record is None:
                    continue
            found.run.add(record)
    for (where, what), n in found.unsupported.items():
        found.run.add(unsupported_checks(run, where, what, n))
    return found


def first_poisoned(written: list, lost: list[int]) -> int | None:
    """Of a worker's records, the first that showed its device lost in the worker's own process: one
    after which a later spec's calls failed so too. A call a run made in a child process (torch's
    CUDA indexing was, before compat probed devices) lost only the child's device, and the specs
    after it ran in a working process."""
    return next((i for i in lost if any(written[j].spec != written[i].spec for j in lost if j > i)), None)


def after(record, lost) -> bool:
    """Whether ``record`` was written after the lost device's record in its process: a later spec's,
    or one of its own spec's that first showed later (the same example: the same call, again)."""
    if record.spec != lost.spec:
        return True
    first = getattr(record, "first_example", None)
    return first is None or lost.first_example is None or first >= lost.first_example


def shows_lost_device(record) -> bool:
    """A divergence whose error, or a survey cell whose value, is what its row's framework raises for
    a device it lost; not a DeviceLost crash, which a run records where it ended that process (or
    lost only a child's device): what the worker wrote after it, a new process wrote."""
    pattern = fact(record, "device_lost")
    if not pattern:
        return False
    if isinstance(record, Divergence):
        error = (record.actual or {}).get("error") or {}
        if error.get("type") == LOST:
            return False
        text = f"{error.get('type', '')}: {error.get('message', '')}"
    elif isinstance(record, Observation):
        text = record.value
    else:
        return False
    return bool(re.search(pattern, text))


def fact(record, name: str):
    """A class attribute of a record's adapter (module:Class), read without its framework; None where
    the adapter cannot be found (another compat's, or a third party's that is gone)."""
    try:
        return getattr(load_class(record.backend.adapter), name) if record.backend.adapter else None
    except AdapterError:
        return None


def judged_again(record: Divergence, lost: bool, registry: Registry, found: Rematched) -> Divergence | None:
    """The record as today's rules judge it, or None where it is no divergence any more."""
    before = record.status
    error = (record.actual or {}).get("error") or {}
    refused = refused_dtype(error.get("message", "")) if record.kind == "error" else None
    if refused is not None:
        found.unsupported[(record.where, f"dtype {refused}")] += 1
        return None
    if lost:
        found.crashes += 1
        record = as_crash(record)
    if record.kind in ("crash", "timeout") and record.against_device:
        return None  # judged against NumPy, once
    within = contract_clause(record)
    if within is not None:
        found.contract += 1
        record = replace(record, status="contract", contract=within, known=None)
    elif record.status not in ("standard", "departs"):
        entry = registry.match(record.backend, record.fields)
        record = replace(record, status="known" if entry else "new", known=entry.id if entry else None)
    found.statuses[(before, record.status)] += 1
    return record


def as_crash(record: Divergence) -> Divergence:
    """A record whose call found its device lost, as a run records that call now: a DeviceLost crash."""
    error = record.actual["error"]
    where = record.device or "its device"
    message = f"{error['message']}; {where} unusable after it (every later call of its process failed)"
    actual = {"error": {"type": LOST, "category": "crash", "message": message}}
    return replace(
        record,
        kind="crash",
        signature={**record.signature, "actual": "crash"},
        actual=actual,
        detail=f"raised DeviceLost (crash): {message}",
    )


def contract_clause(record: Divergence) -> str | None:
    """The clause of its device's contract that allows a value divergence, or None; where the record
    does not keep its example and values whole (a record keeps 64 values), the clause the run found."""
    contract = contracts.of(record.backend.name, record.device or fact(record, "reference_device"))
    if contract is None or record.kind != "value":
        return None
    actual = from_json(record.actual)
    try:
        case = Example(record.family, record.example["call"], record.example["inputs"]).case()
    except (ParseError, KeyError):
        return record.contract
    if actual is None or case.program is not None:
        return record.contract
    signature = record.signature
    mismatch = Mismatch("value", signature["expected"], signature["actual"], record.detail)
    clause = allowing(contract, case, mismatch, numpy().outcome, actual)
    return str(clause) if clause is not None else None


@functools.cache
def numpy() -> NumPy:
    """NumPy as the semantic reference: its outcomes, its math functions in wider precision."""
    adapter = load_adapter("numpy")
    return NumPy(adapter, Runner(Session(adapter, Registry())))


def unsupported_checks(run: Run, where: str, what: str, cases: int) -> Checks:
    """A checks record that counts the cases of a row folded into an unsupported dtype."""
    model = next(r for r in run.written if getattr(r, "where", None) == where)
    return Checks(
        run_id=run.run_id,
        worker="rematch",
        family=model.family,
        spec="rematch",
        backend=model.backend,
        device=model.device,
        reference=model.reference,
        cases={},
        unsupported={what: f"{model.backend.name} has no {what.removeprefix('dtype ')}"},
        unsupported_cases={what: cases},
    )
