"""The standard's creation functions."""

from __future__ import annotations

from compat.core.operation import Op

TABLE: tuple[Op, ...] = (
    Op(
        "asarray",
        "(obj)",
        "creation",
        "an array of a Python value (or a copy onto a device)",
        correctly_rounded=True,
        example=([1, 2.5],),
    ),
)
