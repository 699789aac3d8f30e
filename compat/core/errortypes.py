"""The exception a call must raise where NumPy and the standard agree on its class: per error
category (``Adapter.classify``), the Python class that NumPy raises and the standard names
(or, where the standard names none, the class Python's guidance gives it, which the standard
asks implementers to follow: spec/2025.12/design_topics/exceptions.rst).

- ``index``: IndexError. indexing.rst: "An ``IndexError`` exception must be raised if the
  number of provided single-axis indexing expressions (excluding ``None``) is greater than
  ``N``"; an out-of-bounds integer index is left open there, and NumPy and Python's
  sequences raise IndexError ("a sequence subscript is out of range"). An axis beyond the
  rank (NumPy's AxisError, an IndexError too) is not an index: the standard names no class.
- ``shape``: ValueError. broadcasting.rst says only "throw an exception"; Python's guidance:
  "an argument that has the right type but an inappropriate value" (NumPy: ValueError).
- ``dtype``: TypeError. Python's guidance: "an operation or function is applied to an
  object of inappropriate type" (NumPy: a TypeError, UFuncTypeError among them).

The rule applies only where NumPy raised that class (its error is an instance of it): a
backend then raises it or a subclass, or differs in kind ``error`` with the classes' names
as signature (``error_name``)."""

from __future__ import annotations

import importlib
import sys

import numpy as np

ERROR_TYPES: dict[str, type[BaseException]] = {
    "index": IndexError,
    "shape": ValueError,
    "dtype": TypeError,
}
NOT_COVERED: tuple[type[BaseException], ...] = (np.exceptions.AxisError,)  # the standard names no class


def expected_type(category: str, error: BaseException | None) -> type[BaseException] | None:
    """The class a backend must raise where NumPy raised ``error`` in ``category``, or None."""
    wanted = ERROR_TYPES.get(category)
    if wanted is None or error is None or conforms(error, NOT_COVERED):
        return None
    return wanted if conforms(error, wanted) else None


def error_class(error: BaseException) -> type | None:
    """The class of ``error``; for one raised in a child process (``type_name``), the class its
    name resolves to among the modules loaded here, else None."""
    name = getattr(error, "type_name", None)
    if name is None:
        return type(error)
    module, _, qualname = name.rpartition(".")
    loaded = sys.modules.get(module) or (importlib.import_module(module) if module == "builtins" else None)
    found = loaded
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def conforms(error: BaseException, wanted: type[BaseException] | tuple[type[BaseException], ...]) -> bool:
    cls = error_class(error)
    return cls is not None and issubclass(cls, wanted)


def same_class(expected: BaseException, actual: BaseException) -> bool:
    """Whether ``actual`` is of the class of ``expected`` (NumPy's), of a subclass, or of a builtin
    class NumPy's derives from (a ValueError where NumPy raises its AxisError or LinAlgError, a
    TypeError where it raises UFuncTypeError): the same error, whatever each message says."""
    want, got = error_class(expected), error_class(actual)
    if want is None or got is None:
        return False
    if issubclass(got, want):
        return True
    builtin = [
        c for c in want.__mro__ if c.__module__ == "builtins" and c not in (Exception, BaseException, object)
    ]
    return any(got is c for c in builtin)


def error_name(error: BaseException) -> str:
    """The class's name as a signature shows it: a builtin's bare name ("RuntimeError"), a
    framework's own class by its package and name ("tensorflow.InvalidArgumentError")."""
    return class_name(
        getattr(error, "type_name", None) or f"{type(error).__module__}.{type(error).__qualname__}"
    )


def class_name(type_name: str) -> str:
    """``error_name`` of an error's 'module.Class' (a record's ``actual.error.type``)."""
    module, _, qualname = type_name.rpartition(".")
    return qualname if module in ("builtins", "") else f"{module.partition('.')[0]}.{qualname}"
