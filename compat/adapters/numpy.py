"""NumPy: the semantic reference. Every other backend is compared with it."""

from __future__ import annotations

import numpy as np

from compat import dtypes
from compat.adapters import Adapter


class NumpyAdapter(Adapter):
    name = "numpy"
    requires = "numpy"
    namespace = "np"
    imports = ("import numpy as np",)

    def from_numpy(self, array, device):
        return array.copy()

    def to_numpy(self, value):
        return np.asarray(value)

    def dtype(self, name):
        return dtypes.to_numpy(name)

    def dtype_source(self, name):
        # NumPy's bfloat16 is ml_dtypes' (see compat.dtypes)
        return "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"

    def array_source(self, variable, dtype):
        return variable

    def device_of(self, value):
        return "cpu:0"
