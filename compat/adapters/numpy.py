"""NumPy: the semantic reference. Every other backend is compared with it."""

from __future__ import annotations

import numpy as np

from compat.core import dtypes
from compat.adapters import Adapter


class NumpyAdapter(Adapter):
    name = "numpy"
    requires = "numpy"
    namespace = "np"
    imports = ("import numpy as np",)

    OPS = {
        "norm": "np.linalg.norm",
        # placement: NumPy has one device; its copies and compiled calls are the plain ones
        "copy_to": "lambda x, device: x.copy()",
        "relu": "lambda x: np.maximum(x, np.zeros((), x.dtype))",
        "compiled_add": "np.add",
        "set_at": "def set_at(x, index, values):\n    y = x.copy()\n    y[index] = values\n    return y\n",
        "add_at": "def add_at(x, index, values):\n    y = x.copy()\n    np.add.at(y, index, values)\n    return y\n",
        "setitem": "def setitem(x, index, values):\n    x[index] = values\n    return x\n",
        "put_along_axis": "def put_along_axis(x, indices, values, axis):\n"
        "    y = x.copy()\n    np.put_along_axis(y, indices, values, axis)\n    return y\n",
    }

    def from_numpy(self, array, device):
        return np.array(array)  # a copy, and a plain ndarray (not a BackendArray view)

    def to_numpy(self, value):
        return np.asarray(value)

    def dtype(self, name):
        return dtypes.to_numpy(name)

    def dtype_source(self, name):
        # NumPy's bfloat16 is ml_dtypes' (see compat.core.dtypes)
        return "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"

    def array_source(self, variable, dtype, device=None):
        return variable

    def device_of(self, value):
        return "cpu:0"
