"""Interchange faults: torch exporting its tensors through DLPack with one bit lost; NumPy
importing with a copy where copy=False forbids one; NumPy's inspection namespace stating what
the backend does not do."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.adapters.broken.base import Catch
from compat.adapters.numpy import NumpyAdapter
from compat.adapters.torch import TorchAdapter, TorchInterchange  # imports torch only when used
from compat.core.outcome import Outcome


class ExportLosesNegativeZeroInBfloat16(TorchInterchange):
    def export_dlpack(self, array):
        import torch

        if array.dtype != torch.bfloat16:
            return array
        return torch.where(array == 0, torch.zeros_like(array), array)  # -0.0 == 0: both become +0.0


class DlpackExportLosesNegativeZeroInBfloat16(TorchAdapter):
    """A DLPack export of a bfloat16 tensor that hands over -0.0 as +0.0 (an export that
    converts through a float path which drops the sign of zero), every other bit kept. Built on
    torch: NumPy has no DLPack code for bfloat16, torch and JAX hand it over."""

    name = "broken_dlpack_bfloat16_zero_sign"
    family = "interchange"
    catch = Catch("test_every_producer_dtype_and_layout_keeps_every_bit", "from_dlpack_of", "value")
    Interchange = ExportLosesNegativeZeroInBfloat16


def with_part(outcome: Outcome, name: str, value) -> Outcome:
    """A mapping's outcome (named parts) with the part ``name`` answering ``value`` instead."""
    assert outcome.parts is not None and outcome.names is not None
    parts = list(outcome.parts)
    parts[outcome.names.index(name)] = Outcome(values=np.asarray(value), dtype="bool", shape=())
    return replace(outcome, parts=parts)


class NamespaceInfoLeavesOutFloat64(NumpyAdapter):
    """__array_namespace_info__().dtypes() leaves float64 out of every kind, though the backend
    makes float64 arrays: an inspection namespace that states the dtypes of a float32-only
    configuration (JAX's without x64) in the configuration that has float64."""

    name = "broken_info_without_float64"
    family = "interchange"
    catch = Catch("test_namespace_info_lists_the_dtypes_of_a_kind_the_backend_makes", "info_dtypes", "value")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        return outcome if op != "info_dtypes" or outcome.raised else with_part(outcome, "float64", False)


class CapabilitiesDenyBooleanIndexing(NumpyAdapter):
    """capabilities() states "boolean indexing": False, though x[mask] works: a namespace that
    states what a compiled mode does in eager mode."""

    name = "broken_capabilities_deny_boolean_indexing"
    family = "interchange"
    catch = Catch("test_namespace_info_capabilities_are_what_the_backend_does", "info_capabilities", "value")

    def call(self, op, args, kwargs=None, device=None):
        outcome = super().call(op, args, kwargs, device)
        if op != "info_capabilities" or outcome.raised:
            return outcome
        return with_part(outcome, "boolean indexing", False)


def from_dlpack_always_copied(x, copy):
    imported = np.from_dlpack(x, copy=True)  # copy=False too
    x.write()
    return imported


class DlpackImportAlwaysCopies(NumpyAdapter):
    """from_dlpack copies whatever copy= says, copy=False included (an import that cannot take
    another allocator's buffer and copies it instead of raising): a producer's write after the
    import does not show, as the standard's copy=False (never copy) says it must."""

    name = "broken_dlpack_import_always_copies"
    family = "interchange"
    catch = Catch("test_copy_false_shares_memory_and_copy_true_copies", "from_dlpack_written", "value")
    OPS = {**NumpyAdapter.OPS, "from_dlpack_written": from_dlpack_always_copied}


def from_dlpack_onto_left_on_the_host(x, device):
    import torch

    return torch.from_dlpack(x)  # device= dropped: the import stays where the producer's array is


class DlpackImportOntoDeviceStaysOnTheHost(TorchAdapter):
    """from_dlpack(x, device=d) leaves the import where the producer's array is (the host),
    as an import that drops its device= would: caught on compat's reference apu device."""

    name = "broken_dlpack_onto_device_stays_on_host"
    family = "interchange"
    catch = Catch("test_from_dlpack_onto_each_device_keeps_every_bit", "from_dlpack_onto", "device")
    OPS = {**TorchAdapter.OPS, "from_dlpack_onto": from_dlpack_onto_left_on_the_host}
