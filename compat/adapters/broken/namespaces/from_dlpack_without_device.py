"""from_dlpack takes no device keyword (the standard's since 2023.12): from_dlpack(x, device=d)
raises TypeError, as a namespace written for the 2022.12 standard would."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def from_dlpack(x, /, *, copy=None):
    return _xp.from_dlpack(x, copy=copy)


built_on(globals())
