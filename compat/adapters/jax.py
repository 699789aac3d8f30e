"""JAX through jax.numpy, with 64-bit types enabled (x64) or not (x32, JAX's default).

Calls run op by op (``jax.disable_jit``): each primitive is compiled once
per dtype and shape and reused by every jnp function, where jnp's own jit
wrappers would compile every (function, input dtypes) pair anew. The
semantics are the same (promotion happens in Python either way, and XLA
fusion does not reassociate or contract floating-point operations); the
exhaustive dtype tables compile about five times less.
"""

from __future__ import annotations

import numpy as np

from compat.adapters import Adapter

CPU_DEVICES = 2  # cpu:0 is the reference device, cpu:1 the device under test


class JaxAdapter(Adapter):
    name = "jax"
    requires = "jax"
    namespace = "jnp"
    imports = ("import numpy as np", "import jax", "import jax.numpy as jnp")
    OPS = {
        "set_at": "def set_at(x, index, values):\n    return x.at[index].set(values)\n",
        "add_at": "def add_at(x, index, values):\n    return x.at[index].add(values)\n",
        "setitem": "def setitem(x, index, values):\n    x[index] = values\n    return x\n",
        "put_along_axis": "lambda x, indices, values, axis: jnp.put_along_axis(x, indices, values, axis, inplace=False)",
        "norm": "jnp.linalg.norm",
        "relu": "jax.nn.relu",
        "copy_to": "lambda x, device: jax.device_put(x, jax.devices(device.split(':')[0])[int(device.split(':')[1])])",
        # jitted even inside the adapter's op-by-op context
        "compiled_add": "def compiled_add(x, y):\n    with jax.disable_jit(False):\n        return jax.jit(jnp.add)(x, y)\n",
        # autodiff: the transforms the gradient spec checks
        "grad": "def grad(f, *xs):\n    return jax.grad(f, argnums=tuple(range(len(xs))))(*xs)\n",
        "jacobian": "def jacobian(f, x):\n    return jax.jacrev(f)(x)\n",
        "per_example_grad": "def per_example_grad(f, params, batch):\n"
        "    return jax.vmap(jax.grad(f), in_axes=(None, 0))(params, batch)\n",
        "hvp": "def hvp(f, x, v):\n    return jax.jvp(jax.grad(f), (x,), (v,))[1]\n",
    }
    CONFIGS = {"x64": {"x64": True}, "x32": {"x64": False}}
    DEFAULT_CONFIGS = ("x64", "x32")

    def context(self):
        import contextlib

        import jax

        stack = contextlib.ExitStack()
        stack.enter_context(jax.enable_x64(self.config["x64"]))
        stack.enter_context(jax.disable_jit())
        return stack

    def setup_lines(self):
        return [f'jax.config.update("jax_enable_x64", {self.config["x64"]})']

    def devices(self):
        import jax

        return [f"{d.platform}:{d.id}" for d in jax.devices()]

    def from_numpy(self, array, device):
        import jax
        import jax.numpy as jnp

        value = jnp.asarray(array)
        return value if device is None else jax.device_put(value, self._device(device))

    def _device(self, name):
        import jax

        platform, _, index = name.partition(":")
        return jax.devices(platform)[int(index or 0)]

    def array_source(self, variable, dtype, device=None):
        if device is None:
            return f"jnp.asarray({variable})"
        platform, _, index = device.partition(":")
        return f"jax.device_put(jnp.asarray({variable}), jax.devices({platform!r})[{index or 0}])"

    def placement_on(self, device):
        import jax

        # Uncommitted values on the default device compute as committed ones do, and
        # reuse the executables that runs without a device compiled; committing
        # them to cpu:0 would compile every operation once more.
        return None if self._device(device) == jax.devices()[0] else device

    # a second CPU device: JAX's virtual devices (must be set before JAX's backend starts)
    def plugin_devices(self):
        return ["cpu:1"]

    def prepare_devices(self, load=True):
        if load:
            import jax

            jax.config.update("jax_num_cpu_devices", CPU_DEVICES)

    def device_scope(self, device):
        import contextlib

        import jax

        # uncommitted values (Python scalars, constants JAX makes itself) go to the default device
        return jax.default_device(self._device(device)) if device else contextlib.nullcontext()

    def scope_source(self, device):
        platform, _, index = device.partition(":")
        return f"with jax.default_device(jax.devices({platform!r})[{index or 0}]):"

    def device_lines(self, device):
        return [f'jax.config.update("jax_num_cpu_devices", {CPU_DEVICES})']

    def to_numpy(self, value):
        return np.asarray(value)

    def device_of(self, value):
        devices = getattr(value, "devices", None)
        if devices is None:
            return None
        (device,) = devices()
        return f"{device.platform}:{device.id}"
