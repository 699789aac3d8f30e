"""NumPy: the semantic reference. Every other backend is compared with it."""

from __future__ import annotations

import numpy as np

from compat.adapters.base import Adapter, unsupported
from compat.core import dtypes

NO_AUTODIFF = unsupported("NumPy has no automatic differentiation")


# Operations that take several statements; reproducers show their source.

def set_at(x, index, values):
    y = x.copy()
    y[index] = values
    return y


def add_at(x, index, values):
    y = x.copy()
    np.add.at(y, index, values)
    return y


def put_along_axis(x, indices, values, axis):
    y = x.copy()
    np.put_along_axis(y, indices, values, axis)
    return y


def copy_to(x, device):  # NumPy has one device: a copy is a copy
    return x.copy()


def relu(x):
    return np.maximum(x, np.zeros((), x.dtype))


class NumpyAdapter(Adapter):
    name = "numpy"
    requires = "numpy"
    namespace = "np"
    imports = {"np": "numpy"}
    OPS = {
        "norm": "np.linalg.norm",
        "set_at": set_at,
        "add_at": add_at,
        "put_along_axis": put_along_axis,
        "copy_to": copy_to,
        "relu": relu,
        "compiled_add": "np.add",  # nothing to compile: the plain call
        **dict.fromkeys(("grad", "jacobian", "per_example_grad", "hvp"), NO_AUTODIFF),
    }

    def from_numpy(self, array, device):
        return np.array(array)  # a copy, and a plain ndarray (not a BackendArray view)

    def array_source(self, variable, dtype, device=None):
        return variable

    def to_numpy(self, value):
        return np.asarray(value)

    def dtype(self, name):
        return dtypes.to_numpy(name)

    def dtype_source(self, name):
        # NumPy's bfloat16 is ml_dtypes' (see compat.core.dtypes)
        return "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"

    def device_of(self, value):
        return "cpu:0"
