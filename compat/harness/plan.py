"""The run plan: from the installed backends and the options, the rows a run checks, and for each
its share of the examples, the spec families it checks and why. It is the one place that decides
shares; the plugin computes it once per process (``make``), prints it in the header (``lines``),
and the xp fixture and the specs read it (``share``, ``outside``).

- A backend's own row checks every example, in every family.
- The default run (no ``--backends``) adds the rows of ``ON_A_SHARE`` on ``CONFIG_EXAMPLES`` of
  the examples, and each backend's ``CONFIG_FAMILIES`` configs on that share in the families
  whose rules they change (not collected in the others). Named on the command line, a row checks
  everything.
- A device checks ``--device-examples``, else ``REFERENCE_KERNELS_EXAMPLES`` where its plug-in
  runs the reference device's kernels (JAX's second CPU device), else ``DEVICE_EXAMPLES``; an
  execution mode ``--mode-examples``, else ``MODE_EXAMPLES`` (on a device, the smaller); the
  thorough profile checks every example everywhere.
- Beside those, a spec that checks operations beside its own at full size gives each of them
  ``BESIDE`` of its examples (``compat.core.params.operation_params``, the ``compat_beside``
  mark); on a share row such an operation runs in one of those specs (``beside_once``).
- A spec with a param per input class and operation (``compat.core.params.operation_classes``,
  the ``compat_sampled`` mark) checks on a share row the row's share of each class's operations
  (``sampled``), as a share row samples an exhaustive table (``step``).
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from dataclasses import dataclass, field

from hypothesis import settings

from compat import adapters
from compat.adapters import AdapterError, BackendMissing
from compat.core.row import Row

# the standard's namespaces the default run checks on every example, where installed: the
# reference implementation, whose departures from NumPy are the standard's
EVERY_EXAMPLE = ("array-api:array_api_strict",)
WRAPPER = "a wrapper beside its framework's row: what it changes is a rule, which a share finds"
# rows the default run checks in every family on a share of the examples, and why (array_api_compat
# has no wrapper of JAX: jax.numpy is its own namespace)
ON_A_SHARE = {
    "dask": "each call builds a Dask graph and computes it",
    "array-api:array_api_compat.numpy": WRAPPER,
    "array-api:array_api_compat.torch": WRAPPER,
}
# share of its spec's examples that an operation checked beside the spec's own runs (compat_beside):
# two of the default profile's 40 (the survey's seeds vary them; the thorough profile runs them all)
BESIDE = 0.05
CONFIG_EXAMPLES = 0.2  # share of examples on such a row, and on a config's (CONFIG_FAMILIES), as on a device
DEVICE_EXAMPLES = 0.2  # default share of examples for device params (--device-examples)
REFERENCE_KERNELS_EXAMPLES = BESIDE  # on a plug-in device that runs the reference device's kernels
FULL_SIZE_PROFILES = ("thorough",)  # Hypothesis profiles that check every example everywhere
MODE_EXAMPLES = (
    0.05  # default share of examples for execution-mode params (--mode-examples): each call compiles anew
)


@dataclass
class Plan:
    """The rows of a run; ``families``/``why``: a row that checks some families only or a share of
    the examples, by adapter id."""

    adapters: list = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # a --backends item not installed -> why
    absent: set[str] = field(default_factory=set)  # the backends of those
    families: dict[str, tuple[str, ...]] = field(default_factory=dict)
    why: dict[str, str] = field(default_factory=dict)
    devices: dict[str, list[str]] = field(default_factory=dict)  # adapter id -> devices under test
    unavailable: dict[tuple[str, str], str] = field(default_factory=dict)  # (id, device) -> why not
    modes: dict[str, list[str]] = field(default_factory=dict)  # adapter id -> modes besides eager
    device_share: float | None = None  # --device-examples (None: by device)
    mode_share: float = MODE_EXAMPLES
    full_size: bool = False  # every param at its full size (FULL_SIZE_PROFILES)

    def share(self, adapter, device: str | None, mode: str) -> float:
        """The share of a spec's examples and tables a param checks (see the module's docstring)."""
        if device is not None:
            plugin = adapter.plugin
            ours = plugin is not None and device in plugin.names and plugin.reference_kernels
            on_device = self.device_share or (REFERENCE_KERNELS_EXAMPLES if ours else DEVICE_EXAMPLES)
            return on_device if mode == "eager" else min(on_device, self.mode_share)
        if adapter.id in self.why:
            return CONFIG_EXAMPLES if mode == "eager" else min(CONFIG_EXAMPLES, self.mode_share)
        return self.mode_share if mode != "eager" else 1.0

    def beside(self, item) -> float:
        """The share of its spec's examples and table a param runs, besides its row's: BESIDE for an
        operation the spec checks beside those at full size (marked ``compat_beside``), else 1."""
        return 1.0 if self.full_size or item.get_closest_marker("compat_beside") is None else BESIDE

    def outside(self, adapter, family: str) -> str | None:
        """Why a row does not check a spec family (None: it does). Its registry examples it replays
        whatever their family (compat/specs/known.py): an entry of the config is checked."""
        families = self.families.get(adapter.id)
        if families is None or family in families or family == "known":
            return None
        return f"config {adapter.label} changes only {', '.join(families)}"

    def lines(self) -> list[str]:
        """The header's lines of the plan: the rows on a share of the examples and why, the rows of
        some families only, the devices' and the modes' shares."""
        every = [a.id for a in self.adapters if a.id not in self.why]
        lines = [f"compat: every example: {', '.join(every) or 'no row'}"]
        reasons: defaultdict[str, list[str]] = defaultdict(list)
        for adapter in self.adapters:
            if adapter.id in self.why:
                reasons[self.why[adapter.id]].append(adapter.id)
        for why, ids in reasons.items():
            if all(id in self.families for id in ids):
                within = "; ".join(f"{id} in {', '.join(self.families[id])}" for id in ids)
                lines.append(f"compat: {percent(CONFIG_EXAMPLES)} of the examples, {why}: {within}")
            else:
                lines.append(f"compat: {percent(CONFIG_EXAMPLES)} of the examples: {', '.join(ids)} ({why})")
        by_share: defaultdict[str, list[str]] = defaultdict(list)
        for adapter in self.adapters:
            for device in self.devices.get(adapter.id, []):
                if (adapter.id, device) not in self.unavailable:
                    by_share[percent(self.share(adapter, device, "eager"))].append(
                        str(Row.of(adapter.id, device=device))
                    )
        if by_share:
            lines.append(
                "compat: devices: "
                + "; ".join(
                    f"{share} of the examples on {', '.join(rows)}" for share, rows in by_share.items()
                )
            )
        modes = [str(Row.of(id, mode)) for id, found in self.modes.items() for mode in found]
        if modes:
            lines.append(f"compat: modes: {percent(self.mode_share)} of the examples in {', '.join(modes)}")
        return lines


def percent(share: float) -> str:
    return f"{share:.0%}" if share * 100 == round(share * 100) else f"{share:.1%}"


def select(backends: str | None, adapter_paths: list[str]) -> Plan:
    """The rows of ``--backends`` and ``--adapter``: by default every registered backend, the
    namespaces of EVERY_EXAMPLE, and on a share the rows of ON_A_SHARE and each backend's
    CONFIG_FAMILIES configs; a backend that is not installed is in ``missing`` with the reason."""
    default_run = backends is None and not adapter_paths
    if backends is None:
        specs = [] if adapter_paths else list(adapters.registered())
        specs += [spec for spec in EVERY_EXAMPLE if default_run]
    else:
        specs = [s.strip() for s in backends.split(",") if s.strip()]
    shares = [spec for spec in ON_A_SHARE if spec not in specs] if default_run else []
    plan, shared = Plan(), []
    for spec in specs + list(adapter_paths) + shares:
        try:
            found = adapters.resolve(spec)
        except BackendMissing as reason:
            plan.missing[spec] = str(reason)
            plan.absent.add(reason.backend)
            continue
        if default_run and spec in ON_A_SHARE:  # every family, on a share of the examples
            plan.why.update({adapter.id: ON_A_SHARE[spec] for adapter in found})
        (shared if spec in shares else plan.adapters).extend(found)
        if default_run:  # its configs on a share, after the rest
            for label, families in type(found[0]).CONFIG_FAMILIES.items():
                (row,) = adapters.resolve(f"{spec}[{label}]")
                plan.families[row.id] = families
                plan.why[row.id] = "in the families whose rules their configs change"
                shared.append(row)
    plan.adapters += shared
    return plan


GRADIENT_REFERENCES = (
    "torch",
    "jax",
    "tensorflow",
)  # preferred order: torch's eager autodiff is the cheapest


def gradient_reference(chosen: list) -> adapters.Adapter | None:
    """The framework every other one's gradients are also compared with: the
    first of GRADIENT_REFERENCES that runs, in a config that keeps float64."""
    candidates = [a for a in chosen if a.unsupported("grad") is None and a.config.get("x64", True)]
    ranked = sorted(
        candidates,
        key=lambda a: (
            GRADIENT_REFERENCES.index(a.name) if a.name in GRADIENT_REFERENCES else len(GRADIENT_REFERENCES)
        ),
    )
    return ranked[0] if ranked else None


def parse_device(item: str, chosen: list) -> tuple[str, str]:
    """'tensorflow:APU:0' -> ('tensorflow', 'APU:0'), the backend being a selected adapter's name or id
    (the longest that prefixes it: 'array-api:array_api_strict:device1')."""
    known = sorted({a.name for a in chosen} | {a.id for a in chosen}, key=len, reverse=True)
    backend = next((name for name in known if item.startswith(name + ":")), item.partition(":")[0])
    device = item.removeprefix(backend + ":") if item.startswith(backend + ":") else ""
    if not device or backend not in known:
        names = ", ".join(sorted({a.name for a in chosen})) or "none selected"
        raise AdapterError(
            f"--device/--reference-device {item!r} must be BACKEND:DEVICE with a selected backend ({names})"
        )
    return backend, device


def of_missing_backend(item: str, absent: set[str]) -> bool:
    """A --device item of a backend that is not installed: its specs skip with the reason."""
    return item.partition(":")[0] in absent


def select_devices(
    chosen: list, requested: list[str], absent: set[str]
) -> tuple[dict[str, list[str]], dict[tuple[str, str], str]]:
    """adapter id -> devices under test, and (adapter id, device) -> why it cannot run.

    By default each backend's reference plug-in devices (compat's APU, apu, a second
    JAX CPU device) and the machine's accelerators it can use (torch's cuda:0, JAX's gpu:0;
    those it cannot, with the reason, in the second dict and no row), on the first config of
    each backend only: devices are about kernels, not configs. A plug-in kept apart from the
    accelerators (torch's apu beside cuda:0) is left out where one is checked, with the reason."""
    devices: dict[str, list[str]] = {}
    if requested == ["none"]:
        return devices, {}
    firsts = {}
    for adapter in chosen:
        firsts.setdefault(adapter.name, adapter)
    unavailable: dict[tuple[str, str], str] = {}
    if requested:
        for item in requested:
            if of_missing_backend(item, absent):
                continue
            backend, device = parse_device(item, chosen)
            adapter = next(a for a in chosen if backend in (a.name, a.id))
            devices.setdefault(adapter.id, []).append(device)
    else:
        for adapter in firsts.values():
            found = adapter.plugin.accelerators() if adapter.plugin is not None else {}
            usable = adapter.placement.plugin_devices() + [
                device for device, why in found.items() if why is None
            ]
            unavailable.update({(adapter.id, device): why for device, why in found.items() if why})
            if usable:
                devices[adapter.id] = usable
    for adapter in chosen:
        unavailable.update(apart_from_accelerators(adapter, devices))
    return devices, unavailable


def apart_from_accelerators(adapter, devices: dict[str, list[str]]) -> dict[tuple[str, str], str]:
    """Leave out of ``devices`` a plug-in's devices that cannot share a process with the machine's
    accelerators checked beside them (``PluginDevices.apart_from_accelerators``); (id, device) -> why."""
    plugin, wanted = adapter.plugin, devices.get(adapter.id, [])
    if plugin is None or not plugin.apart_from_accelerators:
        return {}
    beside = [d for d in wanted if plugin.kept_apart_from(d)]
    apart = [d for d in wanted if d in plugin.names] if beside else []
    devices[adapter.id] = [d for d in wanted if d not in apart]
    return {
        (adapter.id, d): f"not beside {', '.join(beside)}: {plugin.apart_from_accelerators}" for d in apart
    }


def select_modes(chosen: list, requested: str, absent: set[str] = frozenset()) -> dict[str, list[str]]:
    """adapter id -> the execution modes besides eager its params check, on the first
    config of each backend (modes are about the compiler, not configs): none, each
    backend's DEFAULT_MODES ('default'), all of its MODES ('all'), or the BACKEND:MODE
    items named (those of a backend that is not installed are left out: its specs skip)."""
    firsts: dict[str, adapters.Adapter] = {}
    for adapter in chosen:
        firsts.setdefault(adapter.name, adapter)
    if requested in ("none", "default", "all"):
        found = (
            {
                a.id: [m for m in a.MODES if m != "eager"] if requested == "all" else list(a.DEFAULT_MODES)
                for a in firsts.values()
            }
            if requested != "none"
            else {}
        )
        return {k: v for k, v in found.items() if v}
    modes: dict[str, list[str]] = {}
    for item in filter(None, (i.strip() for i in requested.split(","))):
        backend, _, mode = item.partition(":")
        if backend.partition("[")[0] in absent:
            continue
        adapter = firsts.get(backend) or next((a for a in chosen if a.id == backend), None)
        if adapter is None:
            names = ", ".join(sorted(firsts)) or "none selected"
            raise AdapterError(f"--modes {item!r} must be BACKEND:MODE with a selected backend ({names})")
        if mode not in adapter.MODES or mode == "eager":
            choices = ", ".join(f"{adapter.name}:{m}" for m in adapter.MODES if m != "eager") or "none"
            raise AdapterError(
                f"--modes {item!r}: {adapter.id} has no execution mode {mode!r} (choose from {choices})"
            )
        modes.setdefault(adapter.id, []).append(mode)
    return modes


def make(config) -> Plan:
    """The plan of a pytest run, from its options."""
    plan = select(config.getoption("backends"), config.getoption("adapter"))
    plan.devices, plan.unavailable = select_devices(plan.adapters, config.getoption("device"), plan.absent)
    plan.modes = select_modes(plan.adapters, config.getoption("modes"), plan.absent)
    profile = config.getoption("hypothesis_profile", None) or settings.get_current_profile_name()
    thorough = profile in FULL_SIZE_PROFILES
    plan.device_share = config.getoption("device_examples") or (
        1.0 if config.getoption("only_devices") else None
    )
    plan.mode_share = config.getoption("mode_examples") or (1.0 if thorough else MODE_EXAMPLES)
    plan.full_size = thorough
    return plan


def fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError(text)
    return value


def beside_once(items: list, compat) -> tuple[list, list]:
    """On a row that checks a share of the examples (a device, an execution mode), an operation
    that several specs check beside their own (a param marked ``compat_beside``) runs in one
    of them, the seed's: the row still checks every operation, and over the seeds each spec's
    rule for it; most of such a param's cost there is compiling, whatever its examples. Rows
    with a plug-in fault, and the full-size profiles, keep them all. Returns (kept, dropped)."""
    if compat.plan.full_size:
        return items, []
    groups: defaultdict[tuple[str, str], list] = defaultdict(list)
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        row, op = params.get("xp"), params.get("op")
        if (
            row is None
            or not isinstance(op, str)
            or row.fault
            or item.get_closest_marker("compat_beside") is None
        ):
            continue
        adapter = next((a for a in compat.adapters if a.id == row.backend_id), None)
        if adapter is None or compat.plan.share(adapter, row.device, row.mode) >= 1:
            continue
        groups[(str(row), op)].append(item)
    dropped = []
    for (row, op), group in groups.items():
        keep = zlib.crc32(f"{compat.seed}:{row}:{op}".encode()) % len(group)
        dropped += [item for i, item in enumerate(sorted(group, key=lambda i: i.nodeid)) if i != keep]
    gone = {id(item) for item in dropped}
    return [item for item in items if id(item) not in gone], dropped


def step(rows: int, share: float, least: int) -> int:
    """Every k-th row of a table of ``rows`` that a share of it checks: k = 1/share, at least
    ``least`` rows checked (all of them where the table has fewer than ``least``)."""
    return max(1, min(round(1 / share), rows // least))


def sampled(items: list, compat) -> tuple[list, list]:
    """On a row that checks a share of the examples (a device, a mode, a config), the params of
    a spec that gives each operation of an input class its own (marked ``compat_sampled``) are
    sampled as a share row samples an exhaustive table: of each class's operations every k-th,
    k = 1/share (one at the least), from an offset the seed, the row and the class pick; k
    consecutive seeds check each operation. Rows with a plug-in fault, and the full-size profiles, keep them all
    (a fault shows in some operations only). Returns (kept, dropped)."""
    if compat.plan.full_size:
        return items, []
    groups: defaultdict[tuple, list] = defaultdict(list)
    shares: dict[tuple, float] = {}
    for item in items:
        if item.get_closest_marker("compat_sampled") is None:
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        row = params.get("xp")
        if row is None or row.fault:
            continue
        adapter = next((a for a in compat.adapters if a.id == row.backend_id), None)
        share = 1.0 if adapter is None else compat.plan.share(adapter, row.device, row.mode)
        if share >= 1:
            continue
        within = tuple((k, str(v)) for k, v in sorted(params.items()) if k not in ("xp", "op"))
        key = (str(row), getattr(item.module, "__name__", ""), item.originalname, within)
        groups[key].append(item)
        shares[key] = share
    dropped = []
    for key, group in groups.items():
        k = step(len(group), shares[key], 1)
        # k consecutive seeds meet every offset; rows and classes start at offsets of their own
        offset = (compat.seed + zlib.crc32(repr(key).encode())) % k
        dropped += [item for i, item in enumerate(group) if i % k != offset]
    gone = {id(item) for item in dropped}
    return [item for item in items if id(item) not in gone], dropped
