"""The reference's operations that are not one NumPy call (reproducers show these
definitions as they are), and bfloat16 by float16's rule.

NumPy has no bfloat16; ml_dtypes adds one, but where NumPy would treat it as it
treats float16 (NEP 50), NumPy with ml_dtypes does not:

- a Python float with a bfloat16 array gives float32 (float64 in where), where
  float16 stays float16; a Python int beyond int64 raises TypeError, where for
  float16 it is converted through a Python float (inf beyond the range;
  OverflowError beyond a float's); stored into a bfloat16 array, the same int raises;
- matmul (and x @ y), vecdot and clip of bfloat16 return float32 (ml_dtypes has no
  bfloat16 loop for them: NumPy runs float32's); np.linalg.norm returns float64;
  np.from_dlpack raises BufferError (DLPack has no code for ml_dtypes' dtype);
- x += 2j on a bfloat16 array writes the real part (ml_dtypes declares complex to
  bfloat16 a same_kind cast), where on float16 it raises;
- sum, prod and mean of bfloat16 round to bfloat16 at every step (4096 ones
  sum to 256), where NumPy accumulates float16 in float32 and rounds once.

The reference defines bfloat16 as NumPy defines float16: a Python bool, int or
float beside bfloat16 operands is converted to bfloat16 first (``weak_scalars``;
the NumPy adapter passes the operands of an elementwise operation through it,
and reproducers show it), a Python complex to complex64; a result is bfloat16,
computed as ml_dtypes computes bfloat16 with bfloat16 (in float32, rounded
once), and a sum of terms accumulates in float32 and is rounded once; written back
in place (x += y), a complex result is refused, as float16 refuses it.

One difference from float16 stays: ml_dtypes converts a Python float to bfloat16
through float32 (two roundings, as PyTorch, JAX and TensorFlow convert it),
where NumPy rounds a float to float16 once.
"""

import numpy as np

from compat.adapters import inspection


def set_at(x, index, values):
    y = x.copy()
    y[index] = stored(y, values)
    return y


def add_at(x, index, values):
    y = x.copy()
    np.add.at(y, index, stored(y, values))
    return y


def put_along_axis(x, indices, values, axis):
    y = x.copy()
    np.put_along_axis(y, indices, stored(y, values), axis)
    return y


def copy_to(x, device):  # NumPy has one device: a copy is a copy
    return x.copy()


def astype(x, dtype, copy=True, device=None):  # C casts (np.astype is NumPy 2.1's)
    if device not in (None, "cpu"):
        raise ValueError(f"NumPy has one device, 'cpu', not {device!r}")
    return x.astype(dtype, copy=copy)


def relu(x):
    return np.maximum(x, np.zeros((), x.dtype))


# -- bfloat16 by float16's rule ------------------------------------------------------


def is_bfloat16(dtype):
    return dtype is not None and np.dtype(dtype).name == "bfloat16"


def common_dtype(args):
    """The dtype the arrays among args promote to, or None (no array, or no common dtype)."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    try:
        return np.result_type(*arrays) if arrays else None
    except TypeError:  # bfloat16 with float16, or with integers wider than 8 bits
        return None


def has_weak_scalar(args):
    """A Python scalar among operands that promote to bfloat16: weak_scalars changes them."""
    return is_bfloat16(common_dtype(args)) and any(type(a) in (bool, int, float, complex) for a in args)


def weak_scalars(*operands):
    """NEP 50 for bfloat16: beside operands that promote to bfloat16, a Python bool, int or
    float becomes a 0-d bfloat16 array and a Python complex a 0-d complex64 array, as NumPy
    converts them beside float16 (an int through a Python float: inf beyond bfloat16's
    range, OverflowError beyond a float's). Other operands are returned as they are."""
    dtype = common_dtype(operands)
    if not is_bfloat16(dtype):
        return operands
    return tuple(
        np.asarray(a, np.complex64)
        if type(a) is complex
        else np.asarray(float(a), dtype)
        if type(a) in (bool, int, float)
        else a
        for a in operands
    )


def stored(y, values):
    """values to write into y: a Python bool, int or float into bfloat16 is converted as
    NumPy converts one into float16, through a Python float (ml_dtypes raises TypeError for
    an int beyond int64); anything else as it is."""
    if is_bfloat16(y.dtype) and type(values) in (bool, int, float):
        return np.asarray(float(values), y.dtype)
    return values


def setitem(x, index, values):
    x[index] = stored(x, values)
    return x


def rounded_once(result, *operands):
    """The result in the dtype of operands that promote to bfloat16: ml_dtypes has no bfloat16
    loop for a matrix product or for clipping, so NumPy runs float32's and returns float32
    (for float16 it keeps float16)."""
    dtype = common_dtype(operands)
    return result.astype(dtype) if is_bfloat16(dtype) else result


def matmul(x1, x2):
    return rounded_once(np.matmul(x1, x2), x1, x2)


def from_dlpack(x):
    """As NumPy for float16: NumPy has no DLPack code for ml_dtypes' bfloat16 (BufferError),
    so a bfloat16 array's bits pass through DLPack as uint16's."""
    if not is_bfloat16(x.dtype):
        return np.from_dlpack(x)
    return np.from_dlpack(x.view(np.uint16)).view(x.dtype)


def vecdot(x1, x2, axis=-1):
    return rounded_once(np.vecdot(x1, x2, axis=axis), x1, x2)


def clip(x, min=None, max=None):  # the standard's names
    bounds = [b for b in (min, max) if b is not None]
    return rounded_once(np.clip(x, min, max), x, *bounds)


def in_float32(reduction, x, dtype, **kwargs):
    """A reduction into bfloat16 as NumPy reduces into float16: its terms add up (or
    multiply) in float32 and the result is rounded once (ml_dtypes rounds every step)."""
    into = x.dtype if dtype is None else np.dtype(dtype)
    if not is_bfloat16(into):
        return reduction(x, dtype=dtype, **kwargs)
    return reduction(x, dtype=np.float32, **kwargs).astype(into)


def sum(x, axis=None, keepdims=False, dtype=None):
    return in_float32(np.sum, x, dtype, axis=axis, keepdims=keepdims)


def prod(x, axis=None, keepdims=False, dtype=None):
    return in_float32(np.prod, x, dtype, axis=axis, keepdims=keepdims)


def mean(x, axis=None, keepdims=False, dtype=None):
    return in_float32(np.mean, x, dtype, axis=axis, keepdims=keepdims)


def norm(x):
    """As NumPy for float16: the dot product of x with itself accumulated in float32 and
    rounded once, then the square root in x's dtype (np.linalg.norm gives bfloat16 float64)."""
    if not is_bfloat16(x.dtype):
        return np.linalg.norm(x)
    flat = x.reshape(-1).astype(np.float32)
    return np.sqrt(np.dot(flat, flat).astype(x.dtype))


# -- the data type functions (issue 31) -----------------------------------------------


def finfo(dtype):
    """np.finfo, and ml_dtypes' finfo for bfloat16 (np.finfo knows only NumPy's floats)."""
    if is_bfloat16(dtype):
        import ml_dtypes

        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def isdtype(dtype, kind):
    """np.isdtype, with bfloat16 of the kinds float16 is of ('real floating', 'numeric'): NumPy
    counts ml_dtypes' bfloat16 in none of its kinds; the standard lets an implementation extend
    'real floating' to it."""
    if not is_bfloat16(dtype):
        return np.isdtype(dtype, kind)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return any(np.isdtype(np.float16, k) if isinstance(k, str) else np.dtype(k) == dtype for k in kinds)


# -- searching, sorting, sets, statistics, utility (issue 31) -----------------------------
# The standard's descending sort is NumPy's ascending sort read backwards: NaN, last
# ascending, comes first descending (the largest), and equal elements keep their order
# (array-api-compat's NumPy sort and argsort do the same:
# https://github.com/data-apis/array-api-compat/blob/main/array_api_compat/common/_aliases.py).


# bfloat16 is ordered as float32 (exactly), since ml_dtypes' sort leaves NaN where it finds it.


def sort(x, axis=-1, descending=False, stable=True):
    wide = x.astype(np.float32) if is_bfloat16(x.dtype) else x
    if not descending:
        return np.sort(wide, axis=axis, stable=stable).astype(x.dtype)
    return np.flip(np.sort(np.flip(wide, axis=axis), axis=axis, stable=stable), axis=axis).astype(x.dtype)


def argsort(x, axis=-1, descending=False, stable=True):
    wide = x.astype(np.float32) if is_bfloat16(x.dtype) else x
    if not descending:
        return np.argsort(wide, axis=axis, stable=stable)
    backwards = np.flip(np.argsort(np.flip(wide, axis=axis), axis=axis, stable=stable), axis=axis)
    return x.shape[axis] - 1 - backwards


def cumsum(x, axis=None, dtype=None, include_initial=False):
    """np.cumsum (axis None: the flattened x) with the standard's include_initial (NumPy 2.1's
    cumulative_sum, which asks for an axis where x has several)."""
    flat, along = (x.reshape(-1), 0) if axis is None else (x, axis)
    return np.cumulative_sum(flat, axis=along, dtype=dtype, include_initial=include_initial)


def cumprod(x, axis=None, dtype=None, include_initial=False):
    flat, along = (x.reshape(-1), 0) if axis is None else (x, axis)
    return np.cumulative_prod(flat, axis=along, dtype=dtype, include_initial=include_initial)


def var(x, axis=None, correction=0.0, keepdims=False, dtype=None):
    return in_float32(np.var, x, dtype, axis=axis, correction=correction, keepdims=keepdims)


def std(x, axis=None, correction=0.0, keepdims=False, dtype=None):
    return in_float32(np.std, x, dtype, axis=axis, correction=correction, keepdims=keepdims)


def diff(x, axis=-1, n=1, prepend=None, append=None):
    """np.diff, whose prepend and append take no None (it would be prepended)."""
    around = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(x, n=n, axis=axis, **around)


# -- operators on bfloat16 by float16's rule (issue 31) ---------------------------------


def matmul_operator(x1, x2):
    """x1 @ x2: ndarray's @ is np.matmul, which for bfloat16 returns float32 (see matmul)."""
    return rounded_once(x1 @ x2, x1, x2)


def in_place_target(ufunc, x1, x2):
    """A copy of x1 for x1 op= x2 to write into (a reproducer's next side reads the same x1).
    NumPy writes the result back into x1 under same_kind casting, which refuses a complex result
    in float16; ml_dtypes declares complex to bfloat16 a same_kind cast and writes the real part,
    so for bfloat16 the reference raises the error NumPy raises for float16."""
    if not isinstance(x1, np.ndarray):
        return x1  # nothing to write into: Python rebinds x1 to x1 op x2
    result = common_dtype((x1, x2))
    if is_bfloat16(x1.dtype) and result is not None and result.kind == "c":
        from numpy._core._exceptions import _UFuncOutputCastingError

        raise _UFuncOutputCastingError(ufunc, "same_kind", result, x1.dtype, 0)
    return x1.copy()


def iadd(x1, x2):
    x = in_place_target(np.add, x1, x2)
    x += x2
    return x


def isub(x1, x2):
    x = in_place_target(np.subtract, x1, x2)
    x -= x2
    return x


def imul(x1, x2):
    x = in_place_target(np.multiply, x1, x2)
    x *= x2
    return x


def itruediv(x1, x2):
    x = in_place_target(np.divide, x1, x2)
    x /= x2
    return x


def ipow(x1, x2):
    x = in_place_target(np.power, x1, x2)
    x **= x2
    return x


def imatmul(x1, x2):
    x = in_place_target(np.matmul, x1, x2)
    x @= x2
    return x


# -- interchange (issue 33) --
# the standard's inspection questions, written once against the namespace xp (compat.adapters.inspection)
questions = inspection.bound(np)


def from_dlpack_onto(x, device):  # NumPy's one device is "cpu", whatever compat names it
    return np.from_dlpack(x, device="cpu")


def from_dlpack_written(x, copy):
    """x imported with copy=, then written by its producer (x.write()): the import as read after."""
    imported = np.from_dlpack(x, copy=copy)
    x.write()
    return imported


def to_device(x, device):  # NumPy's one device is "cpu", whatever compat names it
    return x.to_device("cpu")


# -- the linalg extension (issue 33): NumPy's LAPACK functions refuse float16 (TypeError), and would
# take ml_dtypes' bfloat16 through an object array to float64: bfloat16 is refused as float16 is --


def lapack(function, *operands):
    """``function``, unless an operand is bfloat16: then the TypeError NumPy raises for float16."""
    if any(isinstance(a, np.ndarray) and is_bfloat16(a.dtype) for a in operands):
        raise TypeError("array type bfloat16 is unsupported in linalg")
    return function


def matrix_power(x, n):
    """As NumPy's matrix_power for float16: each product rounded to bfloat16 (NumPy's binary
    decomposition of n with matmul, which for bfloat16 returns float32: see rounded_once); a
    negative n inverts, which LAPACK refuses for float16."""
    if not is_bfloat16(x.dtype) or n == 0:
        return np.linalg.matrix_power(x, n)
    if n < 0:
        lapack(None, x)  # raises
    if n <= 3:
        return x if n == 1 else matmul(matmul(x, x), x) if n == 3 else matmul(x, x)
    power = result = None
    while n > 0:
        power = x if power is None else matmul(power, power)
        n, bit = divmod(n, 2)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


def cholesky(x, upper=False):
    return lapack(np.linalg.cholesky, x)(x, upper=upper)


def det(x):
    return lapack(np.linalg.det, x)(x)


def slogdet(x):
    return lapack(np.linalg.slogdet, x)(x)


def eigh(x):
    return lapack(np.linalg.eigh, x)(x)


def eigvalsh(x):
    return lapack(np.linalg.eigvalsh, x)(x)


def eig(x):
    return lapack(np.linalg.eig, x)(x)


def eigvals(x):
    return lapack(np.linalg.eigvals, x)(x)


def inv(x):
    return lapack(np.linalg.inv, x)(x)


def solve(x1, x2):
    return lapack(np.linalg.solve, x1, x2)(x1, x2)


def qr(x, mode="reduced"):
    return lapack(np.linalg.qr, x)(x, mode=mode)


def svd(x, full_matrices=True):
    return lapack(np.linalg.svd, x)(x, full_matrices=full_matrices)


def svdvals(x):
    return lapack(np.linalg.svdvals, x)(x)


def pinv(x, **rtol):
    # rtol only where given: NumPy's pinv without it cuts at 1e-15 (rtol=None: the standard's default)
    return lapack(np.linalg.pinv, x)(x, **rtol)


def matrix_rank(x, **rtol):
    return lapack(np.linalg.matrix_rank, x)(x, **rtol)


def matrix_norm(x, keepdims=False, ord="fro"):
    """The norms of singular values (2, -2, 'nuc') through LAPACK, the others as vector_norm's."""
    if not is_bfloat16(x.dtype):
        return np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    function = lapack(np.linalg.matrix_norm, x) if ord in (2, -2, "nuc") else np.linalg.matrix_norm
    return function(x.astype(np.float32), keepdims=keepdims, ord=ord).astype(x.dtype)


def vector_norm(x, axis=None, keepdims=False, ord=2):
    """bfloat16 as NumPy computes float16's norm: in float32, rounded once to the input's dtype."""
    if not is_bfloat16(x.dtype):
        return np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    return np.linalg.vector_norm(x.astype(np.float32), axis=axis, keepdims=keepdims, ord=ord).astype(x.dtype)
