"""The standard's searching functions (argmax, argmin, count_nonzero, nonzero, searchsorted; where is elementwise)."""

from __future__ import annotations

from compat.core.operation import Op

TABLE: tuple[Op, ...] = ()
