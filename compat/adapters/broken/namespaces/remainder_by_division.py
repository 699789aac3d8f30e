"""remainder computes x1 - floor(x1 / x2) * x2 in the operands' float dtype: right (sign of x2 included)
for moderate operands, wrong where x1 is far larger than x2 (the quotient rounds, and so does the
product: 1e30 % 7 is 1e30 - 1e30, not 1e30 mod 7)."""

from array_api_compat import numpy as _xp

from compat.adapters.broken.namespaces import built_on


def remainder(x1, x2, /):
    result = _xp.remainder(x1, x2)
    floating = getattr(result, "dtype", None) is not None and result.dtype.kind == "f"
    if not floating:
        return result
    x1, x2 = _xp.asarray(x1, dtype=result.dtype), _xp.asarray(x2, dtype=result.dtype)
    by_division = x1 - _xp.floor(x1 / x2) * x2
    # where the quotient is exact enough the two agree; a large dividend shows the division's rounding
    return _xp.where(_xp.isfinite(by_division), by_division, result)


built_on(globals())
