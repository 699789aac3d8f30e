"""Deliberately broken adapters for the meta-tests (tests/test_meta_broken_adapters.py).

Each one is the NumPy adapter with one planted bug, registered through the
public path: ``pytest compat/specs/... --adapter tests.broken_adapters:Name``.
The harness must notice each bug as a divergence from NumPy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.adapters import Outcome
from compat.adapters.numpy import NumpyAdapter


def with_values(outcome: Outcome, values: np.ndarray) -> Outcome:
    """The outcome with other values (dtype and shape follow the values)."""
    return replace(outcome, values=values, dtype=values.dtype.name, shape=tuple(values.shape))


class Int8Uint8PromotesToInt8(NumpyAdapter):
    """(a) int8 with uint8 gives int8 (NumPy: int16), values cast."""

    name = "broken_int8_uint8"

    def run(self, op, args, kwargs=None, device=None):
        outcome = super().run(op, args, kwargs, device)
        array_dtypes = sorted(a.dtype.name for a in args if isinstance(a, np.ndarray))
        if not outcome.raised and outcome.values is not None and array_dtypes == ["int8", "uint8"]:
            with np.errstate(all="ignore"):
                return with_values(outcome, outcome.values.astype(np.int8))
        return outcome


class Int32PlusFloatStaysInt32(NumpyAdapter):
    """(b) an int32 array with a Python float gives int32 (NumPy: float64), values cast."""

    name = "broken_int32_pyfloat"

    def run(self, op, args, kwargs=None, device=None):
        outcome = super().run(op, args, kwargs, device)
        has_int32 = any(isinstance(a, np.ndarray) and a.dtype == np.int32 for a in args)
        has_float = any(type(a) is float for a in args)
        if has_int32 and has_float and not outcome.raised and outcome.values is not None and outcome.values.dtype.kind == "f":
            with np.errstate(all="ignore"):
                return with_values(outcome, outcome.values.astype(np.int32))
        return outcome


class AddBroadcastsWrongly(NumpyAdapter):
    """(c) add of operands of different shapes: the result keeps its shape, but
    its values are rolled by one along the first stretched (size-1 or missing) axis."""

    name = "broken_broadcast"

    def run(self, op, args, kwargs=None, device=None):
        outcome = super().run(op, args, kwargs, device)
        operands = [a for a in args if isinstance(a, np.ndarray)]
        if op != "add" or outcome.raised or outcome.values is None or len({a.shape for a in operands}) < 2:
            return outcome
        result = outcome.values
        for axis in range(result.ndim):
            from_right = result.ndim - axis
            stretched = any(a.ndim < from_right or a.shape[a.ndim - from_right] == 1 for a in operands)
            if result.shape[axis] > 1 and stretched:
                return with_values(outcome, np.roll(result, 1, axis=axis))
        return outcome


class Float32SlightlyOff(NumpyAdapter):
    """(d) float32 results are 1e-4 too large (about 840 ULP of float32)."""

    name = "broken_float32_value"

    def run(self, op, args, kwargs=None, device=None):
        outcome = super().run(op, args, kwargs, device)
        if not outcome.raised and outcome.values is not None and outcome.values.dtype == np.float32:
            return with_values(outcome, (outcome.values * np.float32(1 + 1e-4)).astype(np.float32))
        return outcome
