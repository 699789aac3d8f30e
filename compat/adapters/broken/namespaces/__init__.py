"""Broken Array API namespaces: modules that implement the standard (array_api_compat.numpy, each
function but one passed through) with one rule broken, as a namespace of a user's could break it.
Each is a backend behind ``--backends array-api:compat.adapters.broken.namespaces.<module>`` like any
namespace, through compat's generic adapter; compat.adapters.broken.wrapped names each
with the family that must catch it, for ``python -m compat detect`` and the meta-tests.

Their faults are of the kinds the standard's signatures and value facts exist for: a parameter's
default taken wrongly (``keepdims``, ``endpoint``, ``side``), a Python scalar or an int shape
refused where the signature admits one, and a rule broken only on values a careless draw never
makes (a conjugate left out, which real values hide; a remainder that loses large dividends; ties
reversed, which distinct values hide). ``intact`` is the same construction with nothing broken: the
control, which must show nothing array_api_compat.numpy does not.
"""

from __future__ import annotations

import importlib
from types import ModuleType

BASE = "array_api_compat.numpy"  # every namespace here is built on it (and run beside it)


def built_on(namespace: dict, base: str = BASE) -> None:
    """Fill a module's ``namespace`` (its globals) with every public name of ``base`` it does not
    define itself: the intact functions, dtypes, constants, linalg, fft, __array_namespace_info__."""
    module: ModuleType = importlib.import_module(base)
    for name in dir(module):
        if name not in namespace and (not name.startswith("_") or name == "__array_namespace_info__"):
            namespace[name] = getattr(module, name)
