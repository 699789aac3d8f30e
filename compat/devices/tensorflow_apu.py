"""A reference TensorFlow PluggableDevice, "APU", built from tensorflow_apu.cc.

The plug-in is compiled with g++ against the C API headers and
libtensorflow_framework.so.2 of the installed TensorFlow wheel. Its device
memory is host memory and its kernels (arithmetic, comparisons, Cast, MatMul,
reductions, AddN, BroadcastTo) equal TensorFlow's CPU kernels bit for bit
(NaN payloads and some float GEMM roundings aside, see the source), so a
difference from CPU means a fault was switched on (see FAULTS) or the code
under test is wrong. Every other op falls back to CPU under soft placement.

Configuration is read when TensorFlow loads the plug-in: COMPAT_APU_DEVICES
(device count, default 1), COMPAT_APU_FAULT and COMPAT_APU_SEED; set_fault
switches faults afterwards. x86-64 Linux only: the kernels mirror what
TensorFlow's AVX build of Eigen does lane by lane.
"""

from __future__ import annotations

import ctypes
import fcntl
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from compat.core import cache
from compat.devices import DeviceBuildError

FAULTS: dict[str, str] = {
    "relu_negative_zero": "Relu returns the other signed zero for -0.0 than TensorFlow's CPU kernel",
    "sum_float16_accumulate": "Sum over float32/float64 rounds each value and the running sum to float16",
    "float64_as_float32": "float64 AddV2/Sub/Mul/RealDiv compute in float32 and widen the result",
    "broadcast_stride": "AddV2/Sub/Mul/Maximum (seed % 4 picks) reads its full operand with stride 0 "
    "along the outermost broadcast dim",
    "copy_truncate": "APU -> host copies leave the last min(size, 4) bytes of the destination as they were",
    "matmul_transpose": "MatMul ignores transpose_b (reads b's buffer untransposed)",
    "graph_relu": "relu_negative_zero on threads other than the one that loaded the plug-in: TensorFlow's graph "
    "executor threads (tf.function); eager runs kernels on the caller's thread and is right",
    "mul_rounds_toward_zero": "float32 Mul rounds toward zero instead of to nearest: inexact products are one ULP "
    "too small in magnitude about half the time",
}
# Faults that kill or stall the process: the self-test runs them apart (compat.harness.casualties)
FATAL_FAULTS: dict[str, str] = {
    "abort_in_kernel": "Mul on float32 calls abort(): the process dies with SIGABRT",
    "hang_in_kernel": "Sub on float32 never completes (it sleeps forever)",
}

_SOURCE = Path(__file__).with_suffix(".cc")
# -ffp-contract=off: the kernels round every product and sum exactly where
# TensorFlow's CPU kernels do; a fused multiply-add would change results.
_CXXFLAGS = ["-O2", "-std=c++17", "-shared", "-fPIC", "-fvisibility=hidden", "-ffp-contract=off"]

_library: ctypes.CDLL | None = None


def _cache_root(cache_dir: Path | None) -> Path:
    if cache_dir is not None:
        return Path(cache_dir)
    return cache.directory("devices")


def _tensorflow() -> tuple[Path, str]:
    """The installed TensorFlow package directory and version, without importing it."""
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        raise DeviceBuildError("cannot build the APU device: TensorFlow is not installed")
    package = Path(next(iter(spec.submodule_search_locations)))
    for dist in importlib.metadata.packages_distributions().get("tensorflow", []):
        return package, importlib.metadata.version(dist)
    raise DeviceBuildError(f"cannot build the APU device: no distribution provides {package}")


def _compile_command(package: Path, output: Path) -> list[str]:
    # What tf.sysconfig.get_compile_flags()/get_link_flags() give, minus the
    # C++ ABI and Eigen defines: the plug-in uses TensorFlow's C API only.
    return [
        "g++", *_CXXFLAGS, f"-I{package / 'include'}", str(_SOURCE), "-o", str(output),
        f"-L{package}", "-l:libtensorflow_framework.so.2", f"-Wl,-rpath,{package}",
    ]  # fmt: skip


def _first_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return next(
        (line for line in lines if re.search(r"\berror\b", line)), lines[-1] if lines else "no output"
    )


def build(cache_dir: Path | None = None, force: bool = False) -> Path:
    """Compile the plug-in unless this source is built for this TensorFlow; return the .so."""
    package, version = _tensorflow()
    if (
        not (package / "include/tensorflow/c/kernels.h").is_file()
        or not (package / "libtensorflow_framework.so.2").is_file()
    ):
        raise DeviceBuildError(f"cannot build the APU device: no C API headers or library in {package}")
    if shutil.which("g++") is None:
        raise DeviceBuildError("cannot build the APU device: g++ is not on PATH")
    key = hashlib.sha256(_SOURCE.read_bytes() + " ".join(_compile_command(package, Path())).encode())
    library = _cache_root(cache_dir) / f"tensorflow_apu-{version}-{key.hexdigest()[:16]}.so"
    library.parent.mkdir(parents=True, exist_ok=True)
    with open(library.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, e.g. across xdist workers
        if library.exists() and not force:
            return library
        # Compile beside the cache entry and rename: a crash never leaves a
        # half-written library that looks built.
        fd, scratch = tempfile.mkstemp(suffix=".so", dir=library.parent)
        os.close(fd)
        try:
            proc = subprocess.run(_compile_command(package, Path(scratch)), capture_output=True, text=True)
            if proc.returncode != 0:
                raise DeviceBuildError(
                    f"cannot build the APU device: {_first_error(proc.stderr + proc.stdout)}"
                )
            os.replace(scratch, library)
        finally:
            Path(scratch).unlink(missing_ok=True)
    return library


# The plug-in rejects bad settings too, but TensorFlow aborts the process then.
def _check_fault(name: str | None, where: str = "") -> None:
    if name and name not in FAULTS and name not in FATAL_FAULTS:
        raise ValueError(
            f"unknown APU fault {name!r}{where}; known faults: {', '.join([*FAULTS, *FATAL_FAULTS])}"
        )


def _check_devices(devices: object, where: str = "") -> None:
    if not str(devices).isdigit() or not 1 <= int(devices) <= 64:
        raise ValueError(f"the APU device count must be an integer from 1 to 64, not {devices!r}{where}")


def configure(devices: int = 1, fault: str | None = None, seed: int = 0) -> None:
    """Set the environment the plug-in reads when TensorFlow loads it (so, before load)."""
    _check_devices(devices)
    _check_fault(fault)
    os.environ["COMPAT_APU_DEVICES"] = str(int(devices))
    os.environ["COMPAT_APU_FAULT"] = fault or ""
    os.environ["COMPAT_APU_SEED"] = str(int(seed))


def load(path: Path | None = None) -> None:
    """Make the APU devices and kernels available in this process (idempotent).

    TensorFlow loads PluggableDevice plug-ins from TF_PLUGGABLE_DEVICE_LIBRARY_PATH
    and site-packages/tensorflow-plugins only while `import tensorflow` runs;
    load_pluggable_device_library does the same later and re-enumerates the
    physical devices, which works until the eager context is initialised (the
    first op or logical-device query), so call this before either.
    """
    global _library
    if _library is not None:
        return
    _check_devices(os.environ.get("COMPAT_APU_DEVICES") or 1, " in COMPAT_APU_DEVICES")
    _check_fault(os.environ.get("COMPAT_APU_FAULT"), " in COMPAT_APU_FAULT")
    path = Path(path) if path is not None else build()
    try:  # already loaded by TensorFlow itself, from TF_PLUGGABLE_DEVICE_LIBRARY_PATH
        library = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_NOLOAD)
    except OSError:
        import tensorflow  # noqa: F401  (load_library needs the framework loaded)
        from tensorflow.python.eager import context
        from tensorflow.python.framework import load_library

        if context.context()._context_handle is not None:
            raise RuntimeError("load the APU plug-in before TensorFlow runs its first op") from None
        load_library.load_pluggable_device_library(str(path))
        # The same path gives the dlopen handle of the library TensorFlow loaded.
        library = ctypes.CDLL(str(path))
    library.compat_apu_set_fault.argtypes = [ctypes.c_char_p, ctypes.c_uint64]
    library.compat_apu_counters.argtypes = [ctypes.c_char_p, ctypes.c_int]
    _library = library


def _loaded() -> ctypes.CDLL:
    if _library is None:
        raise RuntimeError("the APU plug-in is not loaded in this process (call load())")
    return _library


def set_fault(name: str | None, seed: int = 0) -> None:
    """Switch to fault `name` (a FAULTS key; None switches faults off) in this process."""
    _check_fault(name)
    _loaded().compat_apu_set_fault((name or "").encode(), seed)


def counters() -> dict[str, int]:
    """Kernel launches per op on the APU devices since load or the last reset."""
    library = _loaded()
    size = library.compat_apu_counters(None, 0) + 1
    buffer = ctypes.create_string_buffer(size)
    library.compat_apu_counters(buffer, size)
    return {op: int(n) for op, n in (line.split() for line in buffer.value.decode().splitlines())}


def reset_counters() -> None:
    _loaded().compat_apu_reset_counters()
