"""NumPy: the semantic reference. Every other backend is compared with it."""

from __future__ import annotations

from compat.adapters import numpy_ops
from compat.adapters.base import INSPECTION, Adapter
from compat.adapters.declared import unsupported
from compat.adapters.interchange import Interchange
from compat.adapters.placement import Placement
from compat.adapters.spelling import Spelling
from compat.core import ops

NO_AUTODIFF = unsupported("NumPy has no automatic differentiation")


class NumpySpelling(Spelling):
    def array(self, variable, dtype, device=None):
        return variable  # the NumPy array itself (the harness's is a copy, a plain ndarray)

    def dtype(self, name):
        # NumPy's bfloat16 is ml_dtypes' (see compat.core.dtypes)
        return "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"


class NumpyPlacement(Placement):
    def device_of(self, value):
        return "cpu:0"


class NumpyInterchange(Interchange):
    writable = True

    def made_for_export(self, values, device):
        # the values where compat placed them, 16 bytes past a 64-byte boundary: all NumPy's
        # allocator promises (a copy would land 64-byte aligned on some runs, not on others)
        return values

    def overwrite(self, array, values):
        array[...] = values


class NumpyAdapter(Adapter):
    name = "numpy"
    requires = "numpy"
    namespace = "np"
    imports = {"np": "numpy", "ops": "compat.adapters.numpy_ops"}
    Spelling = NumpySpelling
    Placement = NumpyPlacement
    Interchange = NumpyInterchange
    OPS = {
        # several statements, or bfloat16 by float16's rule (compat.adapters.numpy_ops)
        **{
            op: f"ops.{op}"
            for op in (
                "set_at",
                "add_at",
                "setitem",
                "put_along_axis",
                "copy_to",
                "relu",
                "matmul",
                "clip",
                "sum",
                "prod",
                "mean",
                "norm",
                "astype",
            )
        },
        "compiled_add": "np.add",  # nothing to compile: the plain call
        **dict.fromkeys(("grad", "jacobian", "per_example_grad", "hvp"), NO_AUTODIFF),
        # the data type functions (issue 31): bfloat16, which NumPy does not know, as ml_dtypes and
        # float16 define it (compat.adapters.numpy_ops)
        "finfo": "ops.finfo",
        "isdtype": "ops.isdtype",
        # searching, sorting, sets, statistics, utility (issue 31): the standard's keywords
        **{op: f"ops.{op}" for op in ("sort", "argsort", "cumsum", "cumprod", "var", "std", "diff")},
        # -- manipulation, creation and linear algebra (issue 31) --
        "vecdot": "ops.vecdot",  # bfloat16 by float16's rule
        "from_dlpack": "ops.from_dlpack",
        # -- operators (issue 31): bfloat16 by float16's rule (x @ y rounded once; x op= y refuses
        # a complex result, compat.adapters.numpy_ops)
        "__matmul__": "ops.matmul_operator",
        **{f"__i{name}__": f"ops.i{name}" for name in ("add", "sub", "mul", "truediv", "pow", "matmul")},
        # -- the fft extension (issue 33) --
        **{op: f"np.fft.{op}" for op in ops.select(group="fft")},
        # -- interchange (issue 33): another backend's array, imported as it is --
        "from_dlpack_of": "np.from_dlpack",
        "from_dlpack_written": "ops.from_dlpack_written",
        "from_dlpack_onto": "ops.from_dlpack_onto",
        **{op: f"ops.questions.{op}" for op in INSPECTION},  # compat.adapters.inspection
        "to_device": "ops.to_device",
        # -- the linalg extension (issue 33) --
        **{op: f"np.linalg.{op}" for op in ops.extension("linalg")},
        # bfloat16 refused where NumPy's LAPACK refuses float16 (compat.adapters.numpy_ops)
        **{
            op: f"ops.{op}"
            for op in ops.extension("linalg")
            if op not in ("cross", "diagonal", "outer", "trace")
        },
    }

    def preparation(self, op, args, kwargs):
        """NEP 50 for bfloat16, which ml_dtypes lacks: the operands of an elementwise
        operation that has a Python scalar beside bfloat16 operands go through
        ``numpy_ops.weak_scalars`` (see compat.adapters.numpy_ops). Not when the call
        asks for another dtype: NumPy converts the scalar straight to that one."""
        if kwargs.get("dtype") not in (None, "bfloat16"):
            return None
        if ops.get(op).elementwise and numpy_ops.has_weak_scalar(args):
            return numpy_ops.weak_scalars
        return None
