"""A reference PyTorch PrivateUse1 device, "apu", built from torch_apu.cpp.

Device memory is host memory; allocation, copies and views run natively and
every other op runs on CPU through a fallback, so results equal CPU bit for
bit unless a fault is switched on. Configuration, read when the extension
loads: COMPAT_APU_DEVICES (device count, default 1), COMPAT_APU_FAULT and
COMPAT_APU_SEED (see FAULTS). POSIX only (the build lock uses fcntl).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from compat.core import cache
from compat.devices import DeviceBuildError

FAULTS: dict[str, str] = {
    "copy_truncate": "apu -> host copies leave the destination's last element as it was",
    "wrong_device": "results of add, mul or sum (seed picks) land on the next apu device, or on CPU with one device",
    "float64_as_float32": "float64 apu operands and results of fallback ops are rounded to float32, "
    "so float64 add/sub/mul/div give float32 arithmetic",
    "sum_float16_accumulate": "sum over float32/float64 rounds its running sum to float16 after every addition",
    "relu_negative_zero": "relu(-0.0) and maximum of zeros of opposite signs return the other zero than CPU",
    "broadcast_stride": "add/sub/mul/div/maximum/minimum of broadcast operands (both at least 1-d) read the "
    "full operand with stride 0 along one broadcast dim (seed picks)",
    "mul_rounds_toward_zero": "float32 mul rounds toward zero instead of to nearest: inexact products are "
    "one ULP too small in magnitude about half the time",
}
# Faults that kill or stall the process: the self-test runs them apart (compat.harness.casualties)
FATAL_FAULTS: dict[str, str] = {
    "abort_in_kernel": "mul of a float32 apu tensor calls abort(): the process dies with SIGABRT",
    "hang_in_kernel": "sub of a float32 apu tensor never completes (it sleeps forever)",
}

_NAME = "compat_torch_apu"
_SOURCE = Path(__file__).with_suffix(".cpp")

# Runs in a child process: cpp_extension.load also loads what it built, which
# must not happen in the caller (the kernels would register twice).
_BUILD_SCRIPT = """
import sys
from torch.utils.cpp_extension import load
load(name=sys.argv[1], sources=[sys.argv[2]], build_directory=sys.argv[3],
     extra_cflags=["-O2"], is_python_module=False)
"""

_ext: types.ModuleType | None = None


def _cache_root(cache_dir: Path | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    return cache.directory("devices")


def _library(cache_dir: Path | None) -> Path:
    """Where the build of this source for this torch and Python lives (torch's version from its
    metadata: the process that only builds, xdist's controller, does not import torch)."""
    digest = hashlib.sha256(_SOURCE.read_bytes() + _BUILD_SCRIPT.encode()).hexdigest()[:16]
    key = f"torch_apu-{importlib.metadata.version('torch')}-{sys.implementation.cache_tag}-{digest}"
    return _cache_root(cache_dir) / key / f"{_NAME}.so"


def _first_error(output: str) -> str:
    """The line of a failed build that says why: a compiler error, a missing tool, or the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for pattern in (r"\berror\b:", r"not found|No such file"):
        for line in lines:
            if re.search(pattern, line):
                return line
    return lines[-1] if lines else "no output"


def build(cache_dir: Path | None = None, force: bool = False) -> Path:
    """Compile the extension unless this source is already built; return the library."""
    library = _library(cache_dir)
    root = library.parent.parent
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{library.parent.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, e.g. across xdist workers
        if library.exists() and not force:
            return library
        # Build beside the cache entry and rename it in whole, so a crash
        # never leaves a half-written library that looks built.
        scratch = Path(tempfile.mkdtemp(prefix=library.parent.name + ".", dir=root))
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _BUILD_SCRIPT, _NAME, str(_SOURCE), str(scratch)],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                raise DeviceBuildError(
                    f"cannot build the apu device: {_first_error(proc.stdout + proc.stderr)}"
                )
            if library.parent.exists():
                shutil.rmtree(library.parent)
            scratch.rename(library.parent)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return library


def _device_module(ext: types.ModuleType) -> types.ModuleType:
    """torch.apu: what PyTorch asks of a PrivateUse1 backend's runtime module."""
    import torch

    module = types.ModuleType("torch.apu", "compat's reference apu device (host memory).")
    module.device_count = ext.device_count
    module.current_device = ext.current_device
    module.set_device = ext.set_device

    @contextlib.contextmanager
    def device(dev):  # torch.load moves storages inside `with torch.apu.device(...)`
        previous = ext.current_device()
        index = dev if isinstance(dev, int) else torch.device(dev).index
        ext.set_device(previous if index is None else index)
        try:
            yield
        finally:
            ext.set_device(previous)

    module.device = device
    module.is_available = lambda: True
    module.is_initialized = lambda: True
    module._is_in_bad_fork = lambda: False
    module.synchronize = lambda device=None: None  # every op is synchronous
    # Random ops run on CPU with its generator, which torch.manual_seed seeds.
    module.manual_seed_all = lambda seed: None
    return module


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    try:
        return int(text) if text else default
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {text!r}") from None


def load(devices: int | None = None, fault: str | None = None, seed: int = 0) -> None:
    """Build if needed and register the "apu" device in this process (idempotent).

    The first call reads COMPAT_APU_DEVICES (unless devices is given),
    COMPAT_APU_FAULT and COMPAT_APU_SEED; a given fault overrides the latter two.
    """
    global _ext
    if _ext is None:
        import torch

        count = devices if devices is not None else _env_int("COMPAT_APU_DEVICES", 1)
        if not 1 <= count <= 64:
            raise ValueError(f"the apu device count (COMPAT_APU_DEVICES) must be 1..64, got {count}")
        spec = importlib.util.spec_from_file_location(_NAME, build())
        ext = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ext)
        ext.set_device_count(count)
        ext.set_fault(os.environ.get("COMPAT_APU_FAULT") or None, _env_int("COMPAT_APU_SEED", 0))
        if torch._C._get_privateuse1_backend_name() != "apu":
            torch.utils.rename_privateuse1_backend("apu")
        if not hasattr(torch.Tensor, "is_apu"):
            torch.utils.generate_methods_for_privateuse1_backend()
        if not hasattr(torch, "apu"):
            torch._register_device_module("apu", _device_module(ext))
        _ext = ext
        atexit.register(_release_autograd_threads)
    elif devices is not None and devices != _ext.device_count():
        raise RuntimeError(
            f"apu is loaded with {_ext.device_count()} devices; the count is fixed per process"
        )
    if fault is not None:
        set_fault(fault, seed)


def _release_autograd_threads() -> None:
    """Run a backward on every apu device, bypassing torch.autograd.backward.

    torch 2.13's backward keeps a Python object in its graph task, and the
    autograd thread of an accelerator device can drop the last reference to it
    after the interpreter began finalizing, which aborts the process
    ("terminate called without an active exception"). Once each device thread
    ran this graph it has let go of the previous one, and this one holds none.
    """
    import torch
    from torch.autograd.variable import Variable

    for index in range(_ext.device_count()):
        x = torch.zeros((), device=torch.device("apu", index), requires_grad=True)
        y = x.clone()  # native kernels only: no fault applies
        Variable._execution_engine.run_backward((y,), (torch.ones_like(y),), False, False, (), True, True)


def set_fault(name: str | None, seed: int = 0) -> None:
    """Switch to fault `name` (a FAULTS key; None switches faults off)."""
    load()
    _ext.set_fault(name, seed)


def counters() -> dict[str, dict[str, int]]:
    """{op: {"device": native calls, "fallback": CPU-fallback calls}} since the last reset."""
    load()
    return _ext.counters()


def reset_counters() -> None:
    load()
    _ext.reset_counters()


def autoload() -> None:
    """torch.backends entry point: load the device if it is already built (never compiles)."""
    if _library(None).exists():
        load()
