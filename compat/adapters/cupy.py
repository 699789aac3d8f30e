"""CuPy: NumPy's API on an NVIDIA GPU (issue 35), compared with NumPy; its only device, and so its
reference device, is ``cuda:0``.

CuPy's root namespace follows the Array API standard (it mirrors NumPy 2's API; cupy.array_api
was removed in v14 for it), so CuPy is the generic adapter of the standard's namespaces
(``compat.adapters.namespace``) on module ``cupy``: every operation of compat's table by the
standard's name, NumPy's own ones (NaN reductions, compat's out-of-place updates, autodiff)
declared unsupported with the reason. A CuPy without the standard's inspection API
(``__array_namespace_info__``) is reached through ``array_api_compat.cupy`` where installed.
Values cross from and to NumPy by ``cupy.asarray`` and ``cupy.asnumpy``: a copy to and from the
GPU. On a machine without a CUDA device CuPy is missing, with the reason, like a backend that is
not installed.
"""

from __future__ import annotations

import contextlib
import importlib.util

import numpy as np

from compat.adapters.base import BackendMissing
from compat.adapters.namespace import NamespaceAdapter, standard_target
from compat.core import ops
from compat.devices import cuda


def namespace_module() -> str:
    """The module of CuPy's standard namespace: ``cupy`` itself, else ``array_api_compat.cupy``;
    BackendMissing where neither has the inspection API."""
    import cupy

    if hasattr(cupy, "__array_namespace_info__"):
        return "cupy"
    if importlib.util.find_spec("array_api_compat") is not None:
        return "array_api_compat.cupy"
    raise BackendMissing(
        f"cupy {cupy.__version__} has no __array_namespace_info__ and array_api_compat is not installed",
        "cupy",
    )


class CupyAdapter(NamespaceAdapter):
    name = "cupy"
    requires = "cupy"
    module = "cupy"
    imports = {"np": "numpy", "xp": "cupy"}
    OPS = {op.name: standard_target(op) for op in ops.TABLE if op.python is None}
    no_array_namespace = ""

    @classmethod
    def is_available(cls) -> bool:
        """Whether cupy is installed; where it is but cannot compute (no CUDA device, no driver, a
        CUDA runtime that does not load), BackendMissing with that reason, never CUDA's error."""
        if importlib.util.find_spec("cupy") is None:
            return False
        count, reason = cuda.driver_devices()
        if not count:
            raise BackendMissing(f"cupy: {reason}", "cupy")
        try:
            import cupy

            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as error:  # cupy's CUDARuntimeError, or an ImportError of its CUDA libraries
            raise BackendMissing(f"cupy cannot use CUDA: {type(error).__name__}: {error}", "cupy") from None
        if not count:
            raise BackendMissing("cupy sees no CUDA device", "cupy")
        namespace_module()
        return True

    def __init__(self, label=""):
        super().__init__(label)
        self.module = namespace_module()
        self.imports = {"np": "numpy", "xp": self.module}

    def distribution(self) -> str:
        return "cupy"  # the wheel is cupy-cuda12x or cupy-cuda13x: the version is cupy.__version__

    # -- values: copies to and from the GPU --------------------------------------------
    def from_numpy(self, array, device):
        import cupy

        self.dtype(array.dtype.name)  # a TypeError where CuPy has no such dtype (bfloat16)
        with self.device_scope(device):
            return cupy.asarray(np.array(array))

    def array_source(self, variable, dtype, device=None):
        return f"xp.asarray({variable})"

    def to_numpy(self, value):
        import cupy

        return cupy.asnumpy(value) if isinstance(value, cupy.ndarray) else np.asarray(value)

    # -- devices: CUDA devices by number, cuda:0 the reference ---------------------------
    reference_device = "cuda:0"

    def devices(self):
        import cupy

        return [f"cuda:{i}" for i in range(cupy.cuda.runtime.getDeviceCount())]

    def device_object(self, name):
        import cupy

        return cupy.cuda.Device(int(name.partition(":")[2] or 0))

    def device_of(self, value):
        device = getattr(value, "device", None)
        return None if device is None else f"cuda:{getattr(device, 'id', 0)}"

    def device_scope(self, device):
        return self.device_object(device) if device else contextlib.nullcontext()

    def scope_source(self, device):
        return f"with xp.cuda.Device({int(device.partition(':')[2] or 0)}):" if device else None
