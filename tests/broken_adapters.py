"""Adapters for compat's own tests that break the harness's process, not a rule of
NumPy's semantics: they abort, hang, allocate without bound, or are slow (the faults
that break one rule are compat.adapters.broken, which ``python -m compat detect``
runs); one that breaks nothing, for the benchmark's test of a miss; and real backends
with a bug planted where a too-broad registry entry would hide it.
Registered through the public path: ``--adapter tests.broken_adapters:Name``.
"""

from __future__ import annotations

import os

import numpy as np

from compat.adapters.broken import with_values
from compat.adapters.jax import JaxAdapter  # these import their framework only when used
from compat.adapters.numpy import NumpyAdapter
from compat.adapters.placement import Placement
from compat.adapters.torch import TorchAdapter
from compat.adapters.values import Values
from compat.core.outcome import Outcome
from compat.devices import PluginDevices


class NotBroken(NumpyAdapter):
    """NumPy under another name, posing as a promotion fault: no spec can catch it
    (tests/test_detect.py: the benchmark must report it missed)."""

    name = "not_broken"
    family = "promotion"


# -- isolation (tests/test_isolation.py)


class AbortsOnNegativeInts(NumpyAdapter):
    """Kills its process on a negative Python int, as TensorFlow sometimes does, without a
    word; chatty on stderr before, as frameworks are (TensorFlow's start-up logs)."""

    name = "aborts_on_negative_ints"

    @staticmethod
    def fatal(args):
        return any(isinstance(a, int) and a < 0 for a in args)

    def isolate(self, op, args, mode="eager", device=None):
        return self.fatal(args)

    def call(self, op, args, kwargs=None, device=None):
        import os
        import sys

        if self.fatal(args):
            os.abort()
        print(f"I0000 {op}: oneDNN custom operations are on", file=sys.stderr, flush=True)
        return super().call(op, args, kwargs, device)


class EagerAbortsOnNegativeInts(AbortsOnNegativeInts):
    """Eager, a negative Python int kills the process (as TensorFlow's eager conversion of
    one meeting a uint64 array does now and then); traced, the call is NumPy's: the eager
    reference of the traced row is lost, and the traced row is judged against NumPy alone
    (tests/test_isolation.py)."""

    name = "eager_aborts_on_negative_ints"
    MODES, DEFAULT_MODES = {"eager": "op by op", "traced": "NumPy, traced"}, ("traced",)

    def isolate(self, op, args, mode="eager", device=None):
        return mode == "eager" and self.fatal(args)

    def call(self, op, args, kwargs=None, device=None, mode="eager"):
        if mode == "eager":
            return super().call(op, args, kwargs, device)
        return NumpyAdapter.call(self, op, args, kwargs, device, mode)

    def compile(self, mode, function):
        return function


class RaisesSystemErrorEveryOtherCall(NumpyAdapter):
    """Every other call that raises raises SystemError instead, as TensorFlow does in the call
    after one that left an exception pending: an error a second call does not raise again."""

    name = "raises_system_error_every_other_call"
    raised = 0

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if outcome.raised:
            type(self).raised += 1
            if type(self).raised % 2:
                error = SystemError("<built-in function add> returned a result with an exception set")
                return Outcome(error=error, error_category=self.values.classify(error))
        return outcome


# -- casualties: third-party-style adapters that kill, hang or swamp their process
# (tests/test_isolation.py, tests/test_casualties.py)


class AbortsInFloat32Multiply(NumpyAdapter):
    """multiply of a float32 array aborts the process (SIGABRT); everything else is NumPy."""

    name = "aborts_in_float32_multiply"

    def call(self, op, args, kwargs=None, device=None):
        if op == "multiply" and any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args):
            import os

            os.abort()
        return super().call(op, args, kwargs, device)


class HangsInSubtract(NumpyAdapter):
    """subtract never returns (a sleeping loop: it holds no lock a watchdog would need)."""

    name = "hangs_in_subtract"

    def call(self, op, args, kwargs=None, device=None):
        if op == "subtract":
            import time

            while True:
                time.sleep(0.05)
        return super().call(op, args, kwargs, device)


class AllocatesWithoutBound(NumpyAdapter):
    """add allocates 64 MiB blocks, touched, until something stops it."""

    name = "allocates_without_bound"

    def call(self, op, args, kwargs=None, device=None):
        if op == "add":
            blocks = []
            while True:
                blocks.append(np.ones(8 << 20))
        return super().call(op, args, kwargs, device)


class SlowNumpy(NumpyAdapter):
    """Right, but every call takes 20 ms, as on a simulated or remote device: a run long
    enough for a test to kill one of its workers in the middle of a spec."""

    name = "slow_numpy"

    def call(self, op, args, kwargs=None, device=None):
        import time

        time.sleep(0.02)
        return super().call(op, args, kwargs, device)


# -- real backends in a config a registry entry covers (tests/test_registry_narrow.py) ---
# They keep the backend's name and config, so the shipped registry's entries for that
# backend apply to them; the bug each one plants is one a too-broad entry would hide.


class JaxX32Int64AsInt16(JaxAdapter):
    """JAX without x64, whose add gives int16 where it should give int32 (NumPy: int64):
    a 64-bit result that comes out narrower than JAX's documented 32-bit counterpart
    (run it as ``JaxX32Int64AsInt16[x32]``)."""

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if (
            op == "add"
            and not outcome.raised
            and outcome.values is not None
            and outcome.values.dtype == np.int32
        ):
            return with_values(outcome, outcome.values.astype(np.int16))
        return outcome


class TorchUnsignedGetitemRaises(TorchAdapter):
    """PyTorch whose indexing of a uint16/uint32/uint64 tensor raises TypeError: a bug
    in the indexing family, with the unsigned dtypes PyTorch supports only in part."""

    def call(self, op, args, kwargs=None, device=None):
        if (
            op == "getitem"
            and isinstance(args[0], np.ndarray)
            and args[0].dtype.name in ("uint16", "uint32", "uint64")
        ):
            return Outcome(
                error=TypeError("planted: no indexing of unsigned tensors"), error_category="dtype"
            )
        return super().call(op, args, kwargs, device)


# -- the standard's special cases (tests/test_standard_records.py)


class FloorDivideOfInfinity(NumpyAdapter):
    """NumPy whose floor_divide of an infinite dividend by a finite nonzero divisor gives
    ``instead(x1, x2)`` (NumPy, as Python: NaN)."""

    def instead(self, x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "floor_divide" or outcome.raised or outcome.values is None:
            return outcome
        x1, x2 = (np.asarray(a) for a in args[:2])
        with np.errstate(all="ignore"):
            given = np.where(np.isinf(x1) & np.isfinite(x2) & (x2 != 0), self.instead(x1, x2), outcome.values)
        return with_values(outcome, given.astype(outcome.values.dtype))


class FollowsTheStandard(FloorDivideOfInfinity):
    """The infinity the standard states: it differs from NumPy and follows the standard."""

    name = "follows_the_standard"

    def instead(self, x1, x2):
        return x1 * np.sign(x2)


class DepartsFromBoth(FloorDivideOfInfinity):
    """0.0: neither NumPy's NaN nor the standard's infinity."""

    name = "departs_from_both"

    def instead(self, x1, x2):
        return np.zeros_like(x1)


# -- a second kind of device beside a plug-in's (tests/test_accelerator_rows.py)


class Placed(np.ndarray):
    """A NumPy array that says which device it lives on (TwoDeviceKinds' devices; NumPy 2's own
    ``device`` is always "cpu")."""

    def __array_finalize__(self, obj):
        self.placed_on = getattr(obj, "placed_on", "cpu:0")


class PluginAndAccelerators(PluginDevices):
    """A plug-in device, ``apu:0``, and the machine's accelerators beside it, as torch's plug-in
    offers ``cuda:0``: ``gpu:0``, usable, and ``tpu:0``, absent."""

    names = ("apu:0",)

    def accelerators(self):
        return {"gpu:0": None, "tpu:0": "no TPU on this machine"}


class PlacedValues(Values):
    def from_numpy(self, array, device):
        placed = np.array(array).view(Placed)
        placed.placed_on = device or self.adapter.reference_device
        return placed


class TwoKindsOfDevice(Placement):
    def device_of(self, value):
        return getattr(value, "placed_on", self.adapter.reference_device)

    def devices(self):
        return ["cpu:0", "apu:0", "gpu:0"]


class OnTwoDeviceKinds(NumpyAdapter):
    """NumPy with devices of two kinds: a plug-in's ``apu:0`` and an accelerator, ``gpu:0``."""

    name = "on_two_device_kinds"
    plugin = PluginAndAccelerators()
    Values = PlacedValues
    Placement = TwoKindsOfDevice


class TwoDeviceKinds(OnTwoDeviceKinds):
    """Whose ``gpu:0`` flushes float results below the smallest normal to zero in add
    (flush-to-zero, as some GPU kernels do)."""

    name = "two_device_kinds"

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if device != "gpu:0" or op != "add" or outcome.values is None or outcome.values.dtype.kind != "f":
            return outcome
        values = outcome.values
        flushed = np.where(np.abs(values) < np.finfo(values.dtype).tiny, np.zeros_like(values), values)
        return with_values(outcome, flushed)


# -- a plug-in that breaks the accelerators of the process it is loaded in, as torch's PrivateUse1
# device breaks every CUDA backward (pytorch/pytorch#161129; tests/test_accelerator_rows.py)

PLUGIN_LOADED = []  # this process loaded (or asked the counters of) LoadedApart's device


class LoadedApart(PluginAndAccelerators):
    apart_from_accelerators = "once loaded, gpu:0 fails every call of its process"

    def prepare(self, load=True):
        if load:
            PLUGIN_LOADED.append(os.getpid())

    def kernel_counters(self):
        PLUGIN_LOADED.append(os.getpid())  # torch's apu counters load the plug-in
        return None

    def reset_kernel_counters(self):
        PLUGIN_LOADED.append(os.getpid())


class BrokenBesideItsPlugin(OnTwoDeviceKinds):
    """Whose ``gpu:0`` fails every call once its plug-in's ``apu:0`` is loaded in the process."""

    name = "broken_beside_its_plugin"
    plugin = LoadedApart()

    def call(self, op, args, kwargs=None, device=None):
        if device == "gpu:0" and PLUGIN_LOADED:
            error = RuntimeError("opt_ready_stream && opt_parent_stream INTERNAL ASSERT FAILED")
            return Outcome(error=error, error_category=self.values.classify(error))
        return super().call(op, args, kwargs, device)


# -- an accelerator whose one bad call leaves its process unusable (tests/test_device_lost.py)

DEVICE_LOST = []  # this process's device-side assert, once one happened (a CUDA context is the process's)
ASSERTING_INDEX = (3,)  # an integer past the end of an axis of 3: the index the device asserts on


class ProbedAfterTheAssert(TwoKindsOfDevice):
    def probe(self, device):
        return "RuntimeError: CUDA error: unspecified launch failure" if DEVICE_LOST else None


class PoisonsItsDevice(OnTwoDeviceKinds):
    """An accelerator, ``gpu:0``, that checks one index with a device-side assert, as CUDA kernels
    do: ``x[3]`` of an axis of 3 raises a CUDA error there, and from then on every call of the
    process, on either device, fails as a CUDA context that met an assert does. Its probe says so.
    Any other index out of bounds raises IndexError, as NumPy's."""

    name = "poisons_its_device"
    Placement = ProbedAfterTheAssert

    def call(self, op, args, kwargs=None, device=None):
        if DEVICE_LOST:
            error = RuntimeError(f"CUDA error: unspecified launch failure (pid {os.getpid()})")
            return Outcome(error=error, error_category=self.values.classify(error))
        if device == "gpu:0" and op == "getitem" and asserts(*args):
            DEVICE_LOST.append(os.getpid())
            error = RuntimeError("CUDA error: device-side assert triggered")
            return Outcome(error=error, error_category=self.values.classify(error))
        return super().call(op, args, kwargs, device)


def asserts(x, index=None, *_) -> bool:
    """Whether ``x[index]`` is the index PoisonsItsDevice's device asserts on."""
    return (
        type(index) is tuple
        and [type(i) for i in index] == [int]
        and index == ASSERTING_INDEX
        and np.ndim(x) >= 1
        and np.shape(x)[0] == ASSERTING_INDEX[0]
    )
