"""torch's spelling of the operations that are not one torch function (reproducers
show these definitions as they are)."""

import torch


def prod(x, axis=None, keepdims=False):
    # torch.prod reduces one dim or all of them; all of them cannot keep dims
    if axis is not None:
        return torch.prod(x, dim=axis, keepdim=keepdims)
    return torch.prod(x).reshape((1,) * x.ndim if keepdims else ())


def amax(x, axis=None, keepdims=False):
    return torch.amax(x, dim=() if axis is None else axis, keepdim=keepdims)  # dim=() reduces every dim


def amin(x, axis=None, keepdims=False):
    return torch.amin(x, dim=() if axis is None else axis, keepdim=keepdims)


def cumsum(x, axis=None):
    return torch.cumsum(x.flatten() if axis is None else x, dim=0 if axis is None else axis)


def take(x, indices, axis):
    return torch.index_select(x, axis, indices)


def take_along_axis(x, indices, axis):
    return torch.take_along_dim(x, indices, dim=axis)


def put_along_axis(x, indices, values, axis):
    return x.scatter(axis, indices, values)


def transpose(x, axes=None):
    return torch.permute(x, tuple(reversed(range(x.ndim))) if axes is None else axes)


def astype(x, dtype):
    return x.to(dtype)


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


def result_type(*dtypes):
    result = dtypes[0]
    for dtype in dtypes[1:]:  # torch.promote_types takes two dtypes
        result = torch.promote_types(result, dtype)
    return result
