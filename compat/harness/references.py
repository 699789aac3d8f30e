"""The references a checker compares a backend with, one per role of compat.judge.reference:
each gives its outcome of a case through the checker's runner (compat.harness.runner)."""

from __future__ import annotations

import numpy as np

from compat.adapters import Adapter
from compat.adapters.numpy_fd import FiniteDifferences
from compat.core import calls, dtypes, ops, special_cases
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.core.source import Exported
from compat.judge.accurate import accurate
from compat.judge.gradients import gradient_tolerance
from compat.judge.reference import Role


class NumPy:
    """The semantic reference: NumPy's outcome, its math functions' values computed in wider
    precision (compat.judge.accurate)."""

    role = Role.SEMANTIC

    def __init__(self, adapter: Adapter, runner) -> None:
        self.adapter, self.runner = adapter, runner

    @property
    def id(self) -> str:
        return self.adapter.id

    def outcome(self, case: Case) -> Outcome:
        handed = [a for a in case.args if isinstance(a, Exported)]
        if handed:  # another backend's array imported: NumPy's answer is the array's own values
            values = np.asarray(handed[0]).copy()
            return Outcome(values=values, dtype=dtypes.name_of(values.dtype), shape=values.shape)
        return accurate(self.adapter, case, self.runner.call(self.adapter, case))


class ByFiniteDifferences:
    """Derivatives by finite differences (numpy-fd), each part with its tolerance."""

    role = Role.FINITE_DIFFERENCES

    def __init__(self) -> None:
        self.adapter = FiniteDifferences()

    @property
    def id(self) -> str:
        return self.adapter.id

    def outcome(self, case: Case) -> Outcome:
        return gradient_tolerance(self.adapter, case.op, case.program, case.args)


class Framework:
    """Another framework's derivatives (the gradient reference)."""

    role = Role.FRAMEWORK

    def __init__(self, adapter: Adapter, runner) -> None:
        self.adapter, self.runner = adapter, runner

    @property
    def id(self) -> str:
        return self.adapter.id

    def outcome(self, case: Case) -> Outcome:
        return self.runner.call(self.adapter, case)


class OnDevice:
    """A backend on its reference device, as what a device under test is compared with (in the
    same execution mode: what a mode changes is InMode's to judge)."""

    role = Role.DEVICE

    def __init__(self, adapter: Adapter, device: str, runner=None, mode: str = "eager") -> None:
        self.adapter, self.device, self.runner, self.mode = adapter, device, runner, mode

    @property
    def id(self) -> str:
        return f"device:{self.device}"

    def outcome(self, case: Case) -> Outcome:
        return self.runner.call(
            self.adapter, case, self.adapter.placement.placement_on(self.device), self.mode
        )


class InMode:
    """A backend in an execution mode (eager), as what its other modes are compared with (on the
    device under test)."""

    role = Role.MODE

    def __init__(self, adapter: Adapter, mode: str, runner=None, device: str | None = None) -> None:
        self.adapter, self.mode, self.runner, self.device = adapter, mode, runner, device

    @property
    def id(self) -> str:
        return f"mode:{self.mode}"

    def outcome(self, case: Case) -> Outcome:
        return self.runner.call(self.adapter, case, self.device, self.mode)


class Promised:
    """What the backend promises for a case (an adapter fact, as ``Adapter.zero_order``), given
    as its outcome: the backend's result must be that one, bit for bit."""

    role = Role.PROMISE

    def __init__(self, fact: str, promised: Outcome) -> None:
        self.fact, self.promised = fact, promised

    @property
    def id(self) -> str:
        return f"promise:{self.fact}"

    def outcome(self, case: Case) -> Outcome:
        return self.promised


class Standard:
    """The result the standard states for each element of a special-case check, element ``i``
    meeting ``clauses[i]`` (compat.core.special_cases): the judge's step ``as_stated`` compares
    each element with it. Its outcome gives the shape a result must have."""

    role = Role.STANDARD
    id = "standard"

    def __init__(self, clauses: list) -> None:
        self.clauses = clauses

    def outcome(self, case: Case) -> Outcome:
        shape = np.shape(special_cases.elementwise(case.args)[0])
        return Outcome(values=np.zeros(shape), shape=shape)

    def stated(self, case: Case) -> str:
        """What the standard states for the case, in words (a reproducer prints it)."""
        said = []
        for clause, where in special_cases.by_clause(self.clauses):
            result = special_cases.expected(
                clause, tuple(a[where] for a in special_cases.elementwise(case.args))
            )
            value = "" if result is None else f": {result.tolist()}"
            said.append(f"{clause.standard}, {clause.section}: {clause.clause.replace('``', '')}{value}")
        return "; ".join(said)


class SignatureAdmits:
    """The standard's signature of a call whose every argument it admits (compat.core.calls): a
    result is due, whatever its values (NumPy's judge them where NumPy has one). Named ``standard``
    in records, as the special cases' stated results are."""

    role = Role.SIGNATURE
    id = "standard"

    def __init__(self, case: Case) -> None:
        self.case = case
        op = ops.get(case.op)
        found = calls.signature_of(op)
        kinds = calls.kinds_of(case.op, case.args, case.kwargs)
        given = ", ".join(f"{name}: {kind}" for name, kind in kinds if kind != "absent") or "no argument"
        where = found.source if found is not None else op.standard_name
        self.clause = f"{where} admits {given}"

    def outcome(self, case: Case) -> Outcome:
        return Outcome()

    def stated(self, case: Case) -> str:
        """What the standard states for the case, in words (a reproducer prints it)."""
        return f"a result: {self.clause}"


class OwnAnswer:
    """The backend's own answer to the question a case asks, asked another way: for
    ``result_type(A, B)``, the dtype of its own ``add`` of arrays of A and B (``question``, the
    case that asks it), or all of an answer that is a mapping (the dtypes it makes, by name,
    against those its inspection namespace lists). A backend whose two answers disagree diverges
    from itself."""

    role = Role.ITSELF

    def __init__(
        self, adapter: Adapter, question: Case, runner=None, device: str | None = None, mode: str = "eager"
    ) -> None:
        self.adapter, self.question, self.runner, self.device, self.mode = (
            adapter,
            question,
            runner,
            device,
            mode,
        )

    @property
    def id(self) -> str:
        return f"itself:{self.question.op}"

    def outcome(self, case: Case) -> Outcome:
        answer = self.runner.call(self.adapter, self.question, self.device, self.mode)
        if answer.raised or answer.names is not None:  # a mapping (which dtypes it makes): all of it
            return answer
        return Outcome(dtype=answer.dtype)
