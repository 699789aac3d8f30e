"""Creation faults: a range one element short."""

from __future__ import annotations

from compat.adapters.broken.base import Catch, with_values
from compat.adapters.numpy import NumpyAdapter


class ArangeOneShortAtAFloatStep(NumpyAdapter):
    """arange with a float step leaves out its last element, as a length computed by
    floor((stop - start) / step) instead of ceil would wherever the quotient is not an
    integer (and by truncating a quotient a hair below one where it is)."""

    name = "broken_arange_float_step"
    family = "creation"
    catch = Catch("test_arange_length_and_values", "arange", "shape")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        step = args[2] if len(args) > 2 else (kwargs or {}).get("step", 1)
        if op != "arange" or outcome.raised or outcome.values is None or not isinstance(step, float):
            return outcome
        return with_values(outcome, outcome.values[:-1]) if outcome.values.size else outcome
