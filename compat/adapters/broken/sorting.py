"""Searching and sorting faults: an order that breaks the standard's rule for NaN or ties, a chunked
(Dask) argmax that forgets its chunk's offset."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault
from compat.adapters.dask import DaskAdapter, drawn_chunks


class SortPutsNanFirst(ResultFault):
    """sort treats NaN as smaller than every number (a comparator that sends each comparison
    with NaN the same way): ascending, NaN comes first; descending, last."""

    name = "broken_sort_nan_first"
    family = "sorting"
    catch = Catch("test_sort_and_argsort_order_nan_and_ties", "sort", "value", narrow="NaN")

    def wrong(self, op, args, values):
        if op != "sort" or values.dtype.kind != "f":
            return None
        axis = self.kwargs.get("axis", -1)
        lanes = np.moveaxis(values, axis, -1)
        nan = np.isnan(lanes)
        # NaN to the front ascending (to the back descending), the numbers keep their order
        first = not self.kwargs.get("descending", False)
        order = np.argsort(~nan if first else nan, axis=-1, stable=True)
        return np.moveaxis(np.take_along_axis(lanes, order, axis=-1), -1, axis)


class ArgmaxLastOfTies(ResultFault):
    """argmax returns the last of tied maxima (a reduction that keeps a later index on equality:
    >= where > is meant), the last NaN where there are several."""

    name = "broken_argmax_last_tie"
    family = "sorting"
    catch = Catch("test_argmax_and_argmin_take_the_first_of_ties", "argmax", "value")

    def wrong(self, op, args, values):
        if op != "argmax":
            return None
        x, axis = np.asarray(args[0]), self.kwargs.get("axis")
        lanes = x.reshape(-1) if axis is None else x
        along = 0 if axis is None else axis
        backwards = np.argmax(np.flip(lanes, axis=along), axis=along, keepdims=True)
        last = lanes.shape[along] - 1 - backwards
        return last.reshape(values.shape)


def within_chunk_argmax(x, /, *, axis=None, keepdims=False):
    """argmax over the drawn chunks that keeps the winning chunk's own index of its largest
    element: the offset of that chunk along the axis is never added."""
    import dask.array as da

    values = np.asarray(x)
    lanes = values.reshape(-1) if axis is None else values
    along = 0 if axis is None else axis % values.ndim
    starts = np.concatenate([[0], np.cumsum(drawn_chunks(lanes)[along])[:-1]])
    index = np.argmax(lanes, axis=along, keepdims=keepdims)
    within = index - starts[np.searchsorted(starts, index, side="right") - 1]
    if axis is None and keepdims:
        within = within.reshape((1,) * values.ndim)
    return da.from_array(within)


class ArgmaxWithinChunk(DaskAdapter):
    """argmax of a chunked array gives the index of the largest element within its chunk, not
    within the array (the chunk's offset along the axis left out)."""

    name = "broken_chunked_argmax"
    family = "sorting"
    catch = Catch("test_argmax_and_argmin_take_the_first_of_ties", "argmax", "value")
    OPS = {**DaskAdapter.OPS, "argmax": within_chunk_argmax}
