"""Numerics faults: float results that lose precision, or mishandle a special value."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault
from compat.core import dtypes


class FloatResultFault(ResultFault):
    """A fault in the real float results of one operation: ``wrong_values`` gets the
    operands (as float64) and NumPy's values and returns the faulty values."""

    op = ""

    def wrong(self, op, args, values):
        if op == self.op and values.dtype.name in dtypes.REAL_FLOAT:
            operands = [np.asarray(a).astype(np.float64) for a in args]
            return np.asarray(self.wrong_values(operands, values)).astype(values.dtype)

    def wrong_values(self, operands: list[np.ndarray], values: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class MultiplyRoundsTowardZero(FloatResultFault):
    """Float multiply rounds toward zero instead of to nearest (a kernel that truncates):
    where the product is not exact, about half the results are one ULP too small in
    magnitude. float16, bfloat16 and float32 (whose products float64 holds exactly)."""

    name = "broken_multiply_rounding"
    family = "numerics"
    catch = Catch("test_elementwise_operations_on_special_values", "multiply", "value", narrow="multiply")
    op = "multiply"

    def wrong_values(self, operands, values):
        if values.dtype.name == "float64":
            return values
        exact = operands[0] * operands[1]
        rounded_away = np.isfinite(exact) & (np.abs(values.astype(np.float64)) > np.abs(exact))
        return np.where(rounded_away, np.nextafter(values, np.zeros((), values.dtype)), values)


class SmallSquareRootsFromFastReciprocal(FloatResultFault):
    """sqrt of inputs below 1e-6 in magnitude takes a fast path, x * rsqrt(x) with the
    hardware's reciprocal-square-root estimate and no Newton step: 3.7e-4 too large (the
    estimate's relative error, about 3000 float32 ULP), a difference no absolute tolerance sees."""

    name = "broken_small_sqrt"
    family = "numerics"
    catch = Catch("test_elementwise_operations_on_special_values", "sqrt", "value", narrow="sqrt")
    op = "sqrt"

    def wrong_values(self, operands, values):
        x = operands[0]
        return np.where((x > 0) & (x < 1e-6), values.astype(np.float64) * (1 + 3.7e-4), values)


class LogOfZeroIsNan(FloatResultFault):
    """log of +-0.0 is nan (a kernel that sends every x <= 0 down its domain-error branch);
    IEEE 754 and NumPy give -inf."""

    name = "broken_log_of_zero"
    family = "numerics"
    catch = Catch("test_elementwise_operations_on_special_values", "log", "value", narrow="log")
    op = "log"

    def wrong_values(self, operands, values):
        return np.where(operands[0] == 0, np.nan, values)


class TanhThreeUlpsOff(FloatResultFault):
    """tanh from a coarser rational approximation: three ULPs too large for 0.5 < |x| < 4,
    within a flat 4-ULP tolerance but beyond tanh's published accuracy (2 ULP in float32 and
    float64 for NumPy, glibc and CUDA alike; 1 in float16 and bfloat16, computed in float32)."""

    name = "broken_tanh_accuracy"
    family = "numerics"
    catch = Catch("test_elementwise_operations_on_special_values", "tanh", "value", narrow="tanh")
    op = "tanh"

    def wrong_values(self, operands, values):
        inside = (np.abs(operands[0]) > 0.5) & (np.abs(operands[0]) < 4)
        return np.where(inside, steps_up(values, 3), values)


def steps_up(values: np.ndarray, steps: int) -> np.ndarray:
    """Each nonzero finite value moved ``steps`` representable numbers towards +inf, through its
    bit pattern (NumPy's nextafter has no bfloat16)."""
    bits = values.view(f"u{values.itemsize}")
    moved = np.where(values.astype(np.float64) > 0, bits + steps, bits - steps).astype(bits.dtype)
    return moved.view(values.dtype)
