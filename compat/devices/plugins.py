"""The reference plug-ins of each framework behind the ``PluginDevices`` protocol
(each framework's module is imported only when its plug-in is used)."""

from __future__ import annotations

import importlib

from compat.devices import PluginDevices, cuda


class CompiledPlugin(PluginDevices):
    """A plug-in of compat's own, compiled from source: ``module`` names its Python side
    (build, load, FAULTS, set_fault, counters, reset_counters), imported when first used."""

    module: str = ""
    loader_lines: tuple[str, ...] = ()  # what a reproducer runs to load it
    prefix: str = ""  # the device type it adds

    @property
    def plugin(self):
        return importlib.import_module(self.module)

    @property
    def faults(self):
        return self.plugin.FAULTS

    @property
    def fatal_faults(self):
        return self.plugin.FATAL_FAULTS

    def set_fault(self, name, seed=0):
        self.plugin.set_fault(name, seed)

    def reset_kernel_counters(self):
        self.plugin.reset_counters()

    def reproducer_lines(self, device):
        return list(self.loader_lines) if device.startswith(self.prefix) else []


class TensorflowApu(CompiledPlugin):
    """TensorFlow's PluggableDevice "APU" (tensorflow_apu.cc)."""

    names = ("APU:0",)
    modes = ("function",)  # tf.function on the APU: a graph runs its kernels on executor threads
    module, prefix = "compat.devices.tensorflow_apu", "APU"
    loader_lines = (
        "from compat.devices import tensorflow_apu",
        "tensorflow_apu.load()  # compat's reference APU device",
    )

    def prepare(self, load=True):
        path = self.plugin.build()
        if load:
            self.plugin.load(path)

    def kernel_counters(self):
        # the plug-in counts its own launches; what fell back to CPU shows as device divergences
        return {op: {"device": n, "fallback": 0} for op, n in self.plugin.counters().items()}


class TorchApu(CompiledPlugin):
    """torch's PrivateUse1 device "apu" (torch_apu.cpp)."""

    names = ("apu:0",)
    module, prefix = "compat.devices.torch_apu", "apu"
    apart_from_accelerators = (
        "once loaded, a PrivateUse1 device is torch's accelerator, and every CUDA backward in its "
        "process fails (INTERNAL ASSERT opt_ready_stream && opt_parent_stream: "
        "https://github.com/pytorch/pytorch/issues/161129); --device torch:apu:0 checks it in a run of its own"
    )
    loader_lines = (
        "from compat.devices import torch_apu",
        "torch_apu.load()  # compat's reference apu device",
    )

    def prepare(self, load=True):
        self.plugin.load() if load else self.plugin.build()

    def kernel_counters(self):
        return self.plugin.counters()

    def accelerators(self):
        return cuda.torch_rows()

    def settings(self):
        return cuda.torch_settings()


class JaxCpuDevices(PluginDevices):
    """A second virtual CPU device of JAX (its count must be set before JAX's backend starts)."""

    COUNT = 2  # cpu:0 is the reference device, cpu:1 the device under test
    names = ("cpu:1",)
    # cpu:1 runs cpu:0's compiler and kernels, compiled once more for its device assignment (the
    # JAX row's largest cost): the row checks placement and copies (plan.REFERENCE_KERNELS_EXAMPLES)
    reference_kernels = True

    def prepare(self, load=True):
        if load:
            import jax

            jax.config.update("jax_num_cpu_devices", self.COUNT)

    def accelerators(self):
        return cuda.jax_rows()

    def settings(self):
        return cuda.jax_settings()

    def reproducer_lines(self, device):
        lines = [f'jax.config.update("jax_num_cpu_devices", {self.COUNT})']
        if device.startswith("gpu"):  # the CPU stays JAX's default device, as in the run
            lines.append(f'jax.config.update("jax_platforms", {cuda.jax_platforms() or "cpu,cuda"!r})')
        return lines
