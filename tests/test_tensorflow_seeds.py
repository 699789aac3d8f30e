"""The TensorFlow NumPy examples our users start from, through compat's adapter.

The expectations are TensorFlow's documented behaviour (tf.experimental.numpy
guide): with NumPy behaviour enabled and prefer_float32=False, int32 + float32
is float64 and literals infer int64 / float64; prefer_float32=True makes a
Python float literal float32.
"""

import numpy as np
import pytest

from compat.adapters import load_adapter

pytestmark = pytest.mark.xdist_group("tensorflow-seeds")  # one worker: the module's fixtures are made once

pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def tnp_default():
    return load_adapter("tensorflow")


def test_int32_plus_float32_is_float64(tnp_default):
    out = tnp_default.call("add", (np.array([1, 2], dtype=np.int32), np.array([0.5, 0.25], dtype=np.float32)))
    assert out.dtype == "float64"
    np.testing.assert_array_equal(out.values, [1.5, 2.25])


@pytest.mark.parametrize(("literal", "dtype"), [(1, "int64"), (1.0, "float64")])
def test_literal_inference(tnp_default, literal, dtype):
    assert tnp_default.call("asarray", (literal,)).dtype == dtype


def test_prefer_float32_makes_float_literals_float32():
    prefer = load_adapter("tensorflow[prefer_float32]")
    assert prefer.config["prefer_float32"] is True
    assert prefer.call("asarray", (1.0,)).dtype == "float32"
    # the setting is process-wide in TensorFlow; the default adapter restores its own
    assert load_adapter("tensorflow").call("asarray", (1.0,)).dtype == "float64"


def test_config_is_recorded_with_the_reproducer_setup():
    prefer = load_adapter("tensorflow[prefer_float32]")
    assert prefer.spelling.setup() == [
        "tnp.experimental_enable_numpy_behavior(dtype_conversion_mode='legacy', prefer_float32=True)"
    ]


# -- the seeds' gradient usage: GradientTape through tnp code ----------------


def _model():
    """A two-layer tnp model of (16, 32) -> (16, 2), its weights as variables."""
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    rng = np.random.default_rng(0)
    w1 = tf.Variable(rng.normal(size=(32, 8)).astype(np.float32))
    w2 = tf.Variable(rng.normal(size=(8, 2)).astype(np.float32))
    return (
        (lambda x: tnp.matmul(tnp.tanh(tnp.matmul(x, w1)), w2)),
        [w1, w2],
        rng.normal(size=(16, 32)).astype(np.float32),
    )


def test_gradient_tape_through_tnp_gives_gradients_shaped_like_the_parameters(tnp_default):
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    with tnp_default.context():
        model, params, x = _model()
        with tf.GradientTape() as tape:
            loss = tnp.sum(model(x) ** 2)
        grads = tape.gradient(loss, params)
    assert [tuple(g.shape) for g in grads] == [(32, 8), (8, 2)]
    assert all(g.dtype == tf.float32 for g in grads)


def test_batch_jacobian_of_a_16x32_to_16x2_model_is_16x2x32(tnp_default):
    import tensorflow as tf

    with tnp_default.context():
        model, _, x = _model()
        x = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = model(x)
        jacobian = tape.batch_jacobian(y, x)
    assert tuple(jacobian.shape) == (16, 2, 32)
    # row 3's block is the jacobian of example 3 alone
    with tnp_default.context(), tf.GradientTape() as tape:
        one = tf.constant(x[3:4])
        tape.watch(one)
        y_one = model(one)
    np.testing.assert_allclose(tape.jacobian(y_one, one).numpy()[0, :, 0, :], jacobian.numpy()[3], rtol=1e-6)


def test_per_example_gradients_by_vectorized_map_equal_a_python_loop(tnp_default):
    import tensorflow as tf
    import tensorflow.experimental.numpy as tnp

    with tnp_default.context():
        model, params, x = _model()

        def gradient_of(example):
            with tf.GradientTape() as tape:
                loss = tnp.sum(model(example[None]) ** 2)
            return tape.gradient(loss, params)

        batched = tf.vectorized_map(gradient_of, tf.constant(x))
        looped = [gradient_of(tf.constant(x[i])) for i in range(len(x))]
    for k, param in enumerate(params):
        assert tuple(batched[k].shape) == (16,) + tuple(param.shape)
        np.testing.assert_allclose(
            batched[k].numpy(), np.stack([g[k].numpy() for g in looped]), rtol=1e-5, atol=1e-6
        )
