"""What a device promises about its results, as its vendor documents it: its contract.

A device row is judged by its contract, not by its CPU's bits. CUDA documents its math library
within a few ULP of the correctly rounded result (not correctly rounded, as a CPU's libm may be:
two right answers differ), XLA's GPU backend divides float32 with PTX's ``div.full``, CuPy compiles
every kernel with ``-ftz=true``. Each ``Clause`` says which operations and result dtypes it covers,
and what it allows: a result within ``ulps`` of the correctly rounded one, or a difference that
subnormals flushed to zero explain. A device's mismatch that a clause allows (against NumPy or
against its reference device) is a record of its own status, ``contract``, never a failure; one
outside every clause is a divergence. What is no accuracy matter (the order of duplicate-index
writes, a sign of zero the standard leaves open) is not here: it is the registry's, by behaviour.

The ULP figures of the CUDA C++ Programming Guide (5.5.7, "Maximum ULP error") are observed maxima
that change between CUDA releases: each is the larger of the current guide's and the older guide's
(CUDA 12's appendix). JAX's accuracy page measures against the exact value (0.5 ULP is correctly
rounded): its bounds are taken plus half a ULP, as distances from the correctly rounded result.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

CUDA_GUIDE = "https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/mathematical-functions.html"
JAX_ACCURACY = "https://docs.jax.dev/en/latest/accuracy.html"
XLA_NVPTX = "https://github.com/openxla/xla/blob/main/xla/service/gpu/llvm_gpu_backend/nvptx_backend.cc"
XLA_DEVICE_FUNCTIONS = "https://github.com/openxla/xla/blob/main/xla/service/gpu/target_util.cc"
TORCH_DIV = "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/BinaryDivTrueKernel.cu"
TORCH_COMPLEX = "https://github.com/pytorch/pytorch/blob/main/c10/util/complex.h"
CUPY_COMPILER = "https://github.com/cupy/cupy/blob/main/cupy/cuda/compiler.py"


@dataclass(frozen=True)
class Clause:
    """One promise of a contract (see the module's docstring)."""

    says: str  # the rule, as the source puts it, shortened
    source: str
    ops: tuple[str, ...] = ()  # the table's functions it covers (an operator: the function it computes)
    dtypes: tuple[str, ...] = ()  # the result dtypes it covers
    ulps: float | None = None  # within this many ULP of the correctly rounded result
    flushed: bool = False  # a difference that subnormals read and written as zero explain
    keeps_subnormals: bool = False  # where its reference device flushes them: a result that is NumPy's
    nan_bits: bool = False  # a NaN's payload and sign are not kept
    by_number: bool = False  # only where an operand is a Python number (x / 3.0, 3.0 / x)

    def covers(self, op: str, dtype: str | None, by_number: bool = False) -> bool:
        """Whether it speaks of function ``op`` with a result of ``dtype`` (``by_number``: an
        operand is a Python number)."""
        if self.ops and op not in self.ops:
            return False
        if self.dtypes and dtype not in self.dtypes:
            return False
        return by_number or not self.by_number

    def __str__(self) -> str:
        return f"{self.says} ({self.source})"


@dataclass(frozen=True)
class Contract:
    name: str
    rows: tuple[tuple[str, str], ...]  # (backend name, device glob) it applies to
    clauses: tuple[Clause, ...]

    def applies_to(self, backend: str, device: str) -> bool:
        return any(backend == name and fnmatchcase(device, glob) for name, glob in self.rows)


# CUDA's math library, default compilation (no --use_fast_math): function -> (float32, float64) ULP
CUDA_ULPS = {
    "exp": (2, 1),
    "expm1": (1, 1),
    "log": (1, 1),
    "log2": (1, 1),
    "log10": (2, 1),
    "log1p": (1, 1),
    "sin": (2, 2),
    "cos": (2, 2),
    "tan": (4, 2),
    "asin": (4, 2),
    "acos": (3, 2),
    "atan": (2, 2),
    "atan2": (3, 2),
    "sinh": (3, 2),
    "cosh": (2, 1),
    "tanh": (2, 1),
    "asinh": (3, 3),
    "acosh": (4, 3),
    "atanh": (3, 2),
    "power": (8, 2),
    "hypot": (3, 2),
}
HALF = ("float16", "bfloat16")


def ulp_clauses(table: Mapping[str, tuple[float, float]], what: str, source: str, plus: float = 0.0):
    """One clause per function and dtype of a table of (float32, float64) ULP bounds."""
    return tuple(
        Clause(f"{what}: {op} of {dtype} within {bound:g} ULP", source, (op,), (dtype,), bound + plus)
        for op, bounds in table.items()
        for dtype, bound in zip(("float32", "float64"), bounds)
    )


CUDA_MATH = (
    *ulp_clauses(CUDA_ULPS, "CUDA math library (Programming Guide 5.5.7)", CUDA_GUIDE),
    Clause(
        "CUDA: 'Floating-point operations may alter the bit patterns of input NaN payloads', and a NaN's "
        "sign (Programming Guide 5.5.3)",
        CUDA_GUIDE,
        nan_bits=True,
    ),
    Clause(
        "CUDA: half-precision functions are computed in float and rounded to the half type once: 1 ULP",
        CUDA_GUIDE,
        tuple(CUDA_ULPS),
        HALF,
        1,
    ),
)

TORCH_CUDA = Contract(
    "torch on CUDA",
    (("torch", "cuda:*"),),
    (
        *CUDA_MATH,
        Clause(
            "torch's CUDA division by a Python number multiplies by its reciprocal ('may lose one bit of "
            "precision compared to computing the division')",
            TORCH_DIV,
            ("true_divide",),
            ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"),
            1,
            by_number=True,
        ),
        Clause(
            "torch's complex division: Smith's algorithm, scaled by a reciprocal (c10::complex operator/=)",
            TORCH_COMPLEX,
            ("true_divide",),
            ("complex64", "complex128"),
            2,
        ),
    ),
)

# JAX's accuracy page, NVIDIA GPU (H100, B200): function -> (float32, float64) ULP against the exact value
JAX_GPU_ULPS = {
    "exp": (2.0, 1.5),
    "expm1": (1.5, 1.5),
    "log": (1.0, 1.5),
    "log2": (2.0, 1.5),
    "log10": (2.5, 2.5),
    "log1p": (1.0, 1.5),
    "sin": (1.5, 2.5),
    "cos": (2.0, 1.5),
    "tan": (3.5, 2.5),
    "asin": (1.5, 2.5),
    "acos": (1.5, 1.5),
    "atan": (1.5, 2.5),
    "atan2": (3.0, 1.5),
    "sinh": (3.0, 2.5),
    "cosh": (2.5, 2.5),
    "tanh": (5.5, 3.5),
    "asinh": (2.0, 2.5),
    "acosh": (2.5, 2.5),
    "atanh": (3.5, 3.5),
    "sqrt": (1.0, 0.5),
    "reciprocal": (1.0, 0.5),
    "hypot": (2.0, 1.5),
}
JAX_GPU_BFLOAT16 = {"exp": 1.0, "log2": 2.0, "log10": 2.0, "atan2": 1.0, "hypot": 1.5}  # the rest 0.5

XLA_GPU = Contract(
    "JAX on XLA's GPU backend",
    (("jax", "gpu:*"), ("jax", "cuda:*")),
    (
        *ulp_clauses(JAX_GPU_ULPS, "JAX's accuracy on NVIDIA GPUs", JAX_ACCURACY, plus=0.5),
        # JAX's page lists no power: XLA's GPU backend calls libdevice's __nv_pow, CUDA's own
        *ulp_clauses(
            {"power": CUDA_ULPS["power"]}, "XLA's GPU power is CUDA's pow (__nv_pow)", XLA_DEVICE_FUNCTIONS
        ),
        *(
            Clause(
                f"JAX's accuracy on NVIDIA GPUs: {op} of bfloat16 within {bound:g} ULP",
                JAX_ACCURACY,
                (op,),
                ("bfloat16",),
                bound + 0.5,
            )
            for op, bound in {**dict.fromkeys(JAX_GPU_ULPS, 0.5), **JAX_GPU_BFLOAT16}.items()
        ),
        Clause(
            "XLA divides float32 with PTX's div.full (-nvptx-prec-divf32=1: 'maximum ulp error is 2')",
            XLA_NVPTX,
            ("true_divide",),
            ("float32",),
            2,
        ),
        Clause(
            "XLA's CPU backend flushes subnormals (denormal-fp-math=preserve-sign), its GPU backend keeps "
            "them (xla_gpu_ftz defaults to false): a difference that flushing explains",
            XLA_NVPTX,
            flushed=True,
        ),
        Clause(
            "XLA's GPU backend keeps the subnormals its CPU backend flushes: a result of subnormals that "
            "is NumPy's, where the CPU's is not (sign, equal, astype and log of a subnormal)",
            XLA_NVPTX,
            keeps_subnormals=True,
        ),
    ),
)

CUPY = Contract(
    "CuPy",
    (("cupy", "cuda:*"),),
    (
        *CUDA_MATH,
        Clause(
            "CuPy compiles every kernel with -ftz=true: float32 subnormals (and the half types' floats) "
            "are read and written as zero",
            CUPY_COMPILER,
            dtypes=("float32", "complex64", *HALF),
            flushed=True,
        ),
    ),
)

CONTRACTS = (TORCH_CUDA, XLA_GPU, CUPY)


def of(backend: str, device: str | None) -> Contract | None:
    """The contract of a backend (its name) on a device (its reference device where it has no
    other: CuPy's cuda:0), or None: the device is judged by its reference's rules."""
    if device is None:
        return None
    return next((c for c in CONTRACTS if c.applies_to(backend, device)), None)
