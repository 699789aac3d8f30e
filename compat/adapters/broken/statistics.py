"""Statistics faults: cumulative results that break the standard's include_initial, a NaN-ignoring
mean that counts the NaNs it ignores."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault


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
