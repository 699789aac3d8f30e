"""Promotion faults: a result dtype that breaks NumPy's promotion rules (NEP 50)."""

from __future__ import annotations

import numpy as np

from compat.adapters.broken.base import Catch, ResultFault
from compat.adapters.namespace import NamespaceAdapter, standard_ops
from compat.adapters.numpy import NumpyAdapter
from compat.core import ops


class Int8Uint8PromotesToInt8(ResultFault):
    """int8 with uint8 gives int8 (NumPy: int16), values cast."""

    name = "broken_int8_uint8"
    family = "promotion"
    catch = Catch("test_binary_operation_on_every_pair_of_dtypes", "add", "dtype", narrow="add")

    def wrong(self, op, args, values):
        if sorted(a.dtype.name for a in args if isinstance(a, np.ndarray)) == ["int8", "uint8"]:
            return values.astype(np.int8)


class Int32PlusFloatStaysInt32(ResultFault):
    """An int32 array with a Python float gives int32 (NumPy: float64), values cast."""

    name = "broken_int32_pyfloat"
    family = "promotion"
    # the table, not the Hypothesis spec beside it: int32 with a Python float is 1 draw in ~56 there
    catch = Catch("test_python_scalar_with_every_dtype", "add", "dtype", narrow="add")

    def wrong(self, op, args, values):
        has_int32 = any(isinstance(a, np.ndarray) and a.dtype == np.int32 for a in args)
        if has_int32 and any(type(a) is float for a in args) and values.dtype.kind == "f":
            return values.astype(np.int32)


class Float32SlightlyOff(ResultFault):
    """float32 results are 1e-4 too large (about 840 ULP of float32)."""

    name = "broken_float32_value"
    family = "promotion"
    catch = Catch("test_binary_operation_on_every_pair_of_dtypes", "add", "value", narrow="add")

    def wrong(self, op, args, values):
        if values.dtype == np.float32:
            return (values * np.float32(1 + 1e-4)).astype(np.float32)


class ZeroDimArraysPromoteLikeScalars(NumpyAdapter):
    """A 0-d array beside n-d arrays promotes like a Python scalar, weakly (as torch's
    0-d tensors do): int8 array + 0-d int64 array gives int8 (NumPy: int64)."""

    name = "broken_zero_dim_weak"
    family = "promotion"
    catch = Catch("test_zero_dim_array_with_nd_array", "add", "dtype", narrow="add")

    def call(self, op, args, kwargs=None, device=None):
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        if ops.get(op).elementwise and any(a.ndim == 0 for a in arrays) and any(a.ndim > 0 for a in arrays):
            args = tuple(a.item() if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args)
        return super().call(op, args, kwargs, device)


class TracedScalarsAreStrong(NumpyAdapter):
    """Traced, a Python scalar operand becomes a 0-d array of its default dtype, as a tracer
    that captures Python numbers as typed constants would: float32 array + 2.5 is float64.
    Eager it is NumPy's weak scalar (NEP 50): only the "traced" execution mode breaks the rule."""

    name = "broken_traced_scalars"
    family = "promotion"
    catch = Catch("test_python_scalar_with_every_dtype", "add", "dtype", narrow="add")
    MODES, DEFAULT_MODES = (
        {"eager": "op by op", "traced": "Python scalar operands as 0-d arrays"},
        ("traced",),
    )

    def compile(self, mode, function):
        strong = lambda value: np.asarray(value) if isinstance(value, (int, float, complex)) else value  # noqa: E731
        return lambda *operands: function(*map(strong, operands))


class WrapperCastsUint8WithFloatByValue(NamespaceAdapter):
    """array_api_compat.numpy that forgets NEP 50 for a uint8 array with a Python float: NumPy 1's
    value-based casting, the float as the smallest float dtype that holds its value, so uint8 + 2.5
    is float16 (NumPy 2, NEP 50: the Python float is weak, float64), values computed in float16.

    Built on the generic namespace adapter: ``python -m compat detect`` runs it beside the intact
    namespace, whose own divergences are not the fault's."""

    name = "broken_wrapper_value_based_casting"
    family = "promotion"
    catch = Catch("test_python_scalar_with_every_dtype", "add", "dtype", narrow="add")
    module, requires, wraps = "array_api_compat.numpy", "array_api_compat", "numpy"
    imports = {"np": "numpy", "xp": "array_api_compat.numpy"}
    OPS = standard_ops()

    def call(self, op, args, kwargs=None, device=None, mode="eager"):
        if ops.get(op).elementwise and any(isinstance(a, np.ndarray) and a.dtype == np.uint8 for a in args):
            args = tuple(np.array(a, dtype=np.min_scalar_type(a)) if type(a) is float else a for a in args)
        return super().call(op, args, kwargs, device, mode)
