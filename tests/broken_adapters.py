"""Deliberately broken adapters for the meta-tests (tests/test_meta_broken_adapters.py).

Each one is the NumPy adapter with one planted bug, registered through the
public path: ``pytest compat/specs/... --adapter tests.broken_adapters:Name``.
The harness must notice each bug as a divergence from NumPy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.core.outcome import Outcome
from compat.adapters.numpy import NumpyAdapter


def with_values(outcome: Outcome, values: np.ndarray) -> Outcome:
    """The outcome with other values (dtype and shape follow the values)."""
    return replace(outcome, values=values, dtype=values.dtype.name, shape=tuple(values.shape))


class Int8Uint8PromotesToInt8(NumpyAdapter):
    """(a) int8 with uint8 gives int8 (NumPy: int16), values cast."""

    name = "broken_int8_uint8"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        array_dtypes = sorted(a.dtype.name for a in args if isinstance(a, np.ndarray))
        if not outcome.raised and outcome.values is not None and array_dtypes == ["int8", "uint8"]:
            with np.errstate(all="ignore"):
                return with_values(outcome, outcome.values.astype(np.int8))
        return outcome


class Int32PlusFloatStaysInt32(NumpyAdapter):
    """(b) an int32 array with a Python float gives int32 (NumPy: float64), values cast."""

    name = "broken_int32_pyfloat"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
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
    """(d) float32 results are 1e-4 too large (about 840 ULP of float32)."""

    name = "broken_float32_value"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if not outcome.raised and outcome.values is not None and outcome.values.dtype == np.float32:
            return with_values(outcome, (outcome.values * np.float32(1 + 1e-4)).astype(np.float32))
        return outcome


# -- indexing (tests/test_meta_broken_indexing.py) ---------------------------------------

class IndexItems:
    """Helpers of the indexing plants below: an index's items and the axes they apply to."""

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
    """(indexing a) getitem: a slice with a negative step starts one element late
    (x[::-1] is x[-2::-1]), so it drops the element it should start with."""

    name = "broken_negative_step"

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
    """(indexing b) getitem: integer arrays separated by a slice (or None, or Ellipsis) keep
    their broadcast dimensions where the first of them stands, as if they were
    next to each other, instead of moving them to the front (x[:, a, :, b])."""

    name = "broken_advanced_order"

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
    """(indexing c) getitem: out-of-range integers and integer-array entries are clipped
    into range, and a value returned, where NumPy raises IndexError."""

    name = "broken_clamp"

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


class AddAtLastWriteWins(NumpyAdapter):
    """(indexing d) add_at with a repeated index adds once (the last write wins, as with
    x[i] = x[i] + v) instead of accumulating like np.add.at."""

    name = "broken_duplicate_add"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "add_at" or outcome.raised or outcome.values is None:
            return outcome
        x, index, values = args[:3]
        y = np.array(x, copy=True)
        y[index] = x[index] + values
        return with_values(outcome, y.astype(outcome.values.dtype))


# -- gradients: torch with one planted autodiff bug (tests/test_meta_broken_gradients.py)

from compat.adapters.torch import TorchAdapter  # noqa: E402 - the gradient plants need torch; the others do not


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
    OPS = {**TorchAdapter.OPS, "tanh": tanh_with_gradient_off}


class GradientNotReducedOverBroadcast(TorchAdapter):
    """Differentiates with respect to the inputs broadcast together, so a broadcast
    input's gradient keeps the broadcast shape instead of being summed back."""

    name = "broken_unreduced_gradient"
    OPS = {**TorchAdapter.OPS, "grad": grad_of_broadcast_inputs}


class Float64GradientsForFloat32(TorchAdapter):
    """Gradients come back as float64 whatever the input dtype."""

    name = "broken_float64_gradient"
    OPS = {**TorchAdapter.OPS, "grad": grad_in_float64}


# -- isolation (tests/test_isolation.py)

class AbortsOnNegativeInts(NumpyAdapter):
    """Kills its process on a negative Python int, as TensorFlow sometimes does; says so."""

    name = "aborts_on_negative_ints"

    @staticmethod
    def fatal(args):
        return any(isinstance(a, int) and a < 0 for a in args)

    def isolate(self, op, args):
        return self.fatal(args)

    def call(self, op, args, kwargs=None, device=None):
        if self.fatal(args):
            import os

            os.abort()
        return super().call(op, args, kwargs, device)


# -- casualties: third-party-style adapters that kill, hang or swamp their process
# (tests/test_isolation.py, tests/test_casualties.py)

class AbortsInFloat32Multiply(NumpyAdapter):
    """multiply of a float32 array aborts the process (SIGABRT); everything else is NumPy."""

    name = "aborts_in_float32_multiply"

    def call(self, op, args, kwargs=None, device=None):
        if op == "multiply" and any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args):
            import os

            os.abort()
        return super().call(op, args, kwargs, device)


class HangsInSubtract(NumpyAdapter):
    """subtract never returns (a sleeping loop: it holds no lock a watchdog would need)."""

    name = "hangs_in_subtract"

    def call(self, op, args, kwargs=None, device=None):
        if op == "subtract":
            import time

            while True:
                time.sleep(0.05)
        return super().call(op, args, kwargs, device)


class AllocatesWithoutBound(NumpyAdapter):
    """add allocates 64 MiB blocks, touched, until something stops it."""

    name = "allocates_without_bound"

    def call(self, op, args, kwargs=None, device=None):
        if op == "add":
            blocks = []
            while True:
                blocks.append(np.ones(8 << 20))
        return super().call(op, args, kwargs, device)


class SlowNumpy(NumpyAdapter):
    """Right, but every call takes 50 ms, as on a simulated or remote device: a run long
    enough for a test to kill one of its workers in the middle of a spec."""

    name = "slow_numpy"

    def call(self, op, args, kwargs=None, device=None):
        import time

        time.sleep(0.05)
        return super().call(op, args, kwargs, device)


# -- real backends in a config a registry entry covers (tests/test_registry_narrow.py) ---
# They keep the backend's name and config, so the shipped registry's entries for that
# backend apply to them; the bug each one plants is one a too-broad entry would hide.

from compat.adapters.jax import JaxAdapter  # noqa: E402 - imports jax only when it runs


class JaxX32Int64AsInt16(JaxAdapter):
    """JAX without x64, whose add gives int16 where it should give int32 (NumPy: int64):
    a 64-bit result that comes out narrower than JAX's documented 32-bit counterpart
    (run it as ``JaxX32Int64AsInt16[x32]``)."""

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op == "add" and not outcome.raised and outcome.values is not None and outcome.values.dtype == np.int32:
            return with_values(outcome, outcome.values.astype(np.int16))
        return outcome


class TorchUnsignedGetitemRaises(TorchAdapter):
    """PyTorch whose indexing of a uint16/uint32/uint64 tensor raises TypeError: a bug
    in the indexing family, with the unsigned dtypes PyTorch supports only in part."""

    def call(self, op, args, kwargs=None, device=None):
        if op == "getitem" and isinstance(args[0], np.ndarray) and args[0].dtype.name in ("uint16", "uint32", "uint64"):
            return Outcome(error=TypeError("planted: no indexing of unsigned tensors"), error_category="dtype")
        return super().call(op, args, kwargs, device)
