"""Interchange faults: torch exporting its tensors through DLPack with one bit lost."""

from __future__ import annotations

from compat.adapters.broken.base import Catch
from compat.adapters.torch import TorchAdapter  # imports torch only when used


class DlpackExportLosesNegativeZeroInBfloat16(TorchAdapter):
    """A DLPack export of a bfloat16 tensor that hands over -0.0 as +0.0 (an export that
    converts through a float path which drops the sign of zero), every other bit kept. Built on
    torch: NumPy has no DLPack code for bfloat16, torch and JAX hand it over."""

    name = "broken_dlpack_bfloat16_zero_sign"
    family = "interchange"
    catch = Catch("test_every_producer_dtype_and_layout_keeps_every_bit", "from_dlpack_of", "value")

    def export_dlpack(self, array):
        import torch

        if array.dtype != torch.bfloat16:
            return array
        return torch.where(array == 0, torch.zeros_like(array), array)  # -0.0 == 0: both become +0.0
