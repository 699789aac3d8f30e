"""TensorFlow's spelling of the operations that are not one tf.experimental.numpy
function (reproducers show these definitions as they are)."""

import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp


def scatter_operands(x, index, values):
    """tnp arrays are immutable; TensorFlow's functional updates take an index tuple as scatter indices."""
    indices = np.stack(np.broadcast_arrays(*index), axis=-1)
    updates = tnp.broadcast_to(values, indices.shape[:-1] + tuple(x.shape[len(index) :]))
    return indices, tf.cast(updates, x.dtype)


def set_at(x, index, values):
    return tf.tensor_scatter_nd_update(x, *scatter_operands(x, index, values))


def add_at(x, index, values):
    return tf.tensor_scatter_nd_add(x, *scatter_operands(x, index, values))


def copy_to(x, device):
    with tf.device(device):
        return tnp.copy(x)


@tf.function
def compiled_add(x, y):
    return tnp.add(x, y)


# autodiff: the transforms the gradient spec checks


def grad(f, *xs):
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return tape.gradient(y, xs)


def jacobian(f, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.jacobian(y, x)


def per_example_grad(f, params, batch):
    def one(example):
        with tf.GradientTape() as tape:
            tape.watch(params)
            y = f(params, example)
        return tape.gradient(y, params)

    return tf.vectorized_map(one, batch)


def hvp(f, x, v):
    # unconnected_gradients=ZERO: the Hessian of a linear f is 0 (TensorFlow would give None)
    with tf.autodiff.ForwardAccumulator(x, v) as forward:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return forward.jvp(g, unconnected_gradients=tf.UnconnectedGradients.ZERO)


# -- manipulation, creation and linear algebra (issue 31) ---------------------------------


def from_dlpack(x):
    # the tensor as NumPy imports it through DLPack, and NumPy's copy through TensorFlow's capsule
    # API (a copy: NumPy exports a read-only array only to a consumer that asks for DLPack 1.0)
    return tf.experimental.dlpack.from_dlpack(np.from_dlpack(x).copy().__dlpack__())


def vecdot(x1, x2, axis=-1):
    # tnp has no vecdot: the conjugated products, broadcast, summed along axis
    return tnp.sum(tnp.conj(x1) * x2, axis=axis)
