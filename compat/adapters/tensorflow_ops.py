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


# -- elementwise --------------------------------------------------------------------


def bitwise_left_shift(x1, x2):
    # tnp has no shifts; tf.bitwise's take one dtype, so the operands are promoted first
    dtype = tnp.result_type(x1, x2)
    return tf.bitwise.left_shift(tnp.asarray(x1, dtype), tnp.asarray(x2, dtype))


def bitwise_right_shift(x1, x2):
    dtype = tnp.result_type(x1, x2)
    return tf.bitwise.right_shift(tnp.asarray(x1, dtype), tnp.asarray(x2, dtype))


# -- searching, sorting, sets, statistics, utility (issue 31) ------------------------------


def with_initial(out, axis, value, include_initial):
    """The standard's include_initial: the empty sum (0) or product (1) first along axis."""
    if not include_initial:
        return out
    along = 0 if axis is None else axis
    shape = list(out.shape)
    shape[along] = 1
    return tnp.concatenate([tnp.full(shape, value, dtype=out.dtype), out], axis=along)


def cumsum(x, axis=None, dtype=None, include_initial=False):
    return with_initial(tnp.cumsum(x, axis=axis, dtype=dtype), axis, 0, include_initial)


def cumprod(x, axis=None, dtype=None, include_initial=False):
    return with_initial(tnp.cumprod(x, axis=axis, dtype=dtype), axis, 1, include_initial)


def kept(reduced, x, axis, keepdims):
    """tnp's argmax and argmin keep no dims: the reduced axis put back as size 1."""
    if not keepdims:
        return reduced
    return tnp.reshape(reduced, [1] * x.ndim) if axis is None else tnp.expand_dims(reduced, axis)


def argmax(x, axis=None, keepdims=False):
    return kept(tnp.argmax(x, axis=axis), x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return kept(tnp.argmin(x, axis=axis), x, axis, keepdims)


def count_nonzero(x, axis=None, keepdims=False):
    return tf.math.count_nonzero(x, axis=axis, keepdims=keepdims)


def var(x, axis=None, correction=0.0, keepdims=False):
    return tnp.var(x, axis=axis, ddof=correction, keepdims=keepdims)


def std(x, axis=None, correction=0.0, keepdims=False):
    return tnp.sqrt(tnp.var(x, axis=axis, ddof=correction, keepdims=keepdims))  # tnp.std has no ddof


def sort(x, axis=-1, descending=False, stable=True):
    return tf.sort(x, axis=axis, direction="DESCENDING" if descending else "ASCENDING")


def argsort(x, axis=-1, descending=False, stable=True):
    order = tf.argsort(x, axis=axis, direction="DESCENDING" if descending else "ASCENDING", stable=stable)
    return tnp.asarray(order, dtype=tnp.int64)  # as tnp.argsort returns it


def searchsorted(x1, x2, side="left", sorter=None):
    """tf.searchsorted searches each row of a matrix: x1 as one row, x2 flattened into one."""
    if sorter is not None:
        x1 = tf.gather(x1, sorter)
    values = tf.convert_to_tensor(x2, dtype=x1.dtype)
    found = tf.searchsorted(x1[tf.newaxis], tf.reshape(values, [1, -1]), side=side, out_type=tf.int64)
    return tf.reshape(found, tf.shape(values))


def diff(x, axis=-1, n=1, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    return tnp.diff(tnp.concatenate(parts, axis=axis) if len(parts) > 1 else x, n=n, axis=axis)


# -- manipulation, creation and linear algebra (issue 31) ---------------------------------


def from_dlpack(x):
    # the tensor as NumPy imports it through DLPack, and NumPy's copy through TensorFlow's capsule
    # API (a copy: NumPy exports a read-only array only to a consumer that asks for DLPack 1.0)
    return tf.experimental.dlpack.from_dlpack(np.from_dlpack(x).copy().__dlpack__())


def vecdot(x1, x2, axis=-1):
    # tnp has no vecdot: the conjugated products, broadcast, summed along axis
    return tnp.sum(tnp.conj(x1) * x2, axis=axis)


# -- interchange (issue 33) --
def from_dlpack_of(x, copy=None):
    """Another backend's array x imported as the standard's from_dlpack does: x.__dlpack__()
    (copy= as the caller asks it) gives the capsule that tf.experimental.dlpack.from_dlpack
    takes; TensorFlow reads the unversioned capsule only, so no max_version is asked for."""
    return tf.experimental.dlpack.from_dlpack(x.__dlpack__(**({} if copy is None else {"copy": copy})))


def from_dlpack_written(x, copy):
    """x imported with copy=, then written by its producer (x.write()): the import as read after."""
    imported = tf.experimental.dlpack.from_dlpack(x.__dlpack__(copy=copy))
    x.write()
    return imported


# -- the linalg extension (issue 33): tf.linalg's functions where they compute the standard's
# function and only spell it otherwise (an upper factor as the adjoint of the lower, svd's
# results in another order with V for Vh, rtol as rcond, a relative tolerance as an absolute
# one); tnp's diagonal and trace take the last two axes when asked --


def cholesky(x, upper=False):
    lower = tf.linalg.cholesky(x)
    return tf.linalg.adjoint(lower) if upper else lower


def qr(x, mode="reduced"):
    return tuple(tf.linalg.qr(x, full_matrices=mode == "complete"))


def svd(x, full_matrices=True):
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


def svdvals(x):
    return tf.linalg.svd(x, compute_uv=False)


def pinv(x, rtol=None):
    return tf.linalg.pinv(x, rcond=rtol)


def matrix_rank(x, rtol=None):
    if rtol is None:  # tf's default tolerance is the standard's: max(M, N) eps sigma_1
        return tf.linalg.matrix_rank(x)
    largest = tf.reduce_max(tf.linalg.svd(x, compute_uv=False), axis=-1, keepdims=True)
    return tf.linalg.matrix_rank(x, tol=rtol * largest)


def diagonal(x, offset=0):
    return tnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x, offset=0, dtype=None):
    return tnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)
