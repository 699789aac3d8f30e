"""FFT faults: a normalization that the norm= mode does not ask for."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault


class OrthoFftUnscaled(ResultFault):
    """fft with norm="ortho" returns the unscaled ("backward") transform: every value sqrt(n)
    times too large, as a library that ignores the norm= keyword would."""

    name = "broken_fft_ortho_unscaled"
    family = "fft"
    catch = Catch("test_transforms_along_one_axis", "fft", "value")

    def wrong(self, op, args, values):
        if op != "fft" or self.kwargs.get("norm") != "ortho":
            return None
        return (values * np.sqrt(values.shape[self.kwargs.get("axis", -1)])).astype(values.dtype)
