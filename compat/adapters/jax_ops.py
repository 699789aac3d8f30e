"""JAX's spelling of the operations that are not one jax.numpy function (reproducers
show these definitions as they are)."""

import jax
import jax.numpy as jnp
import numpy as np


def astype(x, dtype):  # jnp.astype takes dtype positionally only
    return jnp.astype(x, dtype)


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
def default_dtype(kind):
    """The default dtype of ``kind`` ('real floating', 'integral', 'complex floating', 'indexing')
    that the inspection namespace states, for the default device."""
    return jnp.__array_namespace_info__().default_dtypes()[kind]


# the standard's data types, as info_dtypes and made_dtypes answer for each (a string: reproducers paste it)
STANDARD_DTYPES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128"
)


def info_dtypes(kind):
    """Whether __array_namespace_info__().dtypes(kind=kind) lists each of the standard's dtypes."""
    listed = jnp.__array_namespace_info__().dtypes(kind=kind)
    return {name: name in listed for name in STANDARD_DTYPES.split()}


def made_dtypes(names):
    """Whether zeros and asarray with dtype=d give d, for each of the standard's dtypes d in names."""

    def makes(name):
        try:
            made = (jnp.zeros((1,), dtype=name).dtype, jnp.asarray([0], dtype=name).dtype)
        except (TypeError, ValueError):  # a dtype the backend refuses
            return False
        return all(dtype == jnp.dtype(name) and str(dtype) == name for dtype in made)

    return {name: name in names and makes(name) for name in STANDARD_DTYPES.split()}


def info_lists_device(x):
    """Whether the inspection namespace lists the device x is on, and x's dtype for that device."""
    info = jnp.__array_namespace_info__()
    return {
        "devices() lists x.device": x.device in info.devices(),
        "dtypes(device=x.device) lists x.dtype": x.dtype in info.dtypes(device=x.device).values(),
    }


def info_capabilities():
    return dict(jnp.__array_namespace_info__().capabilities())


def shown_capabilities():
    """What the backend does where capabilities() answers: x[mask], nonzero and unique_values
    (their result's shape depends on the values), the most dimensions an array takes."""

    def works(call, *args):
        try:
            call(*args)
        except Exception:  # any refusal: the capability is missing
            return False
        return True

    x, mask = jnp.asarray([1, 2, 3]), jnp.asarray([True, False, True])
    # the most dimensions of an array of ones, by bisection, up to one more than capabilities() states
    # (None, no limit: 128 tried; found there, None)
    stated = jnp.__array_namespace_info__().capabilities()["max dimensions"]
    fewest_refused, most = (stated or 127) + 2, 0  # stated + 1 tried (127 + 1 where none is stated)
    while fewest_refused - most > 1:
        middle = (most + fewest_refused) // 2
        if works(lambda n: jnp.ones((1,) * n) + 1, middle):
            most = middle
        else:
            fewest_refused = middle
    return {
        "boolean indexing": works(lambda: x[mask]),
        "data-dependent shapes": works(lambda: (jnp.nonzero(x), jnp.unique_values(x))),
        "max dimensions": None if stated is None and most == 128 else most,
    }


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
