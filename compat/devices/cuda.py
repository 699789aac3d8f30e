"""NVIDIA GPUs as devices under test (issue 35), found without starting a framework.

A run's controller chooses its rows before any framework starts (JAX fixes its devices when
its backend starts), so whether this machine has a CUDA device is asked of the driver itself
(libcuda's ``cuInit`` and ``cuDeviceGetCount``: milliseconds, no context made), and whether a
framework can use it of what is installed (JAX's CUDA plug-in) or of the framework's own
``is_available``. Each answer is a device name -> None (usable) or the one-line reason why not.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.metadata
import importlib.util
import pkgutil
import re


@functools.cache
def driver_devices() -> tuple[int, str]:
    """(the number of CUDA devices the driver sees, why none where it sees none)."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0, "no CUDA device (no NVIDIA driver: libcuda.so.1 not found)"
    status = driver.cuInit(0)
    if status != 0:  # 100: CUDA_ERROR_NO_DEVICE (CUDA_VISIBLE_DEVICES empty, or none installed)
        return 0, f"no CUDA device (the driver's cuInit returned error {status})"
    count = ctypes.c_int(0)
    status = driver.cuDeviceGetCount(ctypes.byref(count))
    if status != 0 or count.value == 0:
        return 0, f"no CUDA device (cuDeviceGetCount: error {status}, {count.value} device(s))"
    return count.value, ""


def torch_rows() -> dict[str, str | None]:
    """torch's ``cuda:0`` (torch.cuda.is_available()), or why not."""
    count, reason = driver_devices()
    if not count:
        return {"cuda:0": reason}
    import torch

    if not torch.cuda.is_available():
        return {"cuda:0": f"torch {torch.__version__} cannot use the CUDA device (built without CUDA?)"}
    return {"cuda:0": None}


def jax_cuda_plugin() -> str | None:
    """The JAX CUDA plug-in installed (module ``jax_plugins.xla_cuda13``, or a distribution
    ``jax-cuda13-pjrt``), without importing JAX."""
    if importlib.util.find_spec("jax_plugins") is not None:
        import jax_plugins  # a namespace package: the plug-ins' modules, not JAX

        found = [m.name for m in pkgutil.iter_modules(jax_plugins.__path__) if m.name.startswith("xla_cuda")]
        if found:
            return sorted(found)[-1]
    names = (d.metadata["Name"] or "" for d in importlib.metadata.distributions())
    return next((n for n in names if re.fullmatch(r"jax[-_]cuda\d+[-_]pjrt", n.lower())), None)


def jax_rows() -> dict[str, str | None]:
    """JAX's first GPU, ``gpu:0`` (its CUDA devices' platform is "gpu"), or why not."""
    count, reason = driver_devices()
    if not count:
        return {"gpu:0": reason}
    if jax_cuda_plugin() is None:
        return {"gpu:0": "JAX has no CUDA plug-in (pip install jax[cuda13])"}
    return {"gpu:0": None}


def jax_platforms() -> str | None:
    """JAX_PLATFORMS for a machine where JAX's GPU is a device under test: the CPU first, so that
    it stays JAX's default (the backend's own row and its reference device), the GPU beside it."""
    return "cpu,cuda" if jax_rows()["gpu:0"] is None else None


def readable(settings):
    """``settings`` as a function that never raises (a run's description reads them): a setting a
    framework version renamed becomes a line that says so."""

    @functools.wraps(settings)
    def read() -> dict[str, object]:
        try:
            return settings()
        except Exception as error:  # an attribute of another version's API
            return {"unreadable": f"{type(error).__name__}: {error}"}

    return read


@readable
def torch_settings() -> dict[str, object]:
    """torch's reduced-precision switches of its CUDA kernels, as in force (TF32 matmul off by
    default since 1.12, cuDNN's TF32 convolutions on, float16/bfloat16 reductions in reduced precision
    on): those that are on allow the GPU to differ from the CPU beyond rounding once."""
    if torch_rows()["cuda:0"] is not None:
        return {}
    import torch

    return {
        "torch.backends.cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "torch.backends.cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction": (
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
        ),
        "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction": (
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
        ),
        "torch.get_float32_matmul_precision()": torch.get_float32_matmul_precision(),
    }


@readable
def jax_settings() -> dict[str, object]:
    """JAX's matmul precision, as in force (None: the default, which on a GPU runs float32 matmuls and
    convolutions in TF32 where the GPU has it; 'highest' asks for float32)."""
    if jax_platforms() is None:
        return {}
    import jax

    return {"jax_default_matmul_precision": getattr(jax.config, "jax_default_matmul_precision", None)}
