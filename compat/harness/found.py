"""What a check found: the case, both outcomes, what differs, and the registry entries that
know it; and the exception that carries a new one out of a Hypothesis test.

The exception's type is unique to the divergence's signature, so Hypothesis shrinks each
distinct new divergence to its own minimal example and replays it last; the exceptions
that escape ``@given`` are those minimal examples (``unwrap``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from compat.adapters import Adapter
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.judge import oracle
from compat.judge.reference import Reference
from compat.results.registry import Entry


@dataclass
class Found:
    """A case on which the backend disagreed with the reference."""

    case: Case
    expected: Outcome
    actual: Outcome
    mismatches: list[oracle.Mismatch]
    known: list[Entry | None]
    reference: Reference  # what the backend was compared with
    follows: str | None = None  # the standard's clause whose stated result the values hold (not NumPy's)
    departs: bool = False  # against the standard: the backend departs from it as NumPy does

    def size(self) -> tuple[int, int]:
        """Smaller is simpler: fewer elements (and program nodes), then shorter source."""
        return self.case.size(), len(self.case.call()) + sum(
            len(s) for s in self.case.inputs_source().values()
        )

    def outcomes(self, mismatch: oracle.Mismatch) -> tuple[Outcome, Outcome]:
        """The two results a mismatch is about (one part of a multi-result call)."""
        if mismatch.part is None:
            return self.expected, self.actual
        # one side may be a single result where the other has parts (oracle.compare_parts)
        return (self.expected.parts or [self.expected])[mismatch.part], (self.actual.parts or [self.actual])[
            mismatch.part
        ]


class NewDivergence(AssertionError):
    """A new divergence, raised inside Hypothesis tests; one subclass per signature (see module doc)."""

    found: Found


@functools.cache
def divergence_type(key: tuple) -> type[NewDivergence]:
    """One exception type per signature, the same for every example that shows it."""
    return type("NewDivergence", (NewDivergence,), {"__module__": __name__})


def describe(found: Found, backend: Adapter) -> str:
    kinds = ", ".join(f"{m.kind}: {m.detail}" for m in found.mismatches)
    return f"{backend.id} diverges on {found.case.call()}: {kinds}"


def unwrap(error: BaseException | None) -> tuple[list[Found], list[BaseException]]:
    """Split what escaped a test into divergences and genuine errors."""
    if error is None:
        return [], []
    if isinstance(error, NewDivergence):
        return [error.found], []
    if isinstance(error, BaseExceptionGroup):
        found, others = [], []
        for inner in error.exceptions:
            f, o = unwrap(inner)
            found += f
            others += o
        return found, others
    return [], [error]
