"""Placement, a part of every adapter (``adapter.placement``): the devices a backend sees, where a
value lives, the scope a call runs in (evaluated from ``spelling.scope``, the ``with`` line of a
reproducer), and whether a device still computes after a call on it failed.
"""

from __future__ import annotations

import contextlib


class Placement:
    """One device, the reference device; values whose device the backend does not say."""

    def __init__(self, adapter) -> None:  # the Adapter it is a part of
        self.adapter = adapter

    def devices(self) -> list[str]:
        """Every device the backend sees in this process."""
        return [self.adapter.reference_device]

    def device_of(self, value) -> str | None:
        return None

    def placement_on(self, device: str) -> str | None:
        """The ``device`` argument that computes on the reference ``device``: the
        device itself, or None where default placement puts values there anyway."""
        return device

    def scope(self, device: str | None):
        """A context manager in which operations run on ``device``: ``spelling.scope``'s, evaluated."""
        text = self.adapter.spelling.scope(device)
        return self.adapter.spelling.evaluate(text) if text else contextlib.nullcontext()

    def probe(self, device: str | None) -> str | None:
        """After a call on ``device`` (None: the backend's default device) raised: whether the
        device still computes. None where it does, or where no call can leave it unusable (a CPU);
        else what the probe (a synchronize and a tiny computation) raised. A CUDA device-side assert
        or launch failure leaves every later call of the process failing: the harness then ends
        the process, and the call is a crash (compat.harness.runner)."""
        return None

    def plugin_devices(self) -> list[str]:
        """Devices compat itself gives this backend (its reference plug-ins), checked by default."""
        plugin = self.adapter.plugin
        return list(plugin.names) if plugin is not None else []


def probed(computation) -> str | None:
    """What ``computation`` (an adapter's probe of its device: a synchronize and a tiny
    computation) raised, as ``Type: first line``; None where it ran."""
    try:
        computation()
    except Exception as error:  # whatever the framework raises for a device it lost
        lines = str(error).strip().splitlines()
        return f"{type(error).__name__}: {lines[0] if lines else ''}"
    return None
