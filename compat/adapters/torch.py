"""PyTorch through its NumPy-like functions (torch.add, torch.where, ...)."""

from __future__ import annotations

import numpy as np

from compat.core import dtypes
from compat.adapters import Adapter

REDUCE_ALL = "() if axis is None else axis"  # torch reduces every dim for dim=()


class TorchAdapter(Adapter):
    name = "torch"
    requires = "torch"
    namespace = "torch"
    imports = ("import numpy as np", "import torch")
    OPS = {
        "power": "torch.pow",
        "equal": "torch.eq",
        "not_equal": "torch.ne",
        "less": "torch.lt",
        "less_equal": "torch.le",
        "greater": "torch.gt",
        "greater_equal": "torch.ge",
        # torch.prod reduces one dim or all of them; all of them cannot keep dims
        "prod": "lambda x, axis=None, keepdims=False: torch.prod(x, dim=axis, keepdim=keepdims) if axis is not None "
        "else torch.prod(x).reshape((1,) * x.ndim if keepdims else ())",
        "max": f"lambda x, axis=None, keepdims=False: torch.amax(x, dim={REDUCE_ALL}, keepdim=keepdims)",
        "cumsum": "lambda x, axis=None: torch.cumsum(x.flatten() if axis is None else x, dim=0 if axis is None else axis)",
        "take": "lambda x, indices, axis: torch.index_select(x, axis, indices)",
        "take_along_axis": "lambda x, indices, axis: torch.take_along_dim(x, indices, dim=axis)",
        "set_at": "def set_at(x, index, values):\n    y = x.clone()\n    y[index] = values\n    return y\n",
        "add_at": "def add_at(x, index, values):\n"
        "    return x.clone().index_put_(tuple(torch.as_tensor(i) for i in index), values, accumulate=True)\n",
        "setitem": "def setitem(x, index, values):\n    x[index] = values\n    return x\n",
        "put_along_axis": "lambda x, indices, values, axis: x.scatter(axis, indices, values)",
        "norm": "torch.linalg.norm",
        "copy_to": "lambda x, device: x.to(device)",
        "relu": "torch.relu",
        "transpose": "lambda x, axes=None: torch.permute(x, tuple(reversed(range(x.ndim))) if axes is None else axes)",
        # autodiff: the transforms the gradient spec checks
        "grad": "def grad(f, *xs):\n    xs = [x.detach().requires_grad_() for x in xs]\n    return torch.autograd.grad(f(*xs), xs)\n",
        "jacobian": "def jacobian(f, x):\n    return torch.func.jacrev(f)(x)\n",
        "per_example_grad": "def per_example_grad(f, params, batch):\n"
        "    return torch.func.vmap(torch.func.grad(f), in_dims=(None, 0))(params, batch)\n",
        "hvp": "def hvp(f, x, v):\n    return torch.func.jvp(torch.func.grad(f), (x,), (v,))[1]\n",
    }

    def from_numpy(self, array, device):
        if array.dtype.name == "bfloat16":  # torch cannot read ml_dtypes arrays: their bits, as int16
            return self.xp.asarray(array.view(np.int16), device=device).view(self.xp.bfloat16)
        return self.xp.asarray(array, device=device)

    def array_source(self, variable, dtype, device=None):
        on = f", device={device!r}" if device else ""
        if dtype == "bfloat16":
            return f"torch.asarray({variable}.view(np.int16){on}).view(torch.bfloat16)"
        return f"torch.asarray({variable}{on})"

    # compat's reference PrivateUse1 device, "apu" (compat/devices/torch_apu.cpp)
    def plugin_devices(self):
        return ["apu:0"]

    def prepare_devices(self, load=True):
        from compat.devices import torch_apu

        torch_apu.load() if load else torch_apu.build()

    def faults(self):
        from compat.devices import torch_apu

        return torch_apu.FAULTS

    def set_fault(self, name, seed=0):
        from compat.devices import torch_apu

        torch_apu.set_fault(name, seed)

    def kernel_counters(self):
        from compat.devices import torch_apu

        return torch_apu.counters()

    def reset_kernel_counters(self):
        from compat.devices import torch_apu

        torch_apu.reset_counters()

    def device_scope(self, device):
        import contextlib

        # torch.device as a context manager: factory functions (asarray of Python values) create there
        return self.xp.device(device) if device else contextlib.nullcontext()

    def scope_source(self, device):
        return f"with torch.device({device!r}):"

    def device_lines(self, device):
        return ["from compat.devices import torch_apu", "torch_apu.load()  # compat's reference apu device"] \
            if device.startswith("apu") else []

    def devices(self):
        torch = self.xp
        found = ["cpu:0"]
        backend = torch._C._get_privateuse1_backend_name()
        if backend != "privateuseone" and hasattr(torch, backend):
            found += [f"{backend}:{i}" for i in range(getattr(torch, backend).device_count())]
        return found

    def to_numpy(self, value):
        value = self.xp.as_tensor(value).detach().cpu()
        if value._is_zerotensor():  # forward-mode AD's symbolic zeros (hvp of a linear f) refuse .numpy()
            value = self.xp.zeros_like(value)
        if value.dtype == self.xp.bfloat16:  # bit for bit: through float32, NaN payloads would be lost
            return value.view(self.xp.int16).numpy().view(dtypes.to_numpy("bfloat16"))
        return value.numpy()

    def device_of(self, value):
        device = getattr(value, "device", None)
        return None if device is None else f"{device.type}:{device.index or 0}"

    def is_shape(self, value):
        return isinstance(value, self.xp.Size) or super().is_shape(value)

    def classify(self, error):
        # torch raises RuntimeError for nearly everything; its messages say what kind
        message = str(error).lower()
        if isinstance(error, RuntimeError):
            if "negative integer powers" in message:
                return "value"
            if "is not supported" in message or "can't be cast" in message:
                return "dtype"
        return super().classify(error)

    @property
    def xp(self):
        import torch

        return torch
