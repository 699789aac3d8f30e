"""The TensorFlow NumPy examples our users start from, through compat's adapter.

The expectations are TensorFlow's documented behaviour (tf.experimental.numpy
guide): with NumPy behaviour enabled and prefer_float32=False, int32 + float32
is float64 and literals infer int64 / float64; prefer_float32=True makes a
Python float literal float32.
"""

import numpy as np
import pytest

from compat.adapters import load_adapter

pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def tnp_default():
    return load_adapter("tensorflow")


def test_int32_plus_float32_is_float64(tnp_default):
    out = tnp_default.run("add", (np.array([1, 2], dtype=np.int32), np.array([0.5, 0.25], dtype=np.float32)))
    assert out.dtype == "float64"
    np.testing.assert_array_equal(out.values, [1.5, 2.25])


@pytest.mark.parametrize(("literal", "dtype"), [(1, "int64"), (1.0, "float64")])
def test_literal_inference(tnp_default, literal, dtype):
    assert tnp_default.run("asarray", (literal,)).dtype == dtype


def test_prefer_float32_makes_float_literals_float32():
    prefer = load_adapter("tensorflow[prefer_float32]")
    assert prefer.config["prefer_float32"] is True
    assert prefer.run("asarray", (1.0,)).dtype == "float32"
    # the setting is process-wide in TensorFlow; the default adapter restores its own
    assert load_adapter("tensorflow").run("asarray", (1.0,)).dtype == "float64"


def test_config_is_recorded_with_the_reproducer_setup():
    prefer = load_adapter("tensorflow[prefer_float32]")
    assert prefer.setup_lines() == [
        "tnp.experimental_enable_numpy_behavior(dtype_conversion_mode='legacy', prefer_float32=True)"
    ]
