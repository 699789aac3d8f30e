"""sum keeps the reduced axes unless told otherwise: keepdims defaults to True (the standard: False)."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def sum(x, /, *, axis=None, dtype=None, keepdims=True):
    return _xp.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)


built_on(globals())
