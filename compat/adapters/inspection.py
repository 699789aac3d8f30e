"""The table's questions to the standard's inspection namespace (``__array_namespace_info__``)
and the backend's own answers they are compared with, written once against the standard's
namespace ``xp``: ``bound(module)`` gives them (``.info_dtypes``, ...) with ``xp`` the backend's
namespace (NumPy, ``jax.numpy``, any module of the standard); a reproducer pastes them with ``xp``
spelled as that adapter's namespace (Adapter.compat_source)."""

from __future__ import annotations

import types
from typing import Any

xp: Any = None  # the namespace: each of bound()'s functions has its own
# the standard's data types, as info_dtypes and made_dtypes answer for each (a string: reproducers paste it)
STANDARD_DTYPES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128"
)


def default_dtype(kind):
    """The default dtype of ``kind`` ('real floating', 'integral', 'complex floating', 'indexing')
    that the inspection namespace states, for the default device."""
    return xp.__array_namespace_info__().default_dtypes()[kind]


def info_dtypes(kind):
    """Whether __array_namespace_info__().dtypes(kind=kind) lists each of the standard's dtypes."""
    listed = xp.__array_namespace_info__().dtypes(kind=kind)
    return {name: name in listed for name in STANDARD_DTYPES.split()}


def made_dtypes(names):
    """Whether zeros and asarray with dtype=d give d, for each of the standard's dtypes d in names."""

    def makes(name):
        try:
            dtype = getattr(xp, name)
            made = (xp.zeros((1,), dtype=dtype).dtype, xp.asarray([0], dtype=dtype).dtype)
        except (AttributeError, TypeError, ValueError):  # a dtype the backend does not name or refuses
            return False
        return all(each == dtype for each in made)

    return {name: name in names and makes(name) for name in STANDARD_DTYPES.split()}


def info_lists_device(x):
    """Whether the inspection namespace lists the device x is on, and x's dtype for that device."""
    info = xp.__array_namespace_info__()
    return {
        "devices() lists x.device": x.device in info.devices(),
        "dtypes(device=x.device) lists x.dtype": x.dtype in info.dtypes(device=x.device).values(),
    }


def info_capabilities():
    return dict(xp.__array_namespace_info__().capabilities())


def shown_capabilities():
    """What the backend does where capabilities() answers: x[mask], nonzero and unique_values
    (their result's shape depends on the values), the most dimensions an array takes."""

    def works(call, *args):
        try:
            call(*args)
        except Exception:  # any refusal: the capability is missing
            return False
        return True

    x, mask = xp.asarray([1, 2, 3]), xp.asarray([True, False, True])
    # the most dimensions of an array of ones, by bisection, up to one more than capabilities() states
    # (None, no limit: 128 tried; found there, None)
    stated = xp.__array_namespace_info__().capabilities()["max dimensions"]
    fewest_refused, most = (stated or 127) + 2, 0  # stated + 1 tried (127 + 1 where none is stated)
    while fewest_refused - most > 1:
        middle = (most + fewest_refused) // 2
        if works(lambda n: xp.ones((1,) * n) + 1, middle):
            most = middle
        else:
            fewest_refused = middle
    return {
        "boolean indexing": works(lambda: x[mask]),
        "data-dependent shapes": works(lambda: (xp.nonzero(x), xp.unique_values(x))),
        "max dimensions": None if stated is None and most == 128 else most,
    }


QUESTIONS = (
    default_dtype,
    info_dtypes,
    made_dtypes,
    info_lists_device,
    info_capabilities,
    shown_capabilities,
)


def bound(namespace) -> types.SimpleNamespace:
    """The functions, each by its operation's name, with ``xp`` the module ``namespace``."""
    scope = {**globals(), "xp": namespace}
    return types.SimpleNamespace(
        **{f.__name__: types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__) for f in QUESTIONS}
    )
