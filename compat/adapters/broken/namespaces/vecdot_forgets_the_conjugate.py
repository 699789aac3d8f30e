"""vecdot sums x1 times x2 along the axis without conjugating x1 (the standard: sum of conj(x1) * x2):
right wherever x1 is real, or complex with imaginary parts that are all zero."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def vecdot(x1, x2, /, *, axis=-1):
    return _xp.sum(_xp.multiply(x1, x2), axis=axis)


built_on(globals())
