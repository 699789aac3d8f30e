"""TensorFlow through tf.experimental.numpy with NumPy behaviour enabled.

tnp's settings are process-wide; the adapter applies its config before each
call where TensorFlow's current settings differ, so two configs can share a process.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from compat.adapters.base import INSPECTION, Adapter
from compat.adapters.declared import unsupported
from compat.adapters.placement import Placement
from compat.adapters.spelling import Setting, Spelling
from compat.adapters.values import Values
from compat.core import ops
from compat.devices.plugins import TensorflowApu

LEGACY = {"dtype_conversion_mode": "legacy", "prefer_float32": False}
FUNCTIONS = ("set_at", "add_at", "copy_to", "compiled_add", "grad", "jacobian", "per_example_grad", "hvp")


def numpy_behaviour() -> dict:
    """tnp's settings in force (TensorFlow starts with the conversion mode "off")."""
    from tensorflow.python.framework import ops as framework
    from tensorflow.python.ops.numpy_ops import np_dtypes

    return {
        "dtype_conversion_mode": framework.get_dtype_conversion_mode().name.lower(),
        "prefer_float32": np_dtypes.is_prefer_float32(),
    }


class TensorflowSpelling(Spelling):
    # process-wide and one-way (NumPy's methods on tf.Tensor stay): a call sets its row's config
    # where another is in force, and leaves it; every config states both settings
    settings = (
        Setting(
            "tnp.experimental_enable_numpy_behavior("
            "dtype_conversion_mode={dtype_conversion_mode!r}, prefer_float32={prefer_float32!r})",
            numpy_behaviour,
            restore=False,
        ),
    )

    def array(self, variable, dtype, device=None):
        return f"tnp.asarray({variable})"  # on the device of the scope it is made in

    def dtype(self, name):
        return {"bool": "tnp.bool_", "bfloat16": "tf.bfloat16"}.get(name, f"tnp.{name}")

    def scope(self, device):
        # explicit CPU by default: with the APU loaded, TensorFlow would prefer it (a plug-in
        # installed where a reproducer runs would otherwise take the call)
        return f"tf.device({device or self.adapter.reference_device!r})"


class TensorflowValues(Values):
    def to_numpy(self, value):
        return value.numpy() if hasattr(value, "numpy") else np.asarray(value)

    def dtype_name(self, value):
        import tensorflow as tf

        return value.name if isinstance(value, tf.dtypes.DType) else super().dtype_name(value)

    def is_shape(self, value):
        import tensorflow as tf

        if isinstance(value, tf.TensorShape):
            return value.is_fully_defined()
        return super().is_shape(value)

    def classify(self, error):
        message = str(error)
        if message.startswith("Graph execution error"):
            # a graph names the error after the Python traceback of the node it was detected at,
            # whose source lines would read as the error's words
            # (an OpError, of no Python category of its own: its message decides)
            lines = message.splitlines()
            last = max((i for i, line in enumerate(lines) if line.startswith("  File ")), default=0)
            error = RuntimeError(message := "\n".join(lines[last + 1 :]))
        if (
            "Could not find device for node" in message
            or "registered kernels" in message.lower()
            or "is not in the list of allowed values" in message
        ):
            return (
                "dtype"  # no kernel for these dtypes (eager's message names the op's attributes, 'axis' too)
            )
        if "is not in [" in message or "does not index into" in message:
            # gather's "indices[0] = 5 is not in [0, 3)", scatter's "indices[1] = [3] does not index into shape [3,2]"
            return "index"
        return super().classify(error)


class TensorflowPlacement(Placement):
    def devices(self):
        import tensorflow as tf

        return [d.name.split("device:")[-1] for d in tf.config.list_logical_devices()]

    def device_of(self, value):
        device = getattr(value, "device", None)
        return device.split("device:")[-1] if device else None


class TensorflowAdapter(Adapter):
    name = "tensorflow"
    requires = "tensorflow"
    no_array_namespace = "array_api_compat has no namespace for tf.experimental.numpy arrays"
    namespace = "tnp"
    imports = {
        "np": "numpy",
        "tf": "tensorflow",
        "tnp": "tensorflow.experimental.numpy",
        "ops": "compat.adapters.tensorflow_ops",
    }
    Spelling = TensorflowSpelling
    Values = TensorflowValues
    Placement = TensorflowPlacement
    OPS = {
        "max": "tnp.amax",
        "min": "tnp.amin",
        "norm": "tf.norm",
        "relu": "tf.nn.relu",
        "astype": "tf.cast",  # tnp has astype only as an ndarray method
        # tnp implements a subset of NumPy's API (https://www.tensorflow.org/api_docs/python/tf/experimental/numpy)
        "broadcast_shapes": unsupported(
            "tf.experimental.numpy has no broadcast_shapes "
            "(TensorFlow's spelling, for two shapes: tf.broadcast_static_shape)"
        ),
        "put_along_axis": unsupported(
            "tf.experimental.numpy has no put_along_axis (its arrays are immutable; "
            "TensorFlow's spelling: tf.tensor_scatter_nd_update)"
        ),
        **{op: f"ops.{op}" for op in FUNCTIONS},
        # the data type functions (issue 31)
        "can_cast": unsupported("tf.experimental.numpy has no can_cast"),
        "isdtype": unsupported("tf.experimental.numpy has no isdtype (the standard's and NumPy 2's)"),
        # -- elementwise: the standard's functions tnp spells as NumPy 1 did, or lacks --
        **{op: f"tnp.arc{op[1:]}" for op in ("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh")},
        "bitwise_invert": "tnp.bitwise_not",
        "trunc": "tnp.fix",  # rounds toward zero, as trunc does
        # tnp has no shifts: TensorFlow's own, on operands promoted as tnp's bitwise_and promotes them
        "bitwise_left_shift": "ops.bitwise_left_shift",
        "bitwise_right_shift": "ops.bitwise_right_shift",
        "copysign": unsupported("neither tf.experimental.numpy nor tf.math has copysign"),
        # searching, sorting, sets, statistics, utility (issue 31)
        **{
            op: f"ops.{op}"
            for op in (
                *("cumsum", "cumprod", "argmax", "argmin", "count_nonzero", "var", "std"),
                *("sort", "argsort", "searchsorted", "diff"),
            )
        },
        "isin": unsupported("tf.experimental.numpy has no isin (nor in1d)"),
        **dict.fromkeys(
            ("unique_all", "unique_counts", "unique_inverse", "unique_values"),
            unsupported(
                "tf.experimental.numpy has no unique functions; tf.unique takes only 1-D tensors "
                "and returns values in order of first occurrence"
            ),
        ),
        # -- manipulation, creation and linear algebra (issue 31) --
        "unstack": "tf.unstack",  # tnp has none: TensorFlow's own
        "matrix_transpose": "tf.linalg.matrix_transpose",
        "from_dlpack": "ops.from_dlpack",
        "vecdot": "ops.vecdot",
        # -- NaN-ignoring reductions (issue 32): tnp has nansum, nanprod and nanmean --
        **{
            op: unsupported(f"tf.experimental.numpy has no {op}")
            for op in (
                "nanmax",
                "nanmin",
                "nanargmax",
                "nanargmin",
                "nanvar",
                "nanstd",
                "nancumsum",
                "nancumprod",
            )
        },
        # -- the fft extension (issue 33): tnp has no fft module; tf.signal's transforms take the
        # innermost axis only, complex64/complex128 only, and no norm= --
        **{
            op: unsupported(
                "tf.experimental.numpy has no fft; tf.signal transforms the innermost axis only, without norm="
            )
            for op in ops.select(group="fft")
            if op not in ("fftshift", "ifftshift")
        },
        "fftshift": "tf.signal.fftshift",
        "ifftshift": "tf.signal.ifftshift",
        # -- interchange (issue 33): TensorFlow imports a DLPack capsule, not an object --
        "from_dlpack_of": "ops.from_dlpack_of",
        "from_dlpack_written": "ops.from_dlpack_written",
        "from_dlpack_onto": unsupported(
            "tf.experimental.dlpack.from_dlpack has no device= (a tf.device scope places what it makes)"
        ),
        **{op: unsupported("tf.experimental.numpy has no __array_namespace_info__") for op in INSPECTION},
        "to_device": unsupported("a tf.Tensor has no to_device method: tf.device scopes place it (copy_to)"),
        # -- the linalg extension (issue 33): tnp has cross and outer; tf.linalg the factorizations and
        # solvers, spelled otherwise in compat.adapters.tensorflow_ops where only the spelling differs --
        **{
            op: f"tf.linalg.{op}"
            for op in ("det", "eigh", "eigvalsh", "eig", "eigvals", "inv", "slogdet", "solve")
        },
        **{
            op: f"ops.{op}"
            for op in ("cholesky", "qr", "svd", "svdvals", "pinv", "matrix_rank", "diagonal", "trace")
        },
        "matrix_norm": unsupported(
            "tf.norm has no 'nuc', -1 or -2 for matrices, and tf.linalg no matrix norm of its own"
        ),
        "vector_norm": unsupported("tf.norm takes no ord 0, negative or -inf; tnp has no linalg.vector_norm"),
        "matrix_power": unsupported("neither tf.experimental.numpy nor tf.linalg has a matrix power"),
    }
    LACKS = {  # the standard's keywords tnp's functions do not take
        "device": "tf.experimental.numpy's functions take no device= (TensorFlow places a result by the "
        "tf.device scope it is made in)",
        "astype.copy": "tf.cast has no copy= (tnp has astype only as an ndarray method)",
    }
    CONFIGS = {
        "": LEGACY,
        "prefer_float32": {**LEGACY, "prefer_float32": True},
        # TF's new type promotion (issue 32): "all" allows every conversion the table has,
        # "safe" refuses those that may lose precision
        "dtype_conversion_mode=all": {**LEGACY, "dtype_conversion_mode": "all"},
        "dtype_conversion_mode=safe": {**LEGACY, "dtype_conversion_mode": "safe"},
    }
    DEFAULT_CONFIGS = ("",)
    CONFIG_FAMILIES = {  # (issue 32) the families whose rules each changes
        # the new type promotion: Python numbers as weak int32/float32 (so 32-bit default dtypes);
        # operators, where and matmul promote as JAX ("all"), or refuse unsafe conversions ("safe")
        "dtype_conversion_mode=all": ("promotion", "operators", "creation"),
        "dtype_conversion_mode=safe": ("promotion", "operators", "creation"),
        # Python floats enter as float32 (beside arrays, and in the arrays made from them)
        "prefer_float32": ("promotion", "operators", "creation"),
    }
    MODES = {
        "eager": "op by op",
        "function": "tf.function (a graph), operands as its arguments",
        "xla": "tf.function(jit_compile=True): the graph compiled by XLA",
    }
    DEFAULT_MODES = ("function", "xla")
    MODE_LIMITS = {
        mode: {
            op: "DLPack hands over a concrete buffer: a symbolic tensor has none"
            for op in ("from_dlpack", "from_dlpack_of", "from_dlpack_written", "from_dlpack_onto")
        }
        for mode in ("function", "xla")
    }
    # the linalg extension (issue 33): XLA has no kernel for these, so a graph compiled whole cannot hold them
    MODE_LIMITS["xla"].update(
        {
            "det": "XLA has no MatrixDeterminant kernel",
            "slogdet": "XLA has no LogMatrixDeterminant kernel",
            "eig": "XLA has no Eig kernel",
            "eigvals": "XLA has no Eig kernel",
        }
    )
    POLICIES = {
        "keras mixed_bfloat16": "Keras's global dtype policy: layers compute in bfloat16, keep float32 variables"
    }
    reference_device = "CPU:0"
    plugin = TensorflowApu()  # compat's reference PluggableDevice, "APU" (compat/devices/tensorflow_apu.cc)

    def __init__(self, label=""):
        super().__init__(label)
        # before TensorFlow is imported: keep its C++ start-up chatter out of reports
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

    def distribution(self):
        from importlib.metadata import PackageNotFoundError, version

        for name in ("tensorflow-cpu", "tensorflow"):
            try:
                version(name)
                return name
            except PackageNotFoundError:
                pass
        return "tensorflow"

    def compile(self, mode, function):
        if mode not in ("function", "xla"):
            return super().compile(mode, function)
        import tensorflow as tf

        # no autograph: the call has no Python control flow to convert, and autograph would wrap
        # whatever the traced call raises in a StagingError that hides the error's own type
        return tf.function(function, jit_compile=mode == "xla", autograph=False)

    def policy(self, name):
        if name not in self.POLICIES:
            return super().policy(name)
        return keras_policy(name.split()[-1])

    def isolate(self, op, args, mode="eager", device=None):
        # XLA's FloorDiv of complex operands aborts the process now and then (x //= 1j on float32:
        # tf-xla-complex-floor-divide-computes); its integer FloorDiv and FloorMod with the dtype's
        # minimum among the operands were once seen to trap (SIGFPE), not reproduced on 2.21: a
        # trap would take the worker with it, so they stay isolated
        if (
            mode == "xla"
            and (ops.OPS[op].computes or op if op in ops.OPS else op) in ("floor_divide", "remainder")
            and any(
                isinstance(a, complex)
                or (
                    isinstance(a, np.ndarray)
                    and (
                        a.dtype.kind == "c"
                        or (a.dtype.kind == "i" and a.size and a.min() == np.iinfo(a.dtype).min)
                    )
                )
                for a in args
            )
        ):
            return True
        # Converting a Python int that does not fit the target dtype (beyond int64,
        # or negative into uint64) leaves a Python exception pending in TF's C++
        # tensor cache: the call then returns, raises SystemError, or aborts the
        # interpreter on "Check failed: !PyErr_Occurred()", at random.
        unsigned64 = any(isinstance(a, np.ndarray) and a.dtype == np.uint64 for a in args)
        return any(
            isinstance(a, int)
            and not isinstance(a, bool)
            and not (-(2**63) <= a < 2**63 and (a >= 0 or not unsigned64))
            for a in args
        )


@contextlib.contextmanager
def keras_policy(name: str):
    """Keras's global dtype policy ``name`` (process-wide), and the one before it again after."""
    import keras

    before = keras.mixed_precision.global_policy()
    keras.mixed_precision.set_global_policy(name)
    try:
        yield
    finally:
        keras.mixed_precision.set_global_policy(before)
