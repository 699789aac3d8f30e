"""TensorFlow through tf.experimental.numpy with NumPy behaviour enabled.

tnp's settings are process-wide; the adapter applies its config before each
call, so two configs can share a process.
"""

from __future__ import annotations

import os

import numpy as np

from compat.adapters import Adapter

LEGACY = {"dtype_conversion_mode": "legacy", "prefer_float32": False}
_applied: dict | None = None  # the tnp settings currently in force
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's C++ start-up chatter out of reports


class TensorflowAdapter(Adapter):
    name = "tensorflow"
    requires = "tensorflow"
    namespace = "tnp"
    imports = ("import numpy as np", "import tensorflow as tf", "import tensorflow.experimental.numpy as tnp")
    CONFIGS = {"": LEGACY, "prefer_float32": {**LEGACY, "prefer_float32": True}}
    DEFAULT_CONFIGS = ("",)
    SCATTER = (
        "    indices = np.stack(np.broadcast_arrays(*index), axis=-1)\n"
        "    updates = tnp.broadcast_to(values, indices.shape[:-1] + tuple(x.shape[len(index):]))\n"
    )
    OPS = {
        "max": "tnp.amax",
        # tnp arrays are immutable; TensorFlow's functional updates take index tuples as scatter indices
        "set_at": "def set_at(x, index, values):\n" + SCATTER
        + "    return tf.tensor_scatter_nd_update(x, indices, tf.cast(updates, x.dtype))\n",
        "add_at": "def add_at(x, index, values):\n" + SCATTER
        + "    return tf.tensor_scatter_nd_add(x, indices, tf.cast(updates, x.dtype))\n",
        "setitem": "def setitem(x, index, values):\n    x[index] = values\n    return x\n",
        "norm": "tf.norm",
        "relu": "tf.nn.relu",
        "copy_to": "def copy_to(x, device):\n    with tf.device(device):\n        return tnp.copy(x)\n",
        "compiled_add": "tf.function(tnp.add)",
        # autodiff: the transforms the gradient spec checks
        "grad": "def grad(f, *xs):\n    with tf.GradientTape() as tape:\n        tape.watch(xs)\n        y = f(*xs)\n"
        "    return tape.gradient(y, xs)\n",
        "jacobian": "def jacobian(f, x):\n    with tf.GradientTape() as tape:\n        tape.watch(x)\n        y = f(x)\n"
        "    return tape.jacobian(y, x)\n",
        "per_example_grad": "def per_example_grad(f, params, batch):\n    def one(example):\n"
        "        with tf.GradientTape() as tape:\n            tape.watch(params)\n            y = f(params, example)\n"
        "        return tape.gradient(y, params)\n    return tf.vectorized_map(one, batch)\n",
        # unconnected_gradients=ZERO: the Hessian of a linear f is 0 (TensorFlow would give None)
        "hvp": "def hvp(f, x, v):\n    with tf.autodiff.ForwardAccumulator(x, v) as forward:\n"
        "        with tf.GradientTape() as tape:\n            tape.watch(x)\n            y = f(x)\n"
        "        g = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)\n"
        "    return forward.jvp(g, unconnected_gradients=tf.UnconnectedGradients.ZERO)\n",
    }

    def distribution(self):
        from importlib.metadata import PackageNotFoundError, version

        for name in ("tensorflow-cpu", "tensorflow"):
            try:
                version(name)
                return name
            except PackageNotFoundError:
                pass
        return "tensorflow"

    def setup_lines(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.config.items())
        return [f"tnp.experimental_enable_numpy_behavior({args})"]

    def context(self):
        global _applied
        import contextlib

        import tensorflow.experimental.numpy as tnp

        if _applied != self.config:
            tnp.experimental_enable_numpy_behavior(**self.config)
            _applied = dict(self.config)
        return contextlib.nullcontext()

    reference_device = "CPU:0"

    def devices(self):
        import tensorflow as tf

        return [d.name.split("device:")[-1] for d in tf.config.list_logical_devices()]

    # compat's reference PluggableDevice, "APU" (compat/devices/tensorflow_apu.cc)
    def plugin_devices(self):
        return ["APU:0"]

    def prepare_devices(self, load=True):
        from compat.devices import tensorflow_apu

        path = tensorflow_apu.build()
        if load:
            tensorflow_apu.load(path)

    def faults(self):
        from compat.devices import tensorflow_apu

        return tensorflow_apu.FAULTS

    def set_fault(self, name, seed=0):
        from compat.devices import tensorflow_apu

        tensorflow_apu.set_fault(name, seed)

    def kernel_counters(self):
        from compat.devices import tensorflow_apu

        # the plug-in counts its own launches; what fell back to CPU shows as device divergences
        return {op: {"device": n, "fallback": 0} for op, n in tensorflow_apu.counters().items()}

    def reset_kernel_counters(self):
        from compat.devices import tensorflow_apu

        tensorflow_apu.reset_counters()

    def device_scope(self, device):
        import tensorflow as tf

        # explicit CPU by default: with the APU loaded, TensorFlow would prefer it
        return tf.device(device or self.reference_device)

    def device_lines(self, device):
        return ["from compat.devices import tensorflow_apu", "tensorflow_apu.load()  # compat's reference APU device"] \
            if device.startswith("APU") else []

    def scope_source(self, device):
        return f"with tf.device({device!r}):"

    def from_numpy(self, array, device):
        import tensorflow as tf
        import tensorflow.experimental.numpy as tnp

        if device is None:
            return tnp.asarray(array)
        with tf.device(device):
            return tnp.asarray(array)

    def dtype_source(self, name):
        return {"bool": "tnp.bool_", "bfloat16": "tf.bfloat16"}.get(name, f"tnp.{name}")

    def to_numpy(self, value):
        return value.numpy() if hasattr(value, "numpy") else np.asarray(value)

    def device_of(self, value):
        device = getattr(value, "device", None)
        return device.split("device:")[-1] if device else None

    def is_shape(self, value):
        import tensorflow as tf

        if isinstance(value, tf.TensorShape):
            return value.is_fully_defined()
        return super().is_shape(value)

    def isolate(self, op, args):
        # Converting a Python int that does not fit the target dtype (beyond int64,
        # or negative into uint64) leaves a Python exception pending in TF's C++
        # tensor cache: the call then returns, raises SystemError, or aborts the
        # interpreter on "Check failed: !PyErr_Occurred()", at random.
        unsigned64 = any(isinstance(a, np.ndarray) and a.dtype == np.uint64 for a in args)
        return any(isinstance(a, int) and not isinstance(a, bool)
                   and not (-(2**63) <= a < 2**63 and (a >= 0 or not unsigned64)) for a in args)

    def classify(self, error):
        message = str(error)
        if "Could not find device for node" in message or "registered kernels" in message.lower():
            return "dtype"  # no kernel for these dtypes
        if "is not in [" in message:  # gather's "indices[0] = 5 is not in [0, 3)"
            return "index"
        return super().classify(error)
