"""The reference plug-ins of each framework behind the ``PluginDevices`` protocol
(each framework's module is imported only when its plug-in is used)."""

from __future__ import annotations

from compat.devices import PluginDevices


class TensorflowApu(PluginDevices):
    """TensorFlow's PluggableDevice "APU" (tensorflow_apu.cc)."""

    names = ("APU:0",)

    @property
    def faults(self):
        from compat.devices import tensorflow_apu

        return tensorflow_apu.FAULTS

    def prepare(self, load=True):
        from compat.devices import tensorflow_apu

        path = tensorflow_apu.build()
        if load:
            tensorflow_apu.load(path)

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

    def reproducer_lines(self, device):
        return ["from compat.devices import tensorflow_apu", "tensorflow_apu.load()  # compat's reference APU device"] \
            if device.startswith("APU") else []


class TorchApu(PluginDevices):
    """torch's PrivateUse1 device "apu" (torch_apu.cpp)."""

    names = ("apu:0",)

    @property
    def faults(self):
        from compat.devices import torch_apu

        return torch_apu.FAULTS

    def prepare(self, load=True):
        from compat.devices import torch_apu

        torch_apu.load() if load else torch_apu.build()

    def set_fault(self, name, seed=0):
        from compat.devices import torch_apu

        torch_apu.set_fault(name, seed)

    def kernel_counters(self):
        from compat.devices import torch_apu

        return torch_apu.counters()

    def reset_kernel_counters(self):
        from compat.devices import torch_apu

        torch_apu.reset_counters()

    def reproducer_lines(self, device):
        return ["from compat.devices import torch_apu", "torch_apu.load()  # compat's reference apu device"] \
            if device.startswith("apu") else []


class JaxCpuDevices(PluginDevices):
    """A second virtual CPU device of JAX (its count must be set before JAX's backend starts)."""

    COUNT = 2  # cpu:0 is the reference device, cpu:1 the device under test
    names = ("cpu:1",)

    def prepare(self, load=True):
        if load:
            import jax

            jax.config.update("jax_num_cpu_devices", self.COUNT)

    def reproducer_lines(self, device):
        return [f'jax.config.update("jax_num_cpu_devices", {self.COUNT})']
