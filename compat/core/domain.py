"""NumPy's domain: the dtypes each operation is checked on against NumPy, those of the standard's
category for it (``Op.takes``) and those NumPy accepts beside them (bool in ``mask + 1``,
``sum(mask)``, ``maximum`` and ``<`` of bools), asked of NumPy itself with the table's example."""

from __future__ import annotations

import functools
import warnings

import numpy as np

from compat.core import dtypes, ops


@functools.cache
def numpy_accepts(op: str, name: str) -> bool:
    """Whether NumPy computes ``op`` (its table example) on operands of dtype ``name``: bool in
    ``mask + 1``, ``sum(mask)``, ``maximum`` and ``<`` of bools, which the standard's categories leave
    out and users write every day (an error other than a TypeError is an answer too)."""
    declared = ops.get(op)
    function = declared.python or (getattr(np, op, None) if not declared.numpy else None)
    if function is None or not callable(function):
        return name in dtypes.CATEGORIES[declared.takes]
    target = dtypes.to_numpy(name)
    args = tuple(
        a.astype(target) if isinstance(a, np.ndarray) and a.dtype.kind in "biufc" else a
        for a in declared.example
    )
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(*args, **dict(declared.example_kwargs))
    except TypeError:
        return False
    except Exception:
        return True
    return True


def in_domain(op: str, names=None) -> list[str]:
    """The dtypes (of ``names``, default all NumPy holds here) checked against NumPy for ``op``:
    those of the standard's category (``Op.takes``) and those NumPy accepts beside them (its
    domain: bool for add, sum, maximum, less). bfloat16 only where the category has it: NumPy's
    operations on it are ml_dtypes'. The standard's category still decides what the standard
    judges and what a namespace row must support (compat.harness.checker)."""
    takes = dtypes.CATEGORIES[ops.get(op).takes]
    return [
        n
        for n in (names or dtypes.available())
        if n in dtypes.available() and (n in takes or (n != "bfloat16" and numpy_accepts(op, n)))
    ]
