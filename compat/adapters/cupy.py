"""CuPy: NumPy's API on an NVIDIA GPU (issue 35), compared with NumPy; its only device, and so its
reference device, is ``cuda:0``.

CuPy's root namespace mirrors NumPy 2's, which has the Array API standard's functions (cupy.array_api
was removed in v14 for it), so CuPy is the generic adapter of the standard's namespaces
(``compat.adapters.namespace``) on module ``cupy``: every operation of compat's table by the
standard's name, NumPy's own ones (NaN reductions, compat's out-of-place updates, autodiff)
declared unsupported with the reason, and a function of the standard that the installed CuPy lacks
(14.2: vecdot, unstack, linalg.vector_norm ...) declared unsupported as missing there, not a stop.
CuPy 14 has no inspection API (``__array_namespace_info__``): ``CupyInfo`` answers it from CuPy's
dtypes and CUDA devices. Values cross from and to NumPy by ``cupy.asarray`` and ``cupy.asnumpy``:
copies to and from the GPU. On a machine without a CUDA device CuPy is missing, with the reason,
like a backend that is not installed.
"""

from __future__ import annotations

import functools
import importlib.util
import re

import numpy as np

from compat.adapters.base import Adapter
from compat.adapters.declared import BackendMissing, unsupported
from compat.adapters.namespace import (
    INSPECTION,
    QUESTIONS,
    NamespaceAdapter,
    NamespacePlacement,
    NamespaceSpelling,
    NamespaceValues,
    standard_ops,
)
from compat.adapters.placement import probed
from compat.devices import cuda

DOTTED = re.compile(r"xp(\.\w+)+")
STANDARD_DTYPES = (
    "bool",
    *(f"{u}int{n}" for u in ("", "u") for n in (8, 16, 32, 64)),
    "float32",
    "float64",
    "complex64",
    "complex128",
)


class CupyInfo:
    """The standard's inspection API for a CuPy that has none: its dtypes, NumPy's defaults
    (CuPy follows them), and its CUDA devices."""

    def __init__(self, cupy) -> None:
        self.cupy = cupy

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return self.cupy.cuda.Device(0)

    def devices(self):
        return [self.cupy.cuda.Device(i) for i in range(self.cupy.cuda.runtime.getDeviceCount())]

    def default_dtypes(self, *, device=None):
        dtype = self.cupy.dtype
        return {
            "real floating": dtype("float64"),
            "complex floating": dtype("complex128"),
            "integral": dtype("int64"),
            "indexing": dtype("int64"),
        }

    def dtypes(self, *, device=None, kind=None):
        return {name: self.cupy.dtype(name) for name in STANDARD_DTYPES}


def device_source(name: str) -> str:
    return f"xp.cuda.Device({int(name.partition(':')[2] or 0)})"


class CupySpelling(NamespaceSpelling):
    # copies to and from the GPU, of the current device (the scope's)
    def array(self, variable, dtype, device=None):
        return f"xp.asarray({variable})"

    def scope(self, device):
        return device_source(device) if device else None


class CupyValues(NamespaceValues):
    def to_numpy(self, value):
        xp = self.adapter.xp
        return xp.asnumpy(value) if isinstance(value, xp.ndarray) else np.asarray(value)


class CupyPlacement(NamespacePlacement):
    """CUDA devices by number, cuda:0 the reference."""

    def devices(self):
        return [f"cuda:{i}" for i in range(self.adapter.xp.cuda.runtime.getDeviceCount())]

    def device_object(self, name):
        return self.adapter.spelling.evaluate(device_source(name))

    def device_of(self, value):
        device = getattr(value, "device", None)
        return None if device is None else f"cuda:{getattr(device, 'id', 0)}"

    def probe(self, device):
        """Its GPU (the default device too) after a failed call: a launch failure leaves the
        process's CUDA context unusable."""
        xp = self.adapter.xp
        on = self.device_object(device or self.adapter.reference_device)

        def computes():
            with on:
                on.synchronize()
                (xp.ones(2) + 1).get()

        return probed(computes)


class CupyAdapter(NamespaceAdapter):
    name = "cupy"
    requires = "cupy"
    module = "cupy"
    imports = {"np": "numpy", "xp": "cupy"}
    Spelling = CupySpelling
    Values = CupyValues
    Placement = CupyPlacement
    OPS = standard_ops()
    reference_device = "cuda:0"
    device_lost = (
        r"cudaError(Assert|LaunchFailure|IllegalAddress|IllegalInstruction)|CUDA_ERROR_(ASSERT|LAUNCH_FAILED)"
    )

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
        return True

    def distribution(self) -> str:
        return "cupy"  # the wheel is cupy-cuda12x or cupy-cuda13x: the version is cupy.__version__

    @functools.cached_property
    def info(self):
        found = getattr(self.xp, "__array_namespace_info__", None)
        return found() if found is not None else CupyInfo(self.xp)

    def target(self, op):
        """The standard's function, or unsupported where the installed CuPy lacks it."""
        target = super().target(op)
        if op in QUESTIONS and not hasattr(self.xp, "__array_namespace_info__"):  # CupyInfo is compat's
            return unsupported(f"cupy {self.version()} has no __array_namespace_info__ to ask")
        if op == "to_device" and not hasattr(self.xp.ndarray, "to_device"):
            return unsupported(f"cupy {self.version()}'s ndarray has no to_device")
        if isinstance(target, str) and op not in INSPECTION and DOTTED.fullmatch(target):
            found = self.xp
            for part in target.split(".")[1:]:
                if not hasattr(found, part):
                    return unsupported(f"cupy {self.version()} has no {target.removeprefix('xp.')}")
                found = getattr(found, part)
        return target

    def check_operations(self) -> None:
        Adapter.check_operations(self)  # CuPy's inspection API is CupyInfo where it has none

    def unsupported_dtype(self, name):
        if name == "bfloat16" and not hasattr(self.xp, "bfloat16"):
            return (
                f"cupy {self.version()} names no bfloat16 (no cupy.bfloat16, none in its dtypes): ml_dtypes' "
                "has 'minimal support' since CuPy 14, outside the namespace compat checks"
            )
        return super().unsupported_dtype(name)
