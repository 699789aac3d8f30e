"""Placement faults: torch on compat's reference apu device, with one placement rule broken."""

from __future__ import annotations

from compat.adapters.broken.base import Catch
from compat.adapters.torch import TorchAdapter  # imports torch only when used


def maximum_on_the_host(x, y):
    import torch

    return torch.maximum(x.cpu(), y.cpu())


def minimum_on_the_host(x, y):
    import torch

    return torch.minimum(x.cpu(), y.cpu())


def add_int64_on_the_host(x, y):
    import torch

    if x.dtype == torch.int64 or y.dtype == torch.int64:
        return torch.add(x.cpu(), y.cpu())
    return torch.add(x, y)


def copy_that_stays(x, device):
    return x  # "already there": the device comparison forgot the device index or type


class MaximumMinimumLeftOnTheHost(TorchAdapter):
    """maximum and minimum have no kernel on the device: they fall back to the CPU and
    their result stays there (a fallback that forgets to copy back)."""

    name = "broken_minmax_on_host"
    family = "placement"
    catch = Catch("test_elementwise_kernels_on_special_values", "maximum", "device", narrow="maximum")
    OPS = {**TorchAdapter.OPS, "maximum": maximum_on_the_host, "minimum": minimum_on_the_host}


class Int64AddLeftOnTheHost(TorchAdapter):
    """add of int64 tensors has no kernel on the device (no 64-bit integer units): it falls
    back to the CPU and its result stays there."""

    name = "broken_int64_add_on_host"
    family = "placement"
    catch = Catch("test_computed_and_compiled_results_stay_on_the_device", "add", "device")
    OPS = {**TorchAdapter.OPS, "add": add_int64_on_the_host}


class CopyToAnotherDeviceStays(TorchAdapter):
    """A copy to another device returns the tensor where it is."""

    name = "broken_copy_stays"
    family = "placement"
    catch = Catch("test_device_to_device_copies_are_bit_exact", "copy_to", "device")
    OPS = {**TorchAdapter.OPS, "copy_to": copy_that_stays}
