"""Values keep every bit on their way between NumPy, a backend and a reproducer: a
conversion that loses a NaN payload or a -0.0 would show up as the backend's own
divergence in the placement family's bit-exact copies, and a reproducer that writes
such a NaN as float('nan') would not reproduce it."""

from __future__ import annotations

import numpy as np
import pytest

from compat.core import dtypes
from compat.core.source import array_source
from compat.harness.plan import select

# bit patterns that a conversion through another dtype can change: NaNs of both signs
# with payloads (quiet and signalling), -0.0, the smallest subnormal, infinity
PATTERNS = {
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F81, 0xFFA5, 0x8000, 0x0001, 0x7F80],
    "float16": [0x7E00, 0xFE00, 0x7C01, 0xFD55, 0x8000, 0x0001, 0x7C00],
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFA5A5A5, 0x80000000, 0x00000001, 0x7F800000],
}
UNSIGNED = {2: np.uint16, 4: np.uint32}


def patterned(dtype: str, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """An array of the dtype's PATTERNS (0-d: a negative NaN with payload), and its bits."""
    if dtype not in dtypes.available():
        pytest.skip(f"{dtype} needs ml_dtypes")
    numpy_dtype = dtypes.to_numpy(dtype)
    bits = np.array(PATTERNS[dtype], dtype=UNSIGNED[numpy_dtype.itemsize])
    array = bits.view(numpy_dtype)[3].reshape(()) if shape == () else bits.view(numpy_dtype).reshape(shape)
    return array, array.view(bits.dtype)


INSTALLED = select(None, []).adapters  # every config of every installed backend, as a default run has them


@pytest.mark.parametrize("adapter", INSTALLED, ids=lambda a: a.id)
@pytest.mark.parametrize("dtype", list(PATTERNS))
@pytest.mark.parametrize("shape", [(7,), (), (7, 1)], ids=str)
def test_round_trip_through_the_backend_keeps_every_bit(adapter, dtype, shape):
    try:
        adapter.values.dtype(dtype)
    except TypeError as lacking:  # a dtype the backend has none of (array_api_strict's float16)
        pytest.skip(str(lacking))
    array, bits = patterned(dtype, shape)
    with adapter.context():
        back = adapter.values.to_numpy(adapter.values.from_numpy(array, None))
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.view(bits.dtype).tolist() == bits.tolist(), [hex(b) for b in back.view(bits.dtype).ravel()]


@pytest.mark.parametrize("dtype", list(PATTERNS))
@pytest.mark.parametrize("shape", [(7,), (), (7, 1)], ids=str)
def test_a_reproducers_array_source_keeps_every_bit(dtype, shape):
    array, bits = patterned(dtype, shape)
    namespace = {"np": np}
    if dtype == "bfloat16":
        namespace["ml_dtypes"] = pytest.importorskip("ml_dtypes")
    rebuilt = eval(array_source(array), namespace)
    assert rebuilt.dtype == array.dtype and rebuilt.shape == array.shape
    assert rebuilt.view(bits.dtype).tolist() == bits.tolist(), array_source(array)
