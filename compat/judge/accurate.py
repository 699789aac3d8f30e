"""What the reference says about float values, beyond NumPy's plain result: the value
of a math function computed in wider precision and rounded once (NumPy's own float32
functions are not correctly rounded)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from compat.core import dtypes, ops
from compat.core.case import Case
from compat.core.outcome import Outcome


def accurate(reference, case: Case, expected: Outcome) -> Outcome:
    """The reference's result of an elementwise operation that is not correctly rounded
    (exp, sin, power, ...), recomputed in wider precision and rounded once, so that
    NumPy's own rounding errors are not charged to the backends: the operands as the
    reference computes them (converted to its result dtype; for an in-place operator, ``x **= y``,
    to the dtype x and y promote to, in which NumPy computes before it writes x's dtype back), in
    float64 for narrower floats and long double for float64 (where it is wider), the values rounded
    back. Dtype, shape and errors stay NumPy's. ``reference`` is the NumPy adapter (its ``function``)."""
    declared = ops.get(case.op)
    if (
        expected.raised
        or expected.values is None
        or not declared.elementwise
        or declared.correctly_rounded
        or expected.dtype not in dtypes.REAL_FLOAT
        or case.program is not None
    ):
        return expected
    result = dtypes.to_numpy(expected.dtype)
    computed = result
    if declared.in_place:
        promoted = np.result_type(*case.args)
        computed = promoted if promoted.kind == "f" and promoted.itemsize > result.itemsize else result
    wide = np.float64 if computed != np.float64 else np.longdouble
    if wide == np.longdouble and np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant:
        return expected
    kwargs = {k: v for k, v in case.kwargs.items() if k != "dtype"}
    with np.errstate(all="ignore"):
        operands = [np.asarray(a).astype(computed).astype(wide) for a in case.args]
        values = np.asarray(reference.function(case.op)(*operands, **kwargs)).astype(computed).astype(result)
    return replace(expected, values=values.reshape(expected.values.shape))
