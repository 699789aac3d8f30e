"""PyTorch through its NumPy-like functions (torch.add, torch.where, ...)."""

from __future__ import annotations

import contextlib
import functools

from compat.adapters import patches
from compat.adapters.base import INSPECTION, Adapter
from compat.adapters.declared import unsupported
from compat.adapters.interchange import Interchange
from compat.adapters.placement import Placement, probed
from compat.adapters.spelling import Setting, Spelling
from compat.adapters.values import Values
from compat.core import dtypes, ops
from compat.devices.plugins import TorchApu

DLPACK_TRACED = "DLPack hands over a concrete buffer: a traced (or lazy) tensor has none"
FUNCTIONS = (
    "prod",
    "cumsum",
    "take",
    "take_along_axis",
    "put_along_axis",
    "transpose",
    "astype",
    "set_at",
    "add_at",
    "copy_to",
    "grad",
    "jacobian",
    "per_example_grad",
    "hvp",
)


@functools.cache
def start_lazy_backend() -> None:
    import torch._lazy.ts_backend

    torch._lazy.ts_backend.init()


def on_lazy_device(function):
    """``function`` run on torch's lazy device (the adapter's context makes the call's tensors
    there): its operations are recorded, then compiled and run together at ``mark_step`` (the
    LazyTensor design of X10); results come back to the CPU."""
    import torch
    import torch._lazy

    def to_cpu(value):
        if isinstance(value, torch.Tensor):
            value = value.cpu()
            # a result computed from a Python number on the left (2 << x) comes back wrapped for
            # functionalization, and that wrapper's .numpy() reads another buffer
            return torch._from_functional_tensor(value) if torch._is_functional_tensor(value) else value
        return type(value)(to_cpu(v) for v in value) if isinstance(value, (tuple, list)) else value

    def run(*operands):
        result = function(*operands)
        try:
            torch._lazy.mark_step()
        except Exception:
            # the device keeps the failure and raises it again at the next call's mark_step,
            # until it is read once more
            with contextlib.suppress(Exception):
                torch._lazy.wait_device_ops()
            raise
        return to_cpu(result)

    return run


def default_dtype_in_force() -> dict[str, str]:
    import torch

    return {"default_dtype": str(torch.get_default_dtype()).removeprefix("torch.")}


class TorchSpelling(Spelling):
    # the default dtype users set (issue 32)
    settings = (Setting("torch.set_default_dtype(torch.{default_dtype})", default_dtype_in_force),)

    def array(self, variable, dtype, device=None):
        on = f", device={device!r}" if device else ""
        if dtype == "bfloat16":  # torch cannot read ml_dtypes arrays: their bits, as int16
            return f"torch.asarray({variable}.view(np.int16){on}).view(torch.bfloat16)"
        # (on the CPU torch.asarray shares the NumPy array's memory: the harness hands it a copy,
        # which an in-place operator, x += y, may change)
        return f"torch.asarray({variable}{on})"

    def scope(self, device):
        # torch.device as a context manager: factory functions (asarray of Python values) create there
        return f"torch.device({device!r})" if device else None


class TorchValues(Values):
    def to_numpy(self, value):
        import torch

        # device="cpu": under the lazy mode's default-device context a bare as_tensor moved the
        # result back onto the lazy device, a round trip that changed what was read (complex32
        # failed to hash there); conj/neg views refuse .numpy()
        value = torch.as_tensor(value, device="cpu").detach().resolve_conj().resolve_neg()
        if value._is_zerotensor():  # forward-mode AD's symbolic zeros (hvp of a linear f) refuse .numpy()
            value = torch.zeros_like(value)
        if value.dtype == torch.bfloat16:  # bit for bit: through float32, NaN payloads would be lost
            return value.view(torch.int16).numpy().view(dtypes.to_numpy("bfloat16"))
        return value.numpy()

    def is_shape(self, value):
        import torch

        return isinstance(value, torch.Size) or super().is_shape(value)

    def dtype_name(self, value):
        import torch

        return (
            str(value).removeprefix("torch.") if isinstance(value, torch.dtype) else super().dtype_name(value)
        )

    def classify(self, error):
        # torch.compile wraps what the traced call raised (a TypeError "when making fake
        # tensor call"): the cause says what kind, as eager's own error does
        while (
            type(error).__module__.startswith("torch._dynamo")
            and (error.__cause__ or error.__context__) is not None
        ):
            error = error.__cause__ or error.__context__
        # torch raises RuntimeError for nearly everything; its messages say what kind
        message = str(error).lower()
        if isinstance(error, RuntimeError):
            if (
                "negative integer powers" in message or "ambiguous" in message
            ):  # bool(x) of several: NumPy's ValueError
                return "value"
            if "is not supported" in message or "not supported for" in message or "can't be cast" in message:
                return "dtype"
        return super().classify(error)


class TorchPlacement(Placement):
    def probe(self, device):
        """A CUDA device after a failed call: an index out of bounds is a device-side assert there
        (the CPU raises IndexError), after which every CUDA call of the process fails."""
        if not device or not device.startswith("cuda"):
            return None
        import torch

        def computes():
            torch.cuda.synchronize(device)
            (torch.ones(2, device=device) + 1).cpu()

        return probed(computes)

    def devices(self):
        import torch

        found = ["cpu:0"]
        if torch.cuda.is_available():  # a CUDA GPU (issue 35)
            found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
        backend = torch._C._get_privateuse1_backend_name()
        if backend != "privateuseone" and hasattr(torch, backend):
            found += [f"{backend}:{i}" for i in range(getattr(torch, backend).device_count())]
        return found

    def device_of(self, value):
        device = getattr(value, "device", None)
        return None if device is None else f"{device.type}:{device.index or 0}"


class TorchInterchange(Interchange):
    writable = True

    def made_for_export(self, values, device):
        # from_numpy's tensor shares a NumPy copy's memory; a clone is in torch's own (64-byte aligned)
        return super().made_for_export(values, device).clone()

    def overwrite(self, array, values):
        array.copy_(self.adapter.values.from_numpy(values, None))


class TorchAdapter(Adapter):
    name = "torch"
    requires = "torch"
    namespace = "torch"
    device_lost = (
        r"AcceleratorError|CUDA error: (device-side assert|unspecified launch failure|an illegal memory)"
    )
    imports = {"np": "numpy", "torch": "torch", "ops": "compat.adapters.torch_ops"}
    Spelling = TorchSpelling
    Values = TorchValues
    Placement = TorchPlacement
    Interchange = TorchInterchange
    OPS = {
        "power": "torch.pow",
        "equal": "torch.eq",
        "not_equal": "torch.ne",
        "less": "torch.lt",
        "less_equal": "torch.le",
        "greater": "torch.gt",
        "greater_equal": "torch.ge",
        "max": "ops.amax",
        "min": "ops.amin",
        "norm": "torch.linalg.norm",
        "relu": "torch.relu",
        "compiled_add": unsupported(
            "not mapped: torch.compile runs as an execution mode (--modes torch:compile), "
            "not yet on compat's apu device"
        ),
        **{op: f"ops.{op}" for op in FUNCTIONS},
        # the data type functions (issue 31)
        "result_type": "ops.result_type",  # torch.result_type takes tensors and numbers, not dtypes
        "isdtype": unsupported(
            "torch has no isdtype (the standard's and NumPy 2's; array-api-compat's torch namespace adds one)"
        ),
        # -- elementwise --
        "bitwise_invert": "torch.bitwise_not",
        # searching, sorting, sets, statistics, utility (issue 31): torch's dim and keepdim
        **{
            op: f"ops.{op}"
            for op in (
                *("argmax", "argmin", "count_nonzero", "nonzero", "sort", "argsort", "cumprod"),
                *("var", "std", "diff"),
                *("unique_all", "unique_counts", "unique_inverse", "unique_values"),
            )
        },
        "all": "ops.every",
        "any": "ops.some",
        # -- manipulation, creation and linear algebra (issue 31) --
        "broadcast_arrays": "torch.broadcast_tensors",
        **{
            op: f"ops.{op}"
            for op in (
                "expand_dims",
                "flip",
                "repeat",
                "roll",
                "squeeze",
                "stack",
                "unstack",
                "arange",
                "eye",
                "from_dlpack",
                "linspace",
                "tril",
                "triu",
                "matrix_transpose",
                "tensordot",
                "vecdot",
            )
        },
        # -- NaN-ignoring reductions (issue 32) --
        "nansum": "ops.nansum",
        "nanmean": "ops.nanmean",
        **{
            op: unsupported(f"torch has no {op}: {instead}")
            for op, instead in (
                ("nanprod", "torch.prod propagates NaN"),
                ("nanmax", "torch.amax propagates NaN (torch.fmax is elementwise)"),
                ("nanmin", "torch.amin propagates NaN (torch.fmin is elementwise)"),
                ("nanargmax", "torch.argmax propagates NaN"),
                ("nanargmin", "torch.argmin propagates NaN"),
                ("nanvar", "torch.var propagates NaN"),
                ("nanstd", "torch.std propagates NaN"),
                ("nancumsum", "torch.cumsum propagates NaN"),
                ("nancumprod", "torch.cumprod propagates NaN"),
            )
        },
        # -- the fft extension (issue 33): torch.fft's dim for axis and axes --
        **{op: f"ops.{op}" for op in ops.select(group="fft")},
        # -- the standard's special cases (issue 32) --
        # the standard's sign of a complex number is x / |x|: torch.sgn (torch.sign refuses
        # complex and points there; on real and bool tensors the two are the same function)
        "sign": "torch.sgn",
        # -- interchange (issue 33): another backend's array, imported as it is --
        "from_dlpack_of": "torch.from_dlpack",
        "from_dlpack_written": "ops.from_dlpack_written",
        "from_dlpack_onto": "ops.from_dlpack_onto",
        **{
            op: unsupported(
                "torch has no __array_namespace_info__ (array_api_compat's torch namespace adds one; not installed)"
            )
            for op in INSPECTION
        },
        "to_device": unsupported(
            "a torch tensor has no to_device method: Tensor.to(device) is torch's (copy_to)"
        ),
        # -- the linalg extension (issue 33): torch.linalg, with dim for axis and keepdim for keepdims
        # (compat.adapters.torch_ops); the outer product is torch.outer --
        **{op: f"torch.linalg.{op}" for op in ops.extension("linalg")},
        **{op: f"ops.{op}" for op in ("matrix_norm", "vector_norm")},
        "cross": "ops.linalg_cross",
        "trace": "ops.linalg_trace",
        "outer": "torch.outer",
    }
    plugin = TorchApu()  # compat's reference PrivateUse1 device, "apu" (compat/devices/torch_apu.cpp)
    # the default dtype users set (issue 32): Python floats and float factories give float64 (TorchSpelling)
    CONFIGS = {"": {}, "default_dtype=float64": {"default_dtype": "float64"}}
    # in the default run (issue 32): the families whose rules it changes (the dtype of arrays made
    # from Python floats or of no dtype asked for; integer-to-float functions)
    CONFIG_FAMILIES = {"default_dtype=float64": ("creation", "promotion")}
    MODES = {
        "eager": "op by op",
        "compile": "torch.compile(fullgraph=True, dynamic=True), shapes static, Python-number "
        "operands symbolic; the aot_eager backend (traced, not code-generated)",
        "inductor": "torch.compile as in compile, with inductor, which generates C++ (g++)",
        "lazy": "lazy tensors (torch._lazy, TorchScript backend): recorded, then run at mark_step",
    }
    DEFAULT_MODES = ("compile", "lazy")
    POLICIES = {
        "autocast(cpu, bfloat16)": "torch.autocast on the CPU: matmul-like operations in bfloat16, the rest as listed "
        "in torch's autocast op reference",
        "autocast(cpu, float16)": "torch.autocast on the CPU with float16",
    }
    # declared, not run: each call would kill its process (a crash costs a new process every time)
    MODE_LIMITS = {
        "lazy": {
            "hvp": "forward-mode AD (torch.func.jvp, make_dual) on lazy tensors segfaults, every time",
            "from_dlpack": DLPACK_TRACED,  # issue 31
            "from_dlpack_of": DLPACK_TRACED,
            "from_dlpack_written": DLPACK_TRACED,
            "from_dlpack_onto": DLPACK_TRACED,
        },
        **{
            mode: {
                op: DLPACK_TRACED
                for op in ("from_dlpack", "from_dlpack_of", "from_dlpack_written", "from_dlpack_onto")
            }
            for mode in ("compile", "inductor")
        },
    }

    def context(self, mode="eager"):
        stack = contextlib.ExitStack()
        stack.enter_context(super().context(mode))
        if mode != "lazy":
            return stack
        import torch

        start_lazy_backend()
        stack.enter_context(
            torch.device("lazy")
        )  # the call's tensors, and its program's constants, are made there
        return stack

    def policy(self, name):
        if name not in self.POLICIES:
            return super().policy(name)
        import torch

        return torch.autocast("cpu", dtype=torch.bfloat16 if "bfloat16" in name else torch.float16)

    def compile(self, mode, function):
        if mode == "lazy":
            return on_lazy_device(function)
        if mode not in ("compile", "inductor"):
            return super().compile(mode, function)
        import torch._dynamo

        compiled = torch.compile(
            function, backend="aot_eager" if mode == "compile" else "inductor", fullgraph=True, dynamic=True
        )

        def run(*operands):
            # Every call compiles as in a new process: dynamo remembers, per code location, the
            # values an input took before and makes it symbolic once it changes, so a call's result
            # would depend on the calls before it. Python-number operands are symbols always (what a
            # compiled function meets from its second call with a new value on), shapes static.
            # dynamo's settings for these modes, and its guard profiling skipped, for this
            # call only (compat.adapters.patches)
            with patches.applied("torch-dynamo-config"), patches.applied("torch-dynamo-guard-profile"):
                torch.compiler.reset()
                for operand in operands:
                    if isinstance(operand, torch.Tensor):
                        torch._dynamo.mark_static(operand)
                return compiled(*operands)

        return run
