"""Spelling, a part of every adapter (``adapter.spelling``): the text a reproducer writes for the
backend's arrays, dtypes, device scopes, settings and operations, and the harness's way of making
those things, which is to evaluate that same text.

Each fact is described once, as the Python a user would type (``torch.asarray(x0, device='cuda:0')``,
``jax.config.update("jax_enable_x64", True)``); ``evaluate`` runs it against the adapter's imports.
A reproducer and the call it reproduces therefore cannot drift apart (tests/test_reproducers.py
still runs every operation's reproducer against the harness's outcome). A backend's module
subclasses Spelling for what it spells otherwise than ``<namespace>.asarray(x)`` and
``<namespace>.<dtype>``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import string
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from compat.adapters.declared import AdapterError, Unsupported, UnsupportedOperation
from compat.core.source import function_source

# modules a reproducer's text may name that no adapter imports: NumPy's bfloat16 (an array's or a
# dtype's source), the operator module (an operator's spelling); a reproducer imports those it names
NAMED = {"ml_dtypes": "ml_dtypes", "operator": "operator"}


@dataclass(frozen=True)
class OpSource:
    """How a reproducer spells an operation: an expression, and the definitions it needs first."""

    expression: str
    definitions: str = ""


@dataclass(frozen=True)
class Setting:
    """A process-wide setting of the framework that a config changes: the statement a reproducer
    writes (``write``, formatted with the config's values: ``torch.set_default_dtype(torch.{default_dtype})``)
    and what is in force now (``read``: those keys' values), so that a call sets it only where it
    differs and, where ``restore``, sets back what was there after the call."""

    write: str
    read: Callable[[], dict[str, Any]]
    restore: bool = True

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(name for _, name, _, _ in string.Formatter().parse(self.write) if name)


@functools.lru_cache(maxsize=4096)
def compiled(text: str, kind: str):
    return compile(text, "<compat spelling>", kind)


class Spelling:
    """The default spelling: ``<namespace>.asarray(x)``, ``<namespace>.<dtype>``, no device scope,
    no settings, each operation by its dotted name or the source of compat's function for it."""

    settings: ClassVar[tuple[Setting, ...]] = ()  # those a row applies: the ones whose keys its config has

    def __init__(self, adapter) -> None:  # the Adapter it is a part of
        self.adapter = adapter
        self._names: dict[str, Any] | None = None

    # -- the descriptions ---------------------------------------------------------
    def array(self, variable: str, dtype: str, device: str | None = None) -> str:
        """The backend's array of the NumPy array in ``variable`` (of ``dtype``) on ``device``
        (None: the default one), inside ``scope(device)``."""
        return f"{self.adapter.namespace}.asarray({variable})"

    def dtype(self, name: str) -> str:
        """The backend's dtype object of compat's dtype ``name``."""
        return f"{self.adapter.namespace}.{name}"

    def scope(self, device: str | None) -> str | None:
        """A context manager in which calls run on ``device`` (None: the default device), or None
        where none is needed; a reproducer opens it with ``with``."""
        return None

    def setup(self) -> list[str]:
        """The statements that put the framework into the row's config, before anything else."""
        config = self.adapter.config
        return [
            setting.write.format(**config)
            for setting in self.settings
            if all(key in config for key in setting.keys)
        ]

    def mode_notes(self, case, mode: str) -> list[str]:
        """What execution ``mode`` does to a case's operands that a reproducer must say (Dask's chunks)."""
        return []

    # -- operations ---------------------------------------------------------------
    def operation(self, op: str) -> OpSource:
        """How a reproducer calls ``op``: the dotted name, or the source of the function compat
        wrote for it (renamed after the backend, with its helpers)."""
        target = self.adapter.target(op)
        if isinstance(target, Unsupported):
            raise UnsupportedOperation(f"{self.adapter.id} has no {op}: {target.reason}")
        if isinstance(target, str):
            if not is_compat_function(self.resolve(target)):
                return OpSource(target)
            target = self.resolve(target)
        if not is_compat_function(target):  # a user's own function (xp.check_function), from its module
            return OpSource(f"{target.__module__}.{target.__name__}", f"import {target.__module__}")
        return self.compat_function(target)

    def compat_function(self, function, *others) -> OpSource:
        """A function compat wrote, as a reproducer defines and names it: renamed after the
        backend, with the helpers and constants of its module that it uses (and the
        definitions of ``others``, each function once)."""
        prefix = f"{self.adapter.name.replace('-', '_')}_"
        rename = {
            "xp": self.adapter.namespace
        }  # compat.adapters.inspection's namespace, as the backend's alias
        for defined in (function, *others):
            module = vars(importlib.import_module(defined.__module__))
            rename.update(
                {
                    name: prefix + name
                    for name, value in module.items()
                    if is_compat_function(value) and value.__module__ == defined.__module__
                }
            )
        return OpSource(
            prefix + inspect.unwrap(function).__name__, function_source(function, *others, rename=rename)
        )

    def imports(self) -> list[str]:
        """The reproducer's imports of the backend (compat's own modules are pasted, not imported)."""
        return [
            f"import {module}" if alias == module else f"import {module} as {alias}"
            for alias, module in self.adapter.imports.items()
            if not module.startswith("compat.")
        ]

    # -- the harness's side: the same text, run --------------------------------------
    def evaluate(self, text: str, **names):
        """The value of the expression ``text`` with the adapter's imports (and ``names``)."""
        return eval(compiled(text, "eval"), self.modules(), names)

    def run(self, statement: str, **names) -> None:
        exec(compiled(statement, "exec"), {**self.modules(), **names})

    def resolve(self, path: str):
        """The object a dotted name like ``torch.linalg.norm`` names, through the adapter's imports."""
        alias, _, attributes = path.partition(".")
        if alias not in self.adapter.imports:
            raise AdapterError(f"{alias!r} is not one of its imports ({', '.join(self.adapter.imports)})")
        value = importlib.import_module(self.adapter.imports[alias])
        for attribute in filter(None, attributes.split(".")):
            if not hasattr(value, attribute):
                raise AdapterError(f"{value.__name__} has no {attribute!r}")
            value = getattr(value, attribute)
        return value

    def modules(self) -> dict[str, Any]:
        """The names a spelling's text may use: the adapter's imports and the modules of ``NAMED``."""
        if self._names is None:
            self._names = {
                alias: importlib.import_module(module)
                for alias, module in {**NAMED, **self.adapter.imports}.items()
            }
        return self._names

    @contextlib.contextmanager
    def applied(self):
        """The row's settings in force, as ``setup`` writes them; those that were otherwise
        before are set back after."""
        config, restores = self.adapter.config, []
        for setting in self.settings:
            if not all(key in config for key in setting.keys):
                continue
            wanted, before = {key: config[key] for key in setting.keys}, setting.read()
            if before != wanted:
                self.run(setting.write.format(**wanted))
                if setting.restore:
                    restores.append(setting.write.format(**before))
        try:
            yield
        finally:
            for statement in reversed(restores):
                self.run(statement)


def is_compat_function(value) -> bool:
    """A function compat wrote (decorated ones too: tf.function), whose source a reproducer pastes."""
    return isinstance(inspect.unwrap(value), types.FunctionType) and getattr(
        value, "__module__", ""
    ).startswith("compat.")
