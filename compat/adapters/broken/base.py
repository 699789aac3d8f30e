"""What the faults share: an outcome with other values, and a fault in result values."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from compat.adapters.numpy import NumpyAdapter
from compat.core.outcome import Outcome


@dataclass(frozen=True)
class Catch:
    """Where a fault must show (tests/test_meta_faults.py checks it): a divergence of ``kind`` in
    ``op``, recorded by ``spec`` (a test of compat/specs/<family>.py), on the spec's params
    that ``narrow`` selects (a -k expression; "" for all of them)."""

    spec: str
    op: str
    kind: str
    narrow: str = ""


def with_values(outcome: Outcome, values: np.ndarray) -> Outcome:
    """The outcome with other values (dtype and shape follow the values)."""
    return replace(outcome, values=values, dtype=values.dtype.name, shape=tuple(values.shape))


class ResultFault(NumpyAdapter):
    """A fault in the values of some results: ``wrong`` gets the operation, its arguments
    and NumPy's values, and returns the faulty values, or None where the rule is kept; the
    call's keyword arguments are ``self.kwargs`` meanwhile."""

    def call(self, op, args, kwargs=None, device=None):
        self.kwargs = kwargs or {}
        outcome = super().call(op, args, kwargs, device)
        if outcome.raised or outcome.values is None:
            return outcome
        with np.errstate(all="ignore"):
            values = self.wrong(op, args, outcome.values)
        return outcome if values is None else with_values(outcome, values)

    def wrong(self, op: str, args: tuple, values: np.ndarray) -> np.ndarray | None:
        raise NotImplementedError
