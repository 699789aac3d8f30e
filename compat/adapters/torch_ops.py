"""torch's spelling of the operations that are not one torch function (reproducers
show these definitions as they are)."""

import numpy as np
import torch


def prod(x, axis=None, keepdims=False, dtype=None):
    # torch.prod reduces one dim or all of them; all of them cannot keep dims
    if axis is not None:
        return torch.prod(x, dim=axis, keepdim=keepdims, dtype=dtype)
    return torch.prod(x, dtype=dtype).reshape((1,) * x.ndim if keepdims else ())


def amax(x, axis=None, keepdims=False):
    return torch.amax(x, dim=() if axis is None else axis, keepdim=keepdims)  # dim=() reduces every dim


def amin(x, axis=None, keepdims=False):
    return torch.amin(x, dim=() if axis is None else axis, keepdim=keepdims)


def cumsum(x, axis=None, dtype=None, include_initial=False):
    flat, dim = (x.flatten(), 0) if axis is None else (x, axis)
    return with_initial(torch.cumsum(flat, dim=dim, dtype=dtype), dim, 0, include_initial)


def take(x, indices, axis=None):
    # axis None: the flattened x, torch.take's
    return torch.take(x, indices) if axis is None else torch.index_select(x, axis, indices)


def take_along_axis(x, indices, axis=-1):
    return torch.take_along_dim(x, indices, dim=axis)


def put_along_axis(x, indices, values, axis):
    return x.scatter(axis, indices, values)


def transpose(x, axes=None):
    return torch.permute(x, tuple(reversed(range(x.ndim))) if axes is None else axes)


def astype(x, dtype, copy=True, device=None):
    return x.to(dtype, copy=copy) if device is None else x.to(device, dtype, copy=copy)


def set_at(x, index, values):
    y = x.clone()
    y[index] = values
    return y


def add_at(x, index, values):
    return x.clone().index_put_(tuple(torch.as_tensor(i) for i in index), values, accumulate=True)


def copy_to(x, device):
    return x.to(device)


# autodiff: the transforms the gradient spec checks


def grad(f, *xs):
    xs = [x.detach().requires_grad_() for x in xs]
    return torch.autograd.grad(f(*xs), xs)


def jacobian(f, x):
    return torch.func.jacrev(f)(x)


def per_example_grad(f, params, batch):
    return torch.func.vmap(torch.func.grad(f), in_dims=(None, 0))(params, batch)


def hvp(f, x, v):
    return torch.func.jvp(torch.func.grad(f), (x,), (v,))[1]


# the data type functions (issue 31)


def result_type(*arrays_and_dtypes):
    # dtypes through torch.promote_types (two at a time); tensors and Python numbers through
    # torch.result_type (two at a time), the dtype so far as a 1-d tensor (a 0-d one promotes weakly)
    result = None
    for item in arrays_and_dtypes:
        if result is None:
            result = item if isinstance(item, torch.dtype) else torch.result_type(item, item)
        elif isinstance(item, torch.dtype):
            result = torch.promote_types(result, item)
        else:
            result = torch.result_type(torch.empty(1, dtype=result), item)
    return result


# -- searching, sorting, sets, statistics, utility (issue 31) ------------------------------


def with_initial(out, dim, value, include_initial):
    """The standard's include_initial: the empty sum (0) or product (1) first along dim."""
    if not include_initial:
        return out
    shape = list(out.shape)
    shape[dim] = 1
    return torch.cat([torch.full(shape, value, dtype=out.dtype, device=out.device), out], dim=dim)


def cumprod(x, axis=None, dtype=None, include_initial=False):
    flat, dim = (x.flatten(), 0) if axis is None else (x, axis)
    return with_initial(torch.cumprod(flat, dim=dim, dtype=dtype), dim, 1, include_initial)


def reduced(function, x, axis, keepdims, **kwargs):
    """A reduction over axis (None: every axis; torch's dim=None keeps no dims)."""
    if axis is not None:
        return function(x, dim=axis, keepdim=keepdims, **kwargs)
    result = function(x, **kwargs)
    return result.reshape((1,) * x.ndim) if keepdims else result


def argmax(x, axis=None, keepdims=False):
    return reduced(torch.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return reduced(torch.argmin, x, axis, keepdims)


def every(x, axis=None, keepdims=False):  # all and any, under names that leave Python's builtins be
    return reduced(torch.all, x, axis, keepdims)


def some(x, axis=None, keepdims=False):
    return reduced(torch.any, x, axis, keepdims)


def count_nonzero(x, axis=None, keepdims=False):
    counted = torch.count_nonzero(x, dim=axis)  # no keepdim: the reduced axes put back as size 1
    if not keepdims:
        return counted
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    kept = {a % x.ndim for a in axes}
    return counted.reshape([1 if d in kept else n for d, n in enumerate(x.shape)])


def var(x, axis=None, correction=0.0, keepdims=False):
    return torch.var(x, dim=axis, correction=correction, keepdim=keepdims)


def std(x, axis=None, correction=0.0, keepdims=False):
    return torch.std(x, dim=axis, correction=correction, keepdim=keepdims)


def sort(x, axis=-1, descending=False, stable=True):
    return torch.sort(x, dim=axis, descending=descending, stable=stable).values


def argsort(x, axis=-1, descending=False, stable=True):
    return torch.argsort(x, dim=axis, descending=descending, stable=stable)


def nonzero(x):
    return torch.nonzero(x, as_tuple=True)


def diff(x, axis=-1, n=1, prepend=None, append=None):
    return torch.diff(x, n=n, dim=axis, prepend=prepend, append=append)


def unique_values(x):
    return torch.unique(x)


def unique_counts(x):
    return torch.unique(x, return_counts=True)


def unique_inverse(x):
    return torch.unique(x, return_inverse=True)


def unique_all(x):
    """torch.unique has no first indices: the least flat position each value's inverse names."""
    values, inverse, counts = torch.unique(x, return_inverse=True, return_counts=True)
    flat = inverse.reshape(-1)
    positions = torch.arange(flat.numel(), device=x.device)
    hits = flat == torch.arange(values.numel(), device=x.device)[:, None]
    first = torch.where(hits, positions, flat.numel())
    first = first.min(dim=1).values if flat.numel() else first.sum(dim=1)  # nothing to find in an empty x
    return values, first, inverse, counts


# -- manipulation, creation and linear algebra (issue 31) ---------------------------------


def expand_dims(x, axis):
    # torch.unsqueeze inserts one axis: a tuple's, counted in the result's rank, one by one in order
    if isinstance(axis, int):
        return torch.unsqueeze(x, axis)
    rank = x.ndim + len(axis)
    for position in sorted(a + rank if a < 0 else a for a in axis):
        x = torch.unsqueeze(x, position)
    return x


def flip(x, axis=None):
    # torch.flip takes a tuple of dims only
    return torch.flip(x, tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int) else axis)


def repeat(x, repeats, axis=None):
    return torch.repeat_interleave(x, repeats, dim=axis)


def roll(x, shift, axis=None):
    return torch.roll(x, shift, dims=axis)


def squeeze(x, axis):
    return torch.squeeze(x, axis)


def stack(arrays, axis=0):
    return torch.stack(arrays, dim=axis)


def unstack(x, axis=0):
    return torch.unbind(x, dim=axis)


def arange(start, stop=None, step=1, dtype=None, device=None):
    if stop is None:  # start is the end, 0 the start
        start, stop = 0, start
    return torch.arange(start, stop, step, dtype=dtype, device=device)


def eye(n_rows, n_cols=None, k=0, dtype=None, device=None):
    # torch.eye has no diagonal offset: diagonal k of n x m is the main diagonal of a larger one, cut
    n_cols = n_rows if n_cols is None else n_cols
    if k >= 0:
        return torch.eye(n_rows + k, n_cols, dtype=dtype, device=device)[k:]
    return torch.eye(n_rows, n_cols - k, dtype=dtype, device=device)[:, -k:]


def from_dlpack(x):
    # the tensor as NumPy imports it through DLPack, and NumPy's copy as torch imports it (a copy:
    # NumPy exports a read-only array only to a consumer that asks for DLPack 1.0)
    return torch.from_dlpack(np.from_dlpack(x).copy())


def linspace(start, stop, num, endpoint=True, dtype=None, device=None):
    # torch.linspace always ends at stop: without it, num + 1 values, the last left out
    if endpoint:
        return torch.linspace(start, stop, num, dtype=dtype, device=device)
    return torch.linspace(start, stop, num + 1, dtype=dtype, device=device)[:-1]


def tril(x, k=0):
    return torch.tril(x, diagonal=k)


def triu(x, k=0):
    return torch.triu(x, diagonal=k)


def matrix_transpose(x):
    return torch.transpose(x, -2, -1)


def tensordot(x1, x2, axes=2):
    return torch.tensordot(x1, x2, dims=axes)


def vecdot(x1, x2, axis=-1):
    return torch.linalg.vecdot(x1, x2, dim=axis)


# -- NaN-ignoring reductions (issue 32): torch's dim and keepdim --


def nansum(x, axis=None, keepdims=False):
    return torch.nansum(x, dim=axis, keepdim=keepdims)


def nanmean(x, axis=None, keepdims=False):
    return torch.nanmean(x, dim=axis, keepdim=keepdims)


# -- the fft extension (issue 33): torch.fft names the axis dim, the axes dim too --


def fft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.fft(x, n=n, dim=axis, norm=norm)


def ifft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.ifft(x, n=n, dim=axis, norm=norm)


def rfft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.rfft(x, n=n, dim=axis, norm=norm)


def irfft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.irfft(x, n=n, dim=axis, norm=norm)


def hfft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.hfft(x, n=n, dim=axis, norm=norm)


def ihfft(x, n=None, axis=-1, norm="backward"):
    return torch.fft.ihfft(x, n=n, dim=axis, norm=norm)


def fftn(x, s=None, axes=None, norm="backward"):
    return torch.fft.fftn(x, s=s, dim=axes, norm=norm)


def ifftn(x, s=None, axes=None, norm="backward"):
    return torch.fft.ifftn(x, s=s, dim=axes, norm=norm)


def rfftn(x, s=None, axes=None, norm="backward"):
    return torch.fft.rfftn(x, s=s, dim=axes, norm=norm)


def irfftn(x, s=None, axes=None, norm="backward"):
    return torch.fft.irfftn(x, s=s, dim=axes, norm=norm)


def fftfreq(n, d=1.0, dtype=None, device=None):
    return torch.fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n, d=1.0, dtype=None, device=None):
    return torch.fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x, axes=None):
    return torch.fft.fftshift(x, dim=axes)


def ifftshift(x, axes=None):
    return torch.fft.ifftshift(x, dim=axes)


# -- the linalg extension (issue 33): torch.linalg names the axis dim, keepdims keepdim; its
# trace is torch.trace (2-D only): the diagonal over the last two axes, summed --


def linalg_cross(x1, x2, axis=-1):
    return torch.linalg.cross(x1, x2, dim=axis)


def matrix_norm(x, keepdims=False, ord="fro"):
    return torch.linalg.matrix_norm(x, ord=ord, keepdim=keepdims)


def vector_norm(x, axis=None, keepdims=False, ord=2):
    return torch.linalg.vector_norm(x, ord=ord, dim=axis, keepdim=keepdims)


def linalg_trace(x, offset=0, dtype=None):
    return torch.sum(torch.diagonal(x, offset=offset, dim1=-2, dim2=-1), dim=-1, dtype=dtype)


def from_dlpack_onto(x, device):
    return torch.from_dlpack(x, device=device)


def from_dlpack_written(x, copy):
    """x imported with copy=, then written by its producer (x.write()): the import as read after."""
    imported = torch.from_dlpack(x, copy=copy)
    x.write()
    return imported
