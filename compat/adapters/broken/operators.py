"""Operator faults: an operator path that breaks what NumPy's same operator does, while the
function beside it (np.remainder, int) stays right, as a framework's separate operator code could."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault
from compat.adapters.numpy import NumpyAdapter


class InPlaceRemainderKeepsDividendSign(ResultFault):
    """x %= y computes C's fmod: the result has the sign of the dividend x (-7.5 %= 2 gives -1.5),
    where NumPy's % (and the standard's) takes the sign of the divisor y (0.5). x % y is right."""

    name = "broken_in_place_remainder"
    family = "operators"
    catch = Catch("test_every_operator_form", "__imod__", "value")

    def wrong(self, op, args, values):
        if op == "__imod__":
            return np.fmod(args[0], args[1]).astype(values.dtype)
        return None


class IndexAcceptsFloat(NumpyAdapter):
    """operator.index(x) of a 0-d floating-point array gives int(x), truncated, where NumPy (and
    the standard: "must raise a TypeError") refuses anything but an integer dtype: x[i] with a
    float array i would then index."""

    name = "broken_index_of_float"
    family = "operators"
    catch = Catch("test_every_operator_form", "__index__", "error")

    def call(self, op, args, kwargs=None, device=None):
        if op == "__index__" and isinstance(args[0], np.ndarray) and args[0].dtype.kind == "f":
            op = "__int__"
        return super().call(op, args, kwargs, device)
