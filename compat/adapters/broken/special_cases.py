"""Special-case faults: a zero of the wrong sign, or a special value an implementation got wrong, where
IEEE 754 and the standard fix the result (what the oracle's sign-of-zero rule judges)."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, with_values
from compat.adapters.broken.numerics import FloatResultFault
from compat.adapters.numpy import NumpyAdapter

SIGNED_ZEROS = "test_signed_zeros_of_every_elementwise_function"


class NegativeIsZeroMinusX(FloatResultFault):
    """negative(x) computed as 0 - x, as a compiler that lowers negation to a subtraction does:
    negative(+0.0) is +0.0 (IEEE 754 flips the sign: -0.0); every other value is right."""

    name = "broken_negative_of_zero"
    family = "special_cases"
    catch = Catch(SIGNED_ZEROS, "negative", "value")
    op = "negative"

    def wrong_values(self, operands, values):
        return 0.0 - operands[0]


class CopysignIgnoresNegativeZero(FloatResultFault):
    """copysign(x1, x2) takes the sign from x2 < 0 instead of x2's sign bit: a -0.0 (or -NaN) second
    argument gives |x1| (the standard: the sign of x2, -0.0 included)."""

    name = "broken_copysign_of_negative_zero"
    family = "special_cases"
    catch = Catch(SIGNED_ZEROS, "copysign", "value")
    op = "copysign"

    def wrong_values(self, operands, values):
        return np.where(operands[1] < 0, -np.abs(operands[0]), np.abs(operands[0]))


class RoundOfSmallNegativeIsPositiveZero(FloatResultFault):
    """round of a negative number that rounds to zero (-0.4, -0.5) gives +0.0, as floor(x + 0.5)
    would (the standard and IEEE 754: -0.0)."""

    name = "broken_round_to_positive_zero"
    family = "special_cases"
    catch = Catch(SIGNED_ZEROS, "round", "value")
    op = "round"

    def wrong_values(self, operands, values):
        return np.where(values == 0, 0.0, values)


class RemainderByInfinityIsNan(FloatResultFault):
    """remainder(x1, +-inf) of a finite x1 is NaN, as x1 - x2 * floor(x1 / x2) gives it (0 * inf);
    the standard and NumPy: x1 where the signs agree, x2 where they differ (Python's %)."""

    name = "broken_remainder_by_infinity"
    family = "special_cases"
    catch = Catch(SIGNED_ZEROS, "remainder", "value")
    op = "remainder"

    def wrong_values(self, operands, values):
        return np.where(np.isfinite(operands[0]) & np.isinf(operands[1]), np.nan, values)


class Atan2OfZeroAndNegativeZero(FloatResultFault):
    """atan2(+-0, -0) is +-0, as atan(y / x) with the quadrant chosen by x < 0 would give it
    (the standard and C99: +-pi; -0 is a negative x)."""

    name = "broken_atan2_of_zeros"
    family = "special_cases"
    catch = Catch(SIGNED_ZEROS, "atan2", "value")
    op = "atan2"

    def wrong_values(self, operands, values):
        y, x = operands
        return np.where((y == 0) & (x == 0), y, values)


class MaximumOfZerosByArgumentOrder(NumpyAdapter):
    """A backend that promises IEEE 754-2019's order of zeros in maximum and minimum (-0 < +0,
    ``zero_order``, as JAX keeps it) whose kernel returns its first argument when the two compare
    equal (``a >= b ? a : b``, torch's and TensorFlow's answer): maximum(-0.0, +0.0) is -0.0 and
    minimum(+0.0, -0.0) is +0.0, so the answer depends on the order of the arguments."""

    name = "broken_maximum_zero_order"
    family = "special_cases"
    catch = Catch("test_promised_order_of_signed_zeros", "maximum", "value", narrow="maximum")
    zero_order = {"maximum": 0.0, "minimum": -0.0}

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op not in self.zero_order or outcome.raised or outcome.values is None:
            return outcome
        first, second = (np.asarray(a) for a in args[:2])
        ties = np.broadcast_to((first == 0) & (second == 0), outcome.values.shape)
        return with_values(outcome, np.where(ties, np.broadcast_to(first, ties.shape), outcome.values))
