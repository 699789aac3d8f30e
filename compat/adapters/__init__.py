"""Adapters, one small module per backend behind one protocol (``base.Adapter``), and
their discovery: compat's own, those of the ``compat.adapters`` entry-point group,
and ``package.module:Class`` paths."""

from __future__ import annotations

import importlib
import importlib.metadata

from compat.adapters import namespace
from compat.adapters.base import Adapter
from compat.adapters.declared import AdapterError, BackendMissing, Unsupported, unsupported
from compat.core.source import backend_array

__all__ = [
    "Adapter",
    "AdapterError",
    "BackendMissing",
    "Unsupported",
    "backend_array",
    "load_adapter",
    "registered",
    "resolve",
    "unsupported",
]

# compat's own backends, the only list of them: in code, not as entry points, so that a source
# tree that is not pip-installed has them too; the entry-point group is for third parties
BUILTIN = {
    "numpy": "compat.adapters.numpy:NumpyAdapter",
    "torch": "compat.adapters.torch:TorchAdapter",
    "jax": "compat.adapters.jax:JaxAdapter",
    "tensorflow": "compat.adapters.tensorflow:TensorflowAdapter",
    "cupy": "compat.adapters.cupy:CupyAdapter",  # needs a CUDA device (issue 35)
    "dask": "compat.adapters.dask:DaskAdapter",
}


def registered() -> dict[str, str]:
    """Backend name -> 'module:Class', built-ins plus the compat.adapters entry points."""
    found = dict(BUILTIN)
    for entry in importlib.metadata.entry_points(group="compat.adapters"):
        found.setdefault(entry.name, entry.value)
    return found


def load_class(path: str) -> type[Adapter]:
    """Import 'package.module:Name' and return the adapter class."""
    module_name, _, attribute = path.partition(":")
    if not attribute:
        raise AdapterError(f"adapter path {path!r} must look like package.module:ClassName")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(f"cannot import adapter module {module_name!r}: {error}") from None
    cls = getattr(module, attribute, None)
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise AdapterError(f"{path!r} is not a compat Adapter subclass")
    return cls


def parse(selector: str) -> tuple[str, str | None]:
    """'jax[x32]' -> ('jax', 'x32'); 'jax' -> ('jax', None)."""
    if selector.endswith("]") and "[" in selector:
        name, _, label = selector[:-1].partition("[")
        return name, label
    return selector, None


def resolve(selector: str) -> list[Adapter]:
    """Adapters for a --backends item or an --adapter path.

    A bare backend name gives one adapter per default config (``jax`` ->
    ``jax[x64]``, ``jax[x32]``); ``name[label]`` gives that config only.
    Raises BackendMissing when the framework is not installed.
    """
    name, label = parse(selector)
    if name.startswith(namespace.PREFIX):  # any module that implements the Array API standard
        cls: type[Adapter] = namespace.adapter_class(name.removeprefix(namespace.PREFIX))
    elif ":" in name:
        cls = load_class(name)
    else:
        table = registered()
        if name not in table:
            raise AdapterError(f"unknown backend {name!r} (known: {', '.join(sorted(table))})")
        cls = load_class(table[name])
    if not cls.is_available():
        raise BackendMissing(f"{cls.name} is not installed (no module {cls.requires!r})", cls.name)
    labels = [label] if label is not None else list(cls.DEFAULT_CONFIGS)
    adapters = [cls(lbl) for lbl in labels]
    for adapter in adapters:
        adapter.selector = f"{name}[{adapter.label}]" if adapter.label else name
    return adapters


def load_adapter(selector: str) -> Adapter:
    """Exactly one adapter, for reproducers: 'torch', 'jax[x32]', 'pkg.mod:Name[label]'."""
    adapters = resolve(selector)
    if len(adapters) != 1:
        raise AdapterError(
            f"{selector!r} names {len(adapters)} configs; add one of {[a.id for a in adapters]}"
        )
    return adapters[0]
