"""Manipulation faults: arrays joined in the wrong dtype."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, with_values
from compat.adapters.numpy import NumpyAdapter


class ConcatenateKeepsTheFirstDtype(NumpyAdapter):
    """concatenate of arrays of different dtypes gives the first array's dtype, the others cast
    to it (as a kernel that allocates its result like its first input would), instead of the
    dtype they promote to: int8 with float32 gives int8."""

    name = "broken_concatenate_first_dtype"
    family = "manipulation"
    catch = Catch("test_concatenate_joins_and_promotes", "concatenate", "dtype")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "concatenate" or outcome.raised or outcome.values is None or not args[0]:
            return outcome
        first = np.asarray(args[0][0]).dtype
        if outcome.values.dtype == first:
            return outcome
        with np.errstate(all="ignore"):
            return with_values(outcome, outcome.values.astype(first))
