"""Which adapters, configs and devices a run checks, from the command line."""

from __future__ import annotations

import zlib
from collections import defaultdict

from compat import adapters
from compat.adapters import AdapterError, BackendMissing, namespace
from compat.specs import FAMILIES


def select(backends: str | None, adapter_paths: list[str]):
    """Adapters to run, {spec: reason} for backends that are not installed, and their names."""
    default_run = backends is None and not adapter_paths
    if backends is None:
        specs = [] if adapter_paths else list(adapters.registered())
        specs += [namespace.PREFIX + module for module in namespace.DEFAULT_ROWS if default_run]
    else:
        specs = [s.strip() for s in backends.split(",") if s.strip()]
    wrappers = [namespace.PREFIX + module for module in namespace.SHARE_ROWS] if default_run else []
    chosen, shared, missing, absent = [], [], {}, set()
    for spec in specs + list(adapter_paths) + wrappers:
        try:
            found = adapters.resolve(spec)
        except BackendMissing as reason:
            missing[spec] = str(reason)
            absent.add(reason.backend)
            continue
        if spec in wrappers:  # a wrapper beside its framework: every family, on a share of the examples
            found[0].share_families = FAMILIES
            shared += found
            continue
        for adapter in found if default_run and type(found[0]).default_run_share else ():
            adapter.share_families = FAMILIES  # every family, on a share of the examples (Dask's row)
        chosen += found
        if default_run:  # its share configs after the rest
            for label, families in type(found[0]).SHARE_CONFIGS.items():
                (row,) = adapters.resolve(f"{spec}[{label}]")
                row.share_families = families
                shared.append(row)
    return chosen + shared, missing, absent


def outside_config(adapter, family: str) -> str | None:
    """Why a share row does not check a spec family (None: it does; a wrapper's row checks every
    family). Its registry examples it replays whatever their family (compat/specs/known.py): an
    entry of the config is checked."""
    families = adapter.share_families
    if families is None or family in families or family == "known":
        return None
    return f"config {adapter.label} changes only {', '.join(families)}"


def family_lines(chosen: list) -> list[str]:
    """The header's line of the rows that check some spec families only (not collected in the others)."""
    parts = [
        f"{a.id} in {', '.join(a.share_families)}" for a in chosen if a.share_families not in (None, FAMILIES)
    ]
    return ["compat: rows checked in some families only: " + "; ".join(parts)] if parts else []


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
    each backend only: devices are about kernels, not configs."""
    devices: dict[str, list[str]] = {}
    if requested == ["none"]:
        return devices, {}
    firsts = {}
    for adapter in chosen:
        firsts.setdefault(adapter.name, adapter)
    if requested:
        for item in requested:
            if of_missing_backend(item, absent):
                continue
            backend, device = parse_device(item, chosen)
            adapter = next(a for a in chosen if backend in (a.name, a.id))
            devices.setdefault(adapter.id, []).append(device)
        return devices, {}
    unavailable: dict[tuple[str, str], str] = {}
    for adapter in firsts.values():
        found = adapter.plugin.accelerators() if adapter.plugin is not None else {}
        usable = adapter.plugin_devices() + [device for device, why in found.items() if why is None]
        unavailable.update({(adapter.id, device): why for device, why in found.items() if why})
        if usable:
            devices[adapter.id] = usable
    return devices, unavailable


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


DEVICE_EXAMPLES = 0.2  # default share of examples for device params (--device-examples)
CONFIG_EXAMPLES = 0.2  # share of examples on a share config's row (SHARE_CONFIGS), as on a device


def share_of(adapter, device: str | None, mode: str, device_option: float | None, mode_share: float) -> float:
    """The share of a spec's examples and tables a param checks: all of them on a backend's own
    row; on a device, --device-examples (``device_option``), else the share its plug-in declares
    for it, else DEVICE_EXAMPLES; in an execution mode besides eager, ``mode_share`` (on a
    device, the smaller of the two)."""
    if device is not None:
        plugin = adapter.plugin
        declared = plugin.examples_share if plugin is not None and device in plugin.names else None
        on_device = device_option or declared or DEVICE_EXAMPLES
        return on_device if mode == "eager" else min(on_device, mode_share)
    if adapter.share_families is not None:
        return CONFIG_EXAMPLES if mode == "eager" else min(CONFIG_EXAMPLES, mode_share)
    return mode_share if mode != "eager" else 1.0


def fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError(text)
    return value


def beside_once(items: list, compat) -> tuple[list, list]:
    """On a row that checks a share of the examples (a device, an execution mode), an operation
    that several specs check beside their own (a param marked ``compat_examples``) runs in one
    of them, the seed's: the row still checks every operation, and over the seeds each spec's
    rule for it; most of such a param's cost there is compiling, whatever its examples. Rows
    with a plug-in fault, and the full-size profiles, keep them all. Returns (kept, dropped)."""
    if compat.full_size:
        return items, []
    groups: defaultdict[tuple[str, str], list] = defaultdict(list)
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        row, op = params.get("xp"), params.get("op")
        if (
            row is None
            or not isinstance(op, str)
            or row.fault
            or item.get_closest_marker("compat_examples") is None
        ):
            continue
        adapter = next((a for a in compat.adapters if a.id == row.backend_id), None)
        if (
            adapter is None
            or share_of(adapter, row.device, row.mode, compat.device_share, compat.mode_share) >= 1
        ):
            continue
        groups[(str(row), op)].append(item)
    dropped = []
    for (row, op), group in groups.items():
        keep = zlib.crc32(f"{compat.seed}:{row}:{op}".encode()) % len(group)
        dropped += [item for i, item in enumerate(sorted(group, key=lambda i: i.nodeid)) if i != keep]
    gone = {id(item) for item in dropped}
    return [item for item in items if id(item) not in gone], dropped
