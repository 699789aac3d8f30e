"""Deliberately broken adapters: each is a real adapter with one rule broken, as a
real backend could break it. They prove that the specs catch what they claim to
(``python -m compat detect``, compat's own meta-tests), and a user can run any of them
through the public path: ``pytest compat/specs --adapter compat.adapters.broken:Name``.

Rules of the house: a fault breaks one rule of NumPy's semantics the way a backend
could (a promotion table with one wrong cell, a kernel that wants its larger operand
first, a CPU fallback that leaves its result on the CPU), for every input the rule
covers, not for the inputs some spec happens to draw. Each class names its
``family``: the specs that state the rule it breaks (``compat/specs/<family>.py``).
The NumPy-based ones need nothing but NumPy; the gradient and placement ones are
PyTorch's adapter (placement: on compat's reference ``apu`` device) and need torch.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.adapters.numpy import NumpyAdapter
from compat.adapters.torch import TorchAdapter  # imports torch only when used
from compat.core import dtypes, ops
from compat.core.outcome import Outcome


def with_values(outcome: Outcome, values: np.ndarray) -> Outcome:
    """The outcome with other values (dtype and shape follow the values)."""
    return replace(outcome, values=values, dtype=values.dtype.name, shape=tuple(values.shape))


class Int8Uint8PromotesToInt8(NumpyAdapter):
    """int8 with uint8 gives int8 (NumPy: int16), values cast."""

    name = "broken_int8_uint8"
    family = "promotion"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        array_dtypes = sorted(a.dtype.name for a in args if isinstance(a, np.ndarray))
        if not outcome.raised and outcome.values is not None and array_dtypes == ["int8", "uint8"]:
            with np.errstate(all="ignore"):
                return with_values(outcome, outcome.values.astype(np.int8))
        return outcome


class Int32PlusFloatStaysInt32(NumpyAdapter):
    """An int32 array with a Python float gives int32 (NumPy: float64), values cast."""

    name = "broken_int32_pyfloat"
    family = "promotion"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        has_int32 = any(isinstance(a, np.ndarray) and a.dtype == np.int32 for a in args)
        has_float = any(type(a) is float for a in args)
        if has_int32 and has_float and not outcome.raised and outcome.values is not None and outcome.values.dtype.kind == "f":
            with np.errstate(all="ignore"):
                return with_values(outcome, outcome.values.astype(np.int32))
        return outcome


class AddBroadcastsWrongly(NumpyAdapter):
    """add of operands of different shapes: the result keeps its shape, but
    its values are rolled by one along the first stretched (size-1 or missing) axis."""

    name = "broken_broadcast"
    family = "broadcasting"

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


class Float32SlightlyOff(NumpyAdapter):
    """float32 results are 1e-4 too large (about 840 ULP of float32)."""

    name = "broken_float32_value"
    family = "promotion"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if not outcome.raised and outcome.values is not None and outcome.values.dtype == np.float32:
            return with_values(outcome, (outcome.values * np.float32(1 + 1e-4)).astype(np.float32))
        return outcome


class ZeroDimArraysPromoteLikeScalars(NumpyAdapter):
    """A 0-d array beside n-d arrays promotes like a Python scalar, weakly (as torch's
    0-d tensors do): int8 array + 0-d int64 array gives int8 (NumPy: int64)."""

    name = "broken_zero_dim_weak"
    family = "promotion"

    def call(self, op, args, kwargs=None, device=None):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        if ops.get(op).elementwise and any(a.ndim == 0 for a in arrays) and any(a.ndim > 0 for a in arrays):
            args = tuple(a.item() if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args)
        return super().call(op, args, kwargs, device)


# -- broadcasting ------------------------------------------------------------------------

class LowerRankFirstOperandSwapped(NumpyAdapter):
    """A binary elementwise operation whose first operand has the lower rank runs with its
    operands swapped, as a kernel that wants the larger operand first would if its caller
    forgot that the operation does not commute: right for add and maximum, wrong for
    subtract, less, true_divide, ..."""

    name = "broken_lower_rank_first"
    family = "broadcasting"

    def call(self, op, args, kwargs=None, device=None):
        if (ops.get(op).elementwise and len(args) == 2 and all(isinstance(a, np.ndarray) for a in args)
                and args[0].ndim < args[1].ndim):
            args = (args[1], args[0])
        return super().call(op, args, kwargs, device)


class WhereConditionAlignedLeft(NumpyAdapter):
    """where(condition, x, y) with a condition of lower rank than x or y lines the condition
    up with their leading dimensions, not their trailing ones (tf.compat.v1.where's rule for
    a vector condition: it picks rows)."""

    name = "broken_where_leading"
    family = "broadcasting"

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

    def call(self, op, args, kwargs=None, device=None):
        kwargs = dict(kwargs or {})
        if ops.get(op).group == "reduction" and isinstance(kwargs.get("axis"), tuple):
            kwargs["keepdims"] = False
        return super().call(op, args, kwargs, device)


# -- indexing ----------------------------------------------------------------------------

class IndexItems:
    """Helpers of the indexing faults below: an index's items and the axes they apply to."""

    @staticmethod
    def of(index) -> tuple:
        return index if isinstance(index, tuple) else (index,)

    @staticmethod
    def axes(items: tuple, ndim: int) -> list[int | None]:
        """The axis of x each index item applies to (None for None and Ellipsis, and for
        items beyond x's rank). Boolean arrays, which span several axes, are not handled."""
        consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
        axes, axis = [], 0
        for item in items:
            if item is Ellipsis:
                axes.append(None)
                axis += max(ndim - consumed, 0)
            elif item is None:
                axes.append(None)
            else:
                axes.append(axis if axis < ndim else None)
                axis += 1
        return axes

    @staticmethod
    def is_int_array(item) -> bool:
        return isinstance(item, np.ndarray) and item.dtype.kind in "iu"


class NegativeStepSliceOffByOne(NumpyAdapter):
    """getitem: a slice with a negative step starts one element late
    (x[::-1] is x[-2::-1]), so it drops the element it should start with."""

    name = "broken_negative_step"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        if op == "getitem" and isinstance(args[0], np.ndarray):
            x, index = args[0], args[1]
            items = IndexItems.of(index)
            if any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in items):
                changed = []
                for item, axis in zip(items, IndexItems.axes(items, x.ndim)):
                    if isinstance(item, slice) and item.step is not None and item.step < 0 and axis is not None:
                        picked = range(*item.indices(x.shape[axis]))
                        if picked:  # start one step later, keeping stop and step
                            later = picked[1:]
                            item = slice(later.start, later.stop if later.stop >= 0 else None, later.step) if later \
                                else slice(0, 0, item.step)
                    changed.append(item)
                args = (x, tuple(changed) if isinstance(index, tuple) else changed[0], *args[2:])
        return super().call(op, args, kwargs, device)


class AdvancedIndicesLeftInPlace(NumpyAdapter):
    """getitem: integer arrays separated by a slice (or None, or Ellipsis) keep
    their broadcast dimensions where the first of them stands, as if they were
    next to each other, instead of moving them to the front (x[:, a, :, b])."""

    name = "broken_advanced_order"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "getitem" or outcome.raised or outcome.values is None or not isinstance(args[1], tuple):
            return outcome
        x, items = args[0], args[1]
        advanced = [n for n, item in enumerate(items) if IndexItems.is_int_array(item)]
        if len(advanced) < 2 or advanced[-1] - advanced[0] + 1 == len(advanced):
            return outcome  # adjacent (or a single array): NumPy keeps them in place already
        if any(not (IndexItems.is_int_array(i) or isinstance(i, slice) or i is None or i is Ellipsis) for i in items):
            return outcome
        broadcast = np.broadcast_shapes(*(items[n].shape for n in advanced))
        consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
        before = 0  # result dimensions made by the items left of the first integer array
        for item in items[:advanced[0]]:
            before += max(x.ndim - consumed, 0) if item is Ellipsis else 1
        k = len(broadcast)
        return with_values(outcome, np.moveaxis(outcome.values, list(range(k)), list(range(before, before + k))))


class OutOfBoundsIndicesClamped(NumpyAdapter):
    """getitem: out-of-range integers and integer-array entries are clipped
    into range, and a value returned, where NumPy raises IndexError."""

    name = "broken_clamp"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        if op == "getitem" and isinstance(args[0], np.ndarray):
            x, index = args[0], args[1]
            items = IndexItems.of(index)
            changed = []
            for item, axis in zip(items, IndexItems.axes(items, x.ndim)):
                if axis is not None and x.shape[axis] > 0:
                    side = x.shape[axis]
                    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
                        item = min(max(int(item), -side), side - 1)
                    elif IndexItems.is_int_array(item):
                        item = np.clip(item, -side, side - 1).astype(item.dtype)
                changed.append(item)
            args = (x, tuple(changed) if isinstance(index, tuple) else changed[0], *args[2:])
        return super().call(op, args, kwargs, device)


class OutOfBoundsWritesDropped(NumpyAdapter):
    """set_at, add_at and x[index] = values skip the updates whose index lies beyond
    its axis and apply the rest, where NumPy raises IndexError (reads still raise)."""

    name = "broken_dropped_writes"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        if op in ("set_at", "add_at", "setitem") and isinstance(args[1], tuple) \
                and all(IndexItems.is_int_array(i) for i in args[1]):
            x, index, values = args[:3]
            inside = np.logical_and.reduce([(i >= -side) & (i < side) for i, side in zip(index, x.shape)])
            if not inside.all():
                values = np.asarray(values)
                kept = values[inside] if values.ndim and values.shape[0] == inside.shape[0] else values
                args = (x, tuple(i[inside] for i in index), kept, *args[3:])
        return super().call(op, args, kwargs, device)


class AddAtLastWriteWins(NumpyAdapter):
    """add_at with a repeated index adds once (the last write wins, as with
    x[i] = x[i] + v) instead of accumulating like np.add.at."""

    name = "broken_duplicate_add"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "add_at" or outcome.raised or outcome.values is None:
            return outcome
        x, index, values = args[:3]
        y = np.array(x, copy=True)
        y[index] = x[index] + values
        return with_values(outcome, y.astype(outcome.values.dtype))


class SetAtFirstWriteWins(NumpyAdapter):
    """set_at with a repeated index keeps the first value written there, not the last
    (a scatter that applies its updates in reverse order)."""

    name = "broken_duplicate_set"
    family = "indexing"

    def call(self, op, args, kwargs=None, device=None):
        if op == "set_at" and isinstance(args[1], tuple) and all(IndexItems.is_int_array(i) for i in args[1]):
            x, index, values = args[:3]
            reversed_index = tuple(i[::-1] for i in index)
            values = np.asarray(values)
            if values.ndim and values.shape[0] == index[0].shape[0]:
                values = values[::-1]
            args = (x, reversed_index, values, *args[3:])
        return super().call(op, args, kwargs, device)


# -- gradients: torch with one autodiff rule broken ---------------------------------------



def tanh_with_gradient_off(x):
    import torch

    return torch.tanh(x) + 0.01 * (torch.tanh(x) - torch.tanh(x).detach())


def grad_of_broadcast_inputs(f, *xs):
    import torch

    shape = torch.broadcast_shapes(*(x.shape for x in xs))
    xs = [x.detach().expand(shape).clone().requires_grad_() for x in xs]
    return torch.autograd.grad(f(*xs), xs)


def grad_in_float64(f, *xs):
    import torch

    xs = [x.detach().requires_grad_() for x in xs]
    return tuple(g.double() for g in torch.autograd.grad(f(*xs), xs))


class TanhGradientOffByOnePercent(TorchAdapter):
    """tanh's values are exact, its gradient is 1.01 times too large."""

    name = "broken_tanh_gradient"
    family = "gradients"
    OPS = {**TorchAdapter.OPS, "tanh": tanh_with_gradient_off}


class GradientNotReducedOverBroadcast(TorchAdapter):
    """Differentiates with respect to the inputs broadcast together, so a broadcast
    input's gradient keeps the broadcast shape instead of being summed back."""

    name = "broken_unreduced_gradient"
    family = "gradients"
    OPS = {**TorchAdapter.OPS, "grad": grad_of_broadcast_inputs}


class Float64GradientsForFloat32(TorchAdapter):
    """Gradients come back as float64 whatever the input dtype."""

    name = "broken_float64_gradient"
    family = "gradients"
    OPS = {**TorchAdapter.OPS, "grad": grad_in_float64}




# -- placement: torch on compat's reference apu device, with one placement rule broken ---

def maximum_on_the_host(x, y):
    import torch

    return torch.maximum(x.cpu(), y.cpu())


def minimum_on_the_host(x, y):
    import torch

    return torch.minimum(x.cpu(), y.cpu())


def add_int64_on_the_host(x, y):
    import torch

    if x.dtype == torch.int64 or y.dtype == torch.int64:
        return torch.add(x.cpu(), y.cpu())
    return torch.add(x, y)


def copy_that_stays(x, device):
    return x  # "already there": the device comparison forgot the device index or type


class MaximumMinimumLeftOnTheHost(TorchAdapter):
    """maximum and minimum have no kernel on the device: they fall back to the CPU and
    their result stays there (a fallback that forgets to copy back)."""

    name = "broken_minmax_on_host"
    family = "placement"
    OPS = {**TorchAdapter.OPS, "maximum": maximum_on_the_host, "minimum": minimum_on_the_host}


class Int64AddLeftOnTheHost(TorchAdapter):
    """add of int64 tensors has no kernel on the device (no 64-bit integer units): it falls
    back to the CPU and its result stays there."""

    name = "broken_int64_add_on_host"
    family = "placement"
    OPS = {**TorchAdapter.OPS, "add": add_int64_on_the_host}


class CopyToAnotherDeviceStays(TorchAdapter):
    """A copy to another device returns the tensor where it is."""

    name = "broken_copy_stays"
    family = "placement"
    OPS = {**TorchAdapter.OPS, "copy_to": copy_that_stays}


class FloatResultFault(NumpyAdapter):
    """A fault in the real float results of one operation: ``wrong`` gets the operands
    and NumPy's values and returns the faulty values."""

    op = ""

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != self.op or outcome.raised or outcome.values is None or outcome.dtype not in dtypes.REAL_FLOAT:
            return outcome
        with np.errstate(all="ignore"):
            operands = [np.asarray(a).astype(np.float64) for a in args]
            return with_values(outcome, np.asarray(self.wrong(operands, outcome.values)).astype(outcome.values.dtype))

    def wrong(self, operands: list[np.ndarray], values: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class MultiplyRoundsTowardZero(FloatResultFault):
    """Float multiply rounds toward zero instead of to nearest (a kernel that truncates):
    where the product is not exact, about half the results are one ULP too small in
    magnitude. float16, bfloat16 and float32 (whose products float64 holds exactly)."""

    name = "broken_multiply_rounding"
    family = "numerics"
    op = "multiply"

    def wrong(self, operands, values):
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
    op = "sqrt"

    def wrong(self, operands, values):
        x = operands[0]
        return np.where((x > 0) & (x < 1e-6), values.astype(np.float64) * (1 + 3.7e-4), values)


class LogOfZeroIsNan(FloatResultFault):
    """log of +-0.0 is nan (a kernel that sends every x <= 0 down its domain-error branch);
    IEEE 754 and NumPy give -inf."""

    name = "broken_log_of_zero"
    family = "numerics"
    op = "log"

    def wrong(self, operands, values):
        return np.where(operands[0] == 0, np.nan, values)


FAULTS = (
    Int8Uint8PromotesToInt8, Int32PlusFloatStaysInt32, Float32SlightlyOff, ZeroDimArraysPromoteLikeScalars,
    AddBroadcastsWrongly, LowerRankFirstOperandSwapped, WhereConditionAlignedLeft, KeepdimsIgnoredForSeveralAxes,
    NegativeStepSliceOffByOne, AdvancedIndicesLeftInPlace, OutOfBoundsIndicesClamped, OutOfBoundsWritesDropped,
    AddAtLastWriteWins, SetAtFirstWriteWins,
    TanhGradientOffByOnePercent, GradientNotReducedOverBroadcast, Float64GradientsForFloat32,
    MaximumMinimumLeftOnTheHost, Int64AddLeftOnTheHost, CopyToAnotherDeviceStays,
    MultiplyRoundsTowardZero, SmallSquareRootsFromFastReciprocal, LogOfZeroIsNan,
)  # every fault, by family: what python -m compat detect runs
