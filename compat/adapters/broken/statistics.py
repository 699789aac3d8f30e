"""Statistics faults: cumulative results that break the standard's include_initial, a NaN-ignoring
mean that counts the NaNs it ignores, a chunked (Dask) cumulative sum that restarts at each chunk."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault
from compat.adapters.dask import DaskAdapter, drawn_chunks


class CumsumInitialDropsLast(ResultFault):
    """cumsum with include_initial puts the 0 first but keeps x's length along the axis, so the
    last running sum (the total) is dropped: a shift where an extension is meant."""

    name = "broken_cumsum_include_initial"
    family = "statistics"
    catch = Catch("test_cumulative_sum_and_product_with_include_initial", "cumsum", "shape")

    def wrong(self, op, args, values):
        if op != "cumsum" or not self.kwargs.get("include_initial"):
            return None
        axis = self.kwargs.get("axis")
        along = 0 if axis is None else axis
        return np.delete(values, -1, axis=along)


class NanmeanCountsTheNans(ResultFault):
    """nanmean sums the elements that are not NaN but divides by the lane's whole length: the
    mean of [1, NaN] is 0.5, not 1."""

    name = "broken_nanmean_counts_nans"
    family = "statistics"
    catch = Catch("test_nan_ignoring_reductions", "nanmean", "value")

    def wrong(self, op, args, values):
        if op != "nanmean":
            return None
        x, axis, keepdims = np.asarray(args[0]), self.kwargs.get("axis"), self.kwargs.get("keepdims", False)
        lanes = x.size if axis is None else np.prod([x.shape[a] for a in np.atleast_1d(axis)])
        return (np.nansum(x, axis=axis, keepdims=keepdims) / max(lanes, 1)).astype(values.dtype)


def restarting_cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """cumulative_sum as a map_blocks of NumPy's cumsum over the drawn chunks: each chunk's running
    sum starts again from 0 (no carry of the chunks before it along the axis)."""
    import dask.array as da

    along = 0 if axis is None else axis % max(x.ndim, 1)
    x = x.reshape(-1) if axis is None else x
    split = x.rechunk(drawn_chunks(np.asarray(x)))
    sums = split.map_blocks(np.cumsum, axis=along, dtype=np.cumsum(np.zeros(1, x.dtype), dtype=dtype).dtype)
    if not include_initial:
        return sums
    shape = list(sums.shape)
    shape[along] = 1
    return da.concatenate([da.zeros(shape, dtype=sums.dtype), sums], axis=along)


class CumulativeSumRestartsAtChunks(DaskAdapter):
    """cumulative_sum of a chunked array restarts at every chunk boundary (each chunk summed on its
    own, as a map_blocks of cumsum without the carry of the chunks before it)."""

    name = "broken_chunked_cumulative_sum"
    family = "statistics"
    catch = Catch("test_cumulative_sum_and_product_with_include_initial", "cumsum", "value")
    OPS = {**DaskAdapter.OPS, "cumsum": restarting_cumulative_sum}
