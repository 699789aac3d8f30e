"""full, zeros, ones and empty take a shape as a tuple only: an int shape (full(3, 1.5)), which the
standard admits (Union[int, Tuple[int, ...]]), raises TypeError."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def _tuple_shapes_only(name, function):
    def refusing(shape, *args, **kwargs):
        if not isinstance(shape, tuple):
            raise TypeError(f"{name}(): shape must be a tuple of ints, not {type(shape).__name__}")
        return function(shape, *args, **kwargs)

    refusing.__name__ = name
    return refusing


full = _tuple_shapes_only("full", _xp.full)
zeros = _tuple_shapes_only("zeros", _xp.zeros)
ones = _tuple_shapes_only("ones", _xp.ones)
empty = _tuple_shapes_only("empty", _xp.empty)

built_on(globals())
