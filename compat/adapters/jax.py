"""JAX through jax.numpy, with 64-bit types enabled (x64) or not (x32, JAX's default).

Calls run op by op (``jax.disable_jit``): each primitive is compiled once
per dtype and shape and reused by every jnp function, where jnp's own jit
wrappers would compile every (function, input dtypes) pair anew. The
semantics are the same (promotion happens in Python either way, and XLA
fusion does not reassociate or contract floating-point operations); the
exhaustive dtype tables compile about five times less.

Compiled executables go to JAX's persistent compilation cache in compat's cache
directory (``compat.core.cache``), however short their compilation: xdist workers and
the x64/x32 configs share what they compile, and a second run compiles almost nothing.
A ``JAX_COMPILATION_CACHE_DIR`` of the user's own is kept.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from compat.adapters import patches
from compat.adapters.base import INSPECTION, Adapter
from compat.adapters.placement import Placement, probed
from compat.adapters.spelling import Setting, Spelling
from compat.core import cache, ops
from compat.devices import cuda
from compat.devices.plugins import JaxCpuDevices

FUNCTIONS = (
    "astype",
    "set_at",
    "add_at",
    "put_along_axis",
    "copy_to",
    "compiled_add",
    "grad",
    "jacobian",
    "per_example_grad",
    "hvp",
)


def option(key: str, name: str) -> Setting:
    """JAX's configuration option ``name``, as a config's ``key`` sets it."""

    def read():
        import jax

        value = getattr(jax.config, name)
        return {key: getattr(value, "value", value)}  # an option of several values is an Enum

    return Setting(f'jax.config.update("{name}", {{{key}!r}})', read)


def device_object(name: str):
    import jax

    platform, _, index = name.partition(":")
    return jax.devices(platform)[int(index or 0)]


def device_source(name: str) -> str:
    platform, _, index = name.partition(":")
    return f"jax.devices({platform!r})[{index or 0}]"


class JaxSpelling(Spelling):
    settings = (
        option("x64", "jax_enable_x64"),
        option("rank_promotion", "jax_numpy_rank_promotion"),
        option("dtype_promotion", "jax_numpy_dtype_promotion"),
    )

    def array(self, variable, dtype, device=None):
        if device is None:
            return f"jnp.asarray({variable})"
        return f"jax.device_put(jnp.asarray({variable}), {device_source(device)})"

    def scope(self, device):
        # uncommitted values (Python scalars, constants JAX makes itself) go to the default device
        return f"jax.default_device({device_source(device)})" if device else None


class JaxPlacement(Placement):
    def devices(self):
        import jax

        found = jax.devices("cpu") + (jax.devices("gpu") if cuda.jax_platforms() else [])
        return [f"{d.platform}:{d.id}" for d in found]

    def probe(self, device):
        """A GPU after a failed call (a CUDA launch failure or device-side assert leaves the
        process's CUDA context unusable, for every framework in it); JAX's CPU devices cannot be."""
        if not device or device.startswith("cpu"):
            return None
        import jax

        return probed(lambda: np.asarray(jax.device_put(np.ones(2, np.float32), device_object(device)) + 1))

    def device_of(self, value):
        devices = getattr(value, "devices", None)
        if devices is None:
            return None
        (device,) = devices()
        return f"{device.platform}:{device.id}"

    def placement_on(self, device):
        import jax

        # Uncommitted values on the default device compute as committed ones do, and
        # reuse the executables that runs without a device compiled; committing
        # them to cpu:0 would compile every operation once more.
        return None if device_object(device) == jax.devices()[0] else device


class JaxAdapter(Adapter):
    name = "jax"
    requires = "jax"
    namespace = "jnp"
    device_lost = r"CUDA_ERROR_(ASSERT|LAUNCH_FAILED|ILLEGAL_ADDRESS|ILLEGAL_INSTRUCTION)"
    imports = {"np": "numpy", "jax": "jax", "jnp": "jax.numpy", "ops": "compat.adapters.jax_ops"}
    Spelling = JaxSpelling
    Placement = JaxPlacement
    OPS = {
        "norm": "jnp.linalg.norm",
        "relu": "jax.nn.relu",
        **{op: f"ops.{op}" for op in FUNCTIONS},
        # searching, sorting, sets, statistics, utility (issue 31): include_initial
        "cumsum": "ops.cumsum",
        "cumprod": "ops.cumprod",
        # -- manipulation, creation and linear algebra (issue 31) --
        "from_dlpack": "ops.from_dlpack",
        # -- the fft extension (issue 33) --
        **{op: f"jnp.fft.{op}" for op in ops.select(group="fft")},
        # -- interchange (issue 33): another backend's array, imported as it is --
        "from_dlpack_of": "jnp.from_dlpack",
        "from_dlpack_written": "ops.from_dlpack_written",
        "from_dlpack_onto": "ops.from_dlpack_onto",
        **{op: f"ops.questions.{op}" for op in INSPECTION},  # compat.adapters.inspection
        "to_device": "ops.to_device",
        # -- the linalg extension (issue 33) --
        **{op: f"jnp.linalg.{op}" for op in ops.extension("linalg")},
    }
    CONFIGS = {
        "x64": {"x64": True},
        "x32": {"x64": False},
        # the numpy-behaviour settings users set (issue 32): x64 on, one setting each;
        # "warn" computes as the default does (a warning is not an outcome compat records)
        "rank_promotion=raise": {"x64": True, "rank_promotion": "raise"},
        "rank_promotion=warn": {"x64": True, "rank_promotion": "warn"},
        "dtype_promotion=strict": {"x64": True, "dtype_promotion": "strict"},
    }
    DEFAULT_CONFIGS = ("x64", "x32")
    CONFIG_FAMILIES = {  # (issue 32) the families whose rules each changes
        # rank promotion: operands of unequal ranks broadcast (x + y of arrays, x op= y, x @ y too)
        "rank_promotion=raise": ("broadcasting", "operators"),
        "rank_promotion=warn": ("broadcasting",),  # computes as the default: a warning is no outcome
        # strict: no implicit promotion between distinct dtypes, in functions and operators
        "dtype_promotion=strict": ("promotion", "operators"),
    }
    MODES = {"eager": "op by op (jax.disable_jit)", "jit": "jax.jit of the whole call, operands traced"}
    DEFAULT_MODES = ("jit",)
    MODE_LIMITS = {
        "jit": {
            op: "DLPack hands over a concrete buffer: a traced array has none"
            for op in ("from_dlpack", "from_dlpack_of", "from_dlpack_written", "from_dlpack_onto")
        }
    }
    POLICIES = {
        "default_matmul_precision(bfloat16)": "jax.default_matmul_precision: matmuls and convolutions "
        "with bfloat16 operands (one pass) where the hardware has them"
    }
    plugin = JaxCpuDevices()  # a second virtual CPU device
    # XLA's max and min order -0 below +0 in either argument order (IEEE 754-2019 maximum and
    # minimum), eager and jit alike; NumPy, torch and TensorFlow pick by argument position
    zero_order = {"maximum": 0.0, "minimum": -0.0}

    def __init__(self, label=""):
        super().__init__(label)
        # read when JAX starts; the environment also carries them to isolated calls' children
        os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(cache.directory("jax")))
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
        os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
        # errors are outcomes here, and filtering walks every frame of each one raised (about a
        # tenth of the dtype tables' time); records keep the message, never the traceback
        os.environ.setdefault("JAX_TRACEBACK_FILTERING", "off")
        # on a machine with a CUDA GPU: the CPU first, JAX's default device (the backend's own row
        # and its reference device), the GPU a device under test beside it (compat.devices.cuda)
        if cuda.jax_platforms():
            os.environ.setdefault("JAX_PLATFORMS", cuda.jax_platforms())
            # each test worker is a JAX process on the one GPU: none may take 75% of its memory at start
            os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

    def context(self, mode="eager"):
        import jax

        stack = contextlib.ExitStack()
        stack.enter_context(super().context(mode))
        stack.enter_context(patches.applied("jax-one-mlir-context"))  # its lowerings share one MLIR context
        if mode == "eager":
            stack.enter_context(jax.disable_jit())
        return stack

    def compile(self, mode, function):
        if mode != "jit":
            return super().compile(mode, function)
        import jax

        return jax.jit(function)

    def policy(self, name):
        if name not in self.POLICIES:
            return super().policy(name)
        import jax

        return jax.default_matmul_precision("bfloat16")
