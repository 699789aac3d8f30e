"""result_type refuses Python scalars among its arguments (TypeError): it takes arrays and dtypes
only, as the standard's did before 2024.12 (which admits bool, int, float and complex beside them)."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def result_type(*arrays_and_dtypes):
    if any(isinstance(a, (bool, int, float, complex)) for a in arrays_and_dtypes):
        raise TypeError("result_type() takes arrays and dtypes, not Python scalars")
    return _xp.result_type(*arrays_and_dtypes)


built_on(globals())
