"""Set faults: unique values that break the standard's rule of equality."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault


class UniqueKeepsSignedZerosApart(ResultFault):
    """unique_values tells -0.0 from 0.0 (distinct values found by their bits, as a hash of the
    bytes would find them), where the standard's equality makes them one value."""

    name = "broken_unique_signed_zeros"
    family = "sets"
    catch = Catch(
        "test_unique_functions_count_each_nan_once_and_both_zeros_together",
        "unique_values",
        "shape",
        narrow="both and zeros",
    )

    def wrong(self, op, args, values):
        x = np.asarray(args[0]).reshape(-1)
        if op != "unique_values" or x.dtype.kind != "f":
            return None
        zeros = x[x == 0]
        if not (np.signbit(zeros).any() and (~np.signbit(zeros)).any()):
            return None
        at = int(np.searchsorted(values, 0.0))  # -0.0 before 0.0, where the one zero stood
        return np.concatenate([values[:at], np.array([-0.0, 0.0], values.dtype), values[at + 1 :]])
