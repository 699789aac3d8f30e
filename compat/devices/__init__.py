"""compat's reference plug-in devices (built from source on the user's machine), and
the protocol through which an adapter offers them (implemented in ``plugins``)."""

from __future__ import annotations

from typing import ClassVar


class DeviceBuildError(Exception):
    """A plug-in cannot be built or loaded (one-line message for users)."""


class PluginDevices:
    """compat's reference plug-in devices of one framework: built and loaded before
    the framework starts, with named faults and kernel counters (``Adapter.plugin``)."""

    names: ClassVar[tuple[str, ...]] = ()  # the devices it adds, checked by default
    faults: ClassVar[dict[str, str]] = {}  # fault name -> what goes wrong, for the self-test
    fatal_faults: ClassVar[
        dict[str, str]
    ] = {}  # faults that kill or stall the process: never switched on by "all"
    # whether its devices run the reference device's own kernels (JAX's second CPU device): what
    # they can get wrong is placement and copies, which the run plan checks on a smaller share
    reference_kernels: ClassVar[bool] = False
    # execution modes its devices are also checked in, when the run checks the backend in them:
    # a plug-in's kernels may misbehave only when a graph runs them
    modes: ClassVar[tuple[str, ...]] = ()
    # why its devices cannot be checked in a process beside the machine's accelerators ("" where
    # they can): a run that checks both leaves the plug-in's devices out, with this reason
    apart_from_accelerators: ClassVar[str] = ""

    def prepare(self, load: bool = True) -> None:
        """Build (cached) and, with ``load``, make the devices visible in this process,
        before the framework starts. Raises DeviceBuildError with a one-line reason."""

    def set_fault(self, name: str | None, seed: int = 0) -> None:
        """Switch a fault on (None: off) in this process."""
        raise NotImplementedError(f"{type(self).__name__} has no fault injection")

    def kernel_counters(self) -> dict[str, dict[str, int]] | None:
        """Kernel launches since the last reset: op -> {"device": n, "fallback": n}; None if not counted."""
        return None

    def reset_kernel_counters(self) -> None:
        pass

    def kept_apart_from(self, device: str | None) -> bool:
        """Whether ``device`` is one of the machine's accelerators this plug-in must not be loaded
        beside (``apart_from_accelerators``)."""
        return bool(self.apart_from_accelerators) and device in self.accelerators()

    def accelerators(self) -> dict[str, str | None]:
        """The machine's own accelerators the framework computes on (its CUDA GPU, issue 35),
        checked by default beside the plug-ins: device -> None where usable, else why not."""
        return {}

    def settings(self) -> dict[str, object]:
        """The framework's settings that decide how its accelerators may differ from its CPU by
        contract (TF32 matmuls), as in force in this process: a run's description names them."""
        return {}

    def reproducer_lines(self, device: str) -> list[str]:
        """Lines that make ``device`` exist in a reproducer (load the plug-in, ...)."""
        return []
