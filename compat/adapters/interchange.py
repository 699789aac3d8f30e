"""Interchange, a part of every adapter (``adapter.interchange``): the arrays a backend hands to
another backend's ``from_dlpack`` (the interchange family's producers), laid out as a case asks
(transposed, every second row), and written in place where the backend can write its arrays.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from compat.adapters.declared import UnsupportedOperation
from compat.core.source import Exported, Written


class Interchange:
    """The backend's own array, exported by its ``__dlpack__``."""

    exports: ClassVar[bool] = True  # its arrays have __dlpack__: other rows import them
    writable: ClassVar[bool] = False  # overwrite writes its arrays (interchange's copy= checks)

    def __init__(self, adapter) -> None:  # the Adapter it is a part of
        self.adapter = adapter

    def exported(self, value: Exported):
        """This backend's array of ``value`` (eager, on its default device), laid out as
        ``value.layout`` says (its transpose, every second row of a larger array), as it
        hands it to another backend's from_dlpack: ``export_dlpack``'s object."""
        adapter = self.adapter
        on = adapter.placement.placement_on(adapter.reference_device)  # TF would place it on a plug-in
        with adapter.context(), adapter.placement.scope(on):
            array = self.made_for_export(value.base_values(), on)
            if value.layout == "transposed":
                array = self.transposed(array)
            elif value.layout == "sliced":
                array = array[::2, ...]  # every axis indexed: the standard's form
            after = value.before_and_after()[1]
            if after is None:
                return self.export_dlpack(array)
            return Written(self.export_dlpack(array), lambda: self.overwrite(array, after))

    def made_for_export(self, values: np.ndarray, device: str | None):
        """This backend's array of ``values``, in memory of its own allocator (where it has one)."""
        return self.adapter.values.from_numpy(values, device)

    def transposed(self, array):
        """The array with its axes reversed, as a view where the backend has views."""
        return array.T

    def export_dlpack(self, array):
        """What this backend hands to a consumer's from_dlpack: by default the array itself,
        whose ``__dlpack__`` (copy=, max_version= as the consumer asks) is the backend's export."""
        return array

    def overwrite(self, array, values: np.ndarray) -> None:
        """Write ``values`` into this backend's ``array`` in place (a view writes its base's memory)."""
        raise UnsupportedOperation(f"{self.adapter.id} cannot write its arrays in place")


_PRODUCERS: dict = {}  # by backend name


def producer(consumer, name: str):
    """The adapter that makes an array of backend ``name`` for ``consumer`` to import: the
    consumer itself for its own name (a broken adapter exports its own way), else compat's
    built-in backend of that name in its first default config."""
    if name == consumer.name:
        return consumer
    if name not in _PRODUCERS:
        from compat.adapters import resolve  # the discovery module imports this one

        _PRODUCERS[name] = resolve(name)[0]
    return _PRODUCERS[name]
