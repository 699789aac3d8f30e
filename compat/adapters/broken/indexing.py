"""Indexing faults: reads and writes that break NumPy's indexing rules."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, with_values
from compat.adapters.numpy import NumpyAdapter
from compat.core.outcome import Outcome


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
    catch = Catch("test_basic_indexing", "getitem", "shape")

    def call(self, op, args, kwargs=None, device=None):
        if op == "getitem" and isinstance(args[0], np.ndarray):
            x, index = args[0], args[1]
            items = IndexItems.of(index)
            if any(isinstance(i, slice) and i.step is not None and i.step < 0 for i in items):
                changed = []
                for item, axis in zip(items, IndexItems.axes(items, x.ndim)):
                    if (
                        isinstance(item, slice)
                        and item.step is not None
                        and item.step < 0
                        and axis is not None
                    ):
                        picked = range(*item.indices(x.shape[axis]))
                        if picked:  # start one step later, keeping stop and step
                            later = picked[1:]
                            item = (
                                slice(later.start, later.stop if later.stop >= 0 else None, later.step)
                                if later
                                else slice(0, 0, item.step)
                            )
                    changed.append(item)
                args = (x, tuple(changed) if isinstance(index, tuple) else changed[0], *args[2:])
        return super().call(op, args, kwargs, device)


class AdvancedIndicesLeftInPlace(NumpyAdapter):
    """getitem: integer arrays separated by a slice (or None, or Ellipsis) keep
    their broadcast dimensions where the first of them stands, as if they were
    next to each other, instead of moving them to the front (x[:, a, :, b])."""

    name = "broken_advanced_order"
    family = "indexing"
    catch = Catch("test_advanced_indices_mixed_with_slices", "getitem", "shape")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "getitem" or outcome.raised or outcome.values is None or not isinstance(args[1], tuple):
            return outcome
        x, items = args[0], args[1]
        advanced = [n for n, item in enumerate(items) if IndexItems.is_int_array(item)]
        if len(advanced) < 2 or advanced[-1] - advanced[0] + 1 == len(advanced):
            return outcome  # adjacent (or a single array): NumPy keeps them in place already
        if any(
            not (IndexItems.is_int_array(i) or isinstance(i, slice) or i is None or i is Ellipsis)
            for i in items
        ):
            return outcome
        broadcast = np.broadcast_shapes(*(items[n].shape for n in advanced))
        consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
        before = 0  # result dimensions made by the items left of the first integer array
        for item in items[: advanced[0]]:
            before += max(x.ndim - consumed, 0) if item is Ellipsis else 1
        k = len(broadcast)
        return with_values(
            outcome, np.moveaxis(outcome.values, list(range(k)), list(range(before, before + k)))
        )


class OutOfBoundsIndicesClamped(NumpyAdapter):
    """getitem: out-of-range integers and integer-array entries are clipped
    into range, and a value returned, where NumPy raises IndexError."""

    name = "broken_clamp"
    family = "indexing"
    catch = Catch("test_invalid_indices_raise", "getitem", "error")

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
    catch = Catch("test_functional_update_with_duplicate_indices", "set_at", "error", narrow="set_at")

    def call(self, op, args, kwargs=None, device=None):
        if (
            op in ("set_at", "add_at", "setitem")
            and isinstance(args[1], tuple)
            and all(IndexItems.is_int_array(i) for i in args[1])
        ):
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
    catch = Catch("test_functional_update_with_duplicate_indices", "add_at", "value", narrow="add_at")

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
    catch = Catch("test_functional_update_with_duplicate_indices", "set_at", "value", narrow="set_at")

    def call(self, op, args, kwargs=None, device=None):
        if op == "set_at" and isinstance(args[1], tuple) and all(IndexItems.is_int_array(i) for i in args[1]):
            x, index, values = args[:3]
            reversed_index = tuple(i[::-1] for i in index)
            values = np.asarray(values)
            if values.ndim and values.shape[0] == index[0].shape[0]:
                values = values[::-1]
            args = (x, reversed_index, values, *args[3:])
        return super().call(op, args, kwargs, device)


class TooManyIndicesRaiseValueError(NumpyAdapter):
    """getitem: an index tuple longer than the array's rank raises ValueError where NumPy and
    the standard (indexing.rst) raise IndexError; its message still reads as an index error, so
    only the exception's class tells it (compat.core.errortypes)."""

    name = "broken_too_many_indices_value_error"
    family = "indexing"
    catch = Catch("test_every_invalid_index_kind_raises", "getitem", "error")

    def call(self, op, args, kwargs=None, device=None):
        if op == "getitem" and isinstance(args[0], np.ndarray):
            x, index = args[0], args[1]
            items = IndexItems.of(index)
            if sum(1 for item in items if item is not None and item is not Ellipsis) > x.ndim:
                error = ValueError(f"index out of range: too many indices for an array of rank {x.ndim}")
                return Outcome(error=error, error_category=self.values.classify(error))
        return super().call(op, args, kwargs, device)
