"""``python -m compat devices {build,list}``: compat's reference plug-in devices."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from compat import adapters

HELP = "build compat's reference plug-in devices, or list every device"
DESCRIPTION = (
    "build: compile compat's reference plug-ins for the installed frameworks "
    "(TensorFlow's APU, torch's apu; cached per framework version). "
    "list: every device each installed backend can see, the plug-ins included."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("build", "list"))
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )


def run(args) -> int:
    """Build every selected backend's plug-ins, or list what each backend sees (in a
    child process per backend: a framework must load its plug-ins before it starts)."""
    names = [n.strip() for n in args.backends.split(",")] if args.backends else list(adapters.BUILTIN)
    status = 0
    for name in names:
        try:
            adapter = adapters.resolve(name)[0]
        except adapters.BackendMissing as reason:
            print(f"{name}: skipped ({reason})")
            continue
        if args.action == "build":
            if not adapter.placement.plugin_devices():
                continue
            start = time.perf_counter()
            adapter.plugin.prepare(load=False)
            print(
                f"{adapter.name}: {', '.join(adapter.placement.plugin_devices())} ready in "
                f"{time.perf_counter() - start:.1f} s (builds are cached)"
            )
            continue
        child = subprocess.run(
            [sys.executable, "-c", LIST_DEVICES, adapter.selector], capture_output=True, text=True
        )
        if child.returncode:
            lines = child.stderr.strip().splitlines()
            print(
                f"{adapter.name}: cannot list devices: {lines[-1] if lines else child.returncode}",
                file=sys.stderr,
            )
            status = 2
        else:
            print(child.stdout.rstrip())
    return status


LIST_DEVICES = """
import sys
from compat.adapters import load_adapter
from compat.devices import DeviceBuildError
adapter = load_adapter(sys.argv[1])
note = ""
try:
    if adapter.plugin is not None:
        adapter.plugin.prepare()
except DeviceBuildError as error:
    note = f"  (plug-ins not available: {error})"
plugins = set(adapter.placement.plugin_devices())
shown = [d + (" (compat's reference plug-in)" if d in plugins else "") for d in adapter.placement.devices()]
print(f"{adapter.name}: {', '.join(shown)}{note}")
"""
