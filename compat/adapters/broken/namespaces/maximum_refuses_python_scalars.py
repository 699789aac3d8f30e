"""maximum and minimum refuse a Python int or float operand (TypeError), as a namespace that takes
arrays only would; the standard (2024.12 on) admits Union[array, int, float] for x1 and x2."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def _arrays_only(name, function):
    def refusing(x1, x2, /):
        if not hasattr(x1, "dtype") or not hasattr(x2, "dtype"):
            raise TypeError(f"{name}() takes arrays only, got {type(x1).__name__} and {type(x2).__name__}")
        return function(x1, x2)

    refusing.__name__ = name
    return refusing


maximum = _arrays_only("maximum", _xp.maximum)
minimum = _arrays_only("minimum", _xp.minimum)

built_on(globals())
