"""The standard's utility functions."""

from __future__ import annotations

from compat.core.operation import Op

TABLE: tuple[Op, ...] = ()
