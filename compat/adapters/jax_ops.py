"""JAX's spelling of the operations that are not one jax.numpy function (reproducers
show these definitions as they are)."""

import jax
import jax.numpy as jnp
import numpy as np

from compat.adapters import inspection


def astype(x, dtype, copy=True, device=None):  # jnp.astype takes dtype positionally only
    return jnp.astype(x, dtype, copy=copy, device=device)


def set_at(x, index, values):
    return x.at[index].set(values)


def add_at(x, index, values):
    return x.at[index].add(values)


def put_along_axis(x, indices, values, axis):
    return jnp.put_along_axis(x, indices, values, axis, inplace=False)


def copy_to(x, device):
    platform, _, number = device.partition(":")
    return jax.device_put(x, jax.devices(platform)[int(number or 0)])


def compiled_add(x, y):
    with jax.disable_jit(False):  # jitted even inside the adapter's op-by-op context
        return jax.jit(jnp.add)(x, y)


# autodiff: the transforms the gradient spec checks


def grad(f, *xs):
    return jax.grad(f, argnums=tuple(range(len(xs))))(*xs)


def jacobian(f, x):
    return jax.jacrev(f)(x)


def per_example_grad(f, params, batch):
    return jax.vmap(jax.grad(f), in_axes=(None, 0))(params, batch)


def hvp(f, x, v):
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


# -- searching, sorting, sets, statistics, utility (issue 31) ------------------------------


def cumsum(x, axis=None, dtype=None, include_initial=False):
    """jnp.cumsum, and jnp.cumulative_sum (which asks for an axis where x has several) for include_initial."""
    if not include_initial:
        return jnp.cumsum(x, axis=axis, dtype=dtype)
    flat, along = (jnp.ravel(x), 0) if axis is None else (x, axis)
    return jnp.cumulative_sum(flat, axis=along, dtype=dtype, include_initial=True)


def cumprod(x, axis=None, dtype=None, include_initial=False):
    if not include_initial:
        return jnp.cumprod(x, axis=axis, dtype=dtype)
    flat, along = (jnp.ravel(x), 0) if axis is None else (x, axis)
    return jnp.cumulative_prod(flat, axis=along, dtype=dtype, include_initial=True)


# -- manipulation, creation and linear algebra (issue 31) ---------------------------------


def from_dlpack(x):
    # the array as NumPy imports it through DLPack, and NumPy's copy as JAX imports it (a copy:
    # NumPy exports a read-only array, as JAX's are, only to a consumer that asks for DLPack 1.0)
    return jnp.from_dlpack(np.from_dlpack(x).copy())


# -- interchange (issue 33) --
# the standard's inspection questions, written once against the namespace xp (compat.adapters.inspection)
questions = inspection.bound(jnp)


def from_dlpack_onto(x, device):
    platform, _, number = device.partition(":")
    return jnp.from_dlpack(x, device=jax.devices(platform)[int(number or 0)])


def from_dlpack_written(x, copy):
    """x imported with copy=, then written by its producer (x.write()): the import as read after."""
    imported = jnp.from_dlpack(x, copy=copy)
    x.write()
    return imported


def to_device(x, device):
    platform, _, number = device.partition(":")
    return x.to_device(jax.devices(platform)[int(number or 0)])
