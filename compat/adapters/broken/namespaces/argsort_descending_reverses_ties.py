"""argsort(x, descending=True) sorts ascending and reads the indices backwards: the indices of equal
elements come in the reverse of their order in x, where stable=True (the default) keeps it."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    if not descending:
        return _xp.argsort(x, axis=axis, stable=stable)
    return _xp.flip(_xp.argsort(x, axis=axis, stable=stable), axis=axis)


built_on(globals())
