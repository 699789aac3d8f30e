"""Broadcasting faults: operands aligned or reduced the wrong way."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, with_values
from compat.adapters.numpy import NumpyAdapter
from compat.core import ops


class AddBroadcastsWrongly(NumpyAdapter):
    """add of operands of different shapes: the result keeps its shape, but
    its values are rolled by one along the first stretched (size-1 or missing) axis."""

    name = "broken_broadcast"
    family = "broadcasting"
    catch = Catch("test_elementwise_operands_broadcast", "add", "value", narrow="add")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
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


class LowerRankFirstOperandSwapped(NumpyAdapter):
    """A binary elementwise operation whose first operand has the lower rank runs with its
    operands swapped, as a kernel that wants the larger operand first would if its caller
    forgot that the operation does not commute: right for add and maximum, wrong for
    subtract, less, true_divide, ..."""

    name = "broken_lower_rank_first"
    family = "broadcasting"
    catch = Catch("test_elementwise_operands_broadcast", "less", "value", narrow="first and lower and less")

    def call(self, op, args, kwargs=None, device=None):
        if (
            ops.get(op).elementwise
            and len(args) == 2
            and all(isinstance(a, np.ndarray) for a in args)
            and args[0].ndim < args[1].ndim
        ):
            args = (args[1], args[0])
        return super().call(op, args, kwargs, device)


class WhereConditionAlignedLeft(NumpyAdapter):
    """where(condition, x, y) with a condition of lower rank than x or y lines the condition
    up with their leading dimensions, not their trailing ones (tf.compat.v1.where's rule for
    a vector condition: it picks rows)."""

    name = "broken_where_leading"
    family = "broadcasting"
    catch = Catch("test_three_operands_broadcast", "where", "shape", narrow="where")

    def call(self, op, args, kwargs=None, device=None):
        if op == "where" and len(args) == 3 and isinstance(args[0], np.ndarray):
            condition, x, y = args
            rank = max(np.ndim(x), np.ndim(y))
            if 0 < condition.ndim < rank:
                args = (condition.reshape(condition.shape + (1,) * (rank - condition.ndim)), x, y)
        return super().call(op, args, kwargs, device)


class KeepdimsIgnoredForSeveralAxes(NumpyAdapter):
    """A reduction over a tuple of axes drops the reduced axes even with keepdims=True
    (keepdims honoured for one axis or all of them only)."""

    name = "broken_keepdims_tuple"
    family = "broadcasting"
    catch = Catch("test_reduction_with_keepdims_broadcasts_back", "sum", "shape", narrow="sum")

    def call(self, op, args, kwargs=None, device=None):
        kwargs = dict(kwargs or {})
        if ops.get(op).group == "reduction" and isinstance(kwargs.get("axis"), tuple):
            kwargs["keepdims"] = False
        return super().call(op, args, kwargs, device)
