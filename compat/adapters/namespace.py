"""Any module that implements the Python Array API standard, as a backend with no code of its own:
``--backends array-api:array_api_strict``, ``array-api:array_api_compat.torch``.

Every operation of compat's table is called by the standard's name (``Op.standard_name``:
``xp.pow``, ``xp.linalg.svd``; operators and indexing as Python spells them); an operation that
is not the standard's (NumPy's NaN-ignoring reductions, compat's own updates, autodiff) is
declared unsupported with the reason. The standard makes most parameters with a default
keyword-only: an argument the table passes by position goes by name where the namespace's
signature asks for it. Dtypes are those of ``__array_namespace_info__().dtypes()``, devices
those of its ``devices()``, each named as the library names it; values cross from and to
NumPy by DLPack, the standard's interchange (array_api_strict's ``__array__`` is not one).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import re
from inspect import Parameter

import numpy as np

from compat.adapters import inspection
from compat.adapters.base import Adapter
from compat.adapters.declared import AdapterError, BackendMissing, Unsupported, unsupported
from compat.adapters.placement import Placement
from compat.adapters.spelling import Spelling
from compat.adapters.values import Values
from compat.core import dtypes, ops, standard

KEYWORD_ONLY, POSITIONAL_ONLY = Parameter.KEYWORD_ONLY, Parameter.POSITIONAL_ONLY
PREFIX = "array-api:"
# the standard's functions and those of its extensions, as the table's standard_name spells them
STANDARD = {
    *standard.FUNCTIONS,
    *(f"{ext}.{name}" for ext, names in standard.EXTENSIONS.items() for name in names),
}
# operations of compat's table that are the standard's under compat's name (the adapter's methods of
# the same name call them): the array's to_device, from_dlpack of another library's array; the questions
# to the inspection namespace are compat.adapters.inspection's, with xp this namespace
INSPECTION = {
    "to_device": "x.to_device(device)",
    "from_dlpack_of": "xp.from_dlpack(x, copy=copy)",
    "from_dlpack_onto": "xp.from_dlpack(x, device=device)",
}
QUESTIONS = {f.__name__ for f in inspection.QUESTIONS}
NOT_STANDARD = {
    "nan reduction": "a NaN-ignoring reduction is NumPy's; the standard has none",
    "update": "an update out of place (x.at[i].set, np.add.at) is not the standard's: it has __setitem__",
    "autodiff": "the standard has no automatic differentiation",
    "placement": "compat's own operation, not the standard's",
}


# packages whose module <name> wraps the framework that compat's backend <name> checks
WRAPPER_PACKAGES = ("array_api_compat",)


def standard_target(op: ops.Op) -> str | Unsupported:
    """What the generic adapter calls for ``op``: the standard's name in the namespace, or a declaration."""
    if op.python is not None:  # operators, x[i], x[i] = v: Python's syntax on the standard's array
        return f"xp.{op.name}"  # (unused: Adapter.target takes the table's Python first)
    if op.name in INSPECTION:
        return INSPECTION[op.name]
    if op.name in QUESTIONS:
        return "xp.__array_namespace_info__"  # asked by compat.adapters.inspection (NamespaceAdapter.target)
    if op.standard_name in STANDARD:
        return f"xp.{op.standard_name}"
    reason = NOT_STANDARD.get(op.group, f"{op.name} is NumPy's, not a function of the standard")
    return unsupported(reason)


def standard_ops() -> dict[str, str | Unsupported]:
    """The generic adapter's OPS: each operation of the table by the standard's name, or declared."""
    return {op.name: standard_target(op) for op in ops.TABLE if op.python is None}


def device_name(device) -> str:
    """A device as the library names it: ``CPU_DEVICE`` of ``array_api_strict.Device('CPU_DEVICE')``,
    ``cpu`` of torch's ``device(type='cpu')``."""
    quoted = re.fullmatch(r"[\w.]+\('([^']*)'\)", repr(device))
    return quoted.group(1) if quoted else str(device)


def refused_dtype(message: str) -> str | None:
    """The dtype a namespace row refused in an error's message (``unsupported_dtype``'s words,
    which rows of schema 4 and before raised as a TypeError), or None."""
    found = re.fullmatch(r"\S+ has no dtype (\w+) \(none in its dtypes\(\), no xp\.\w+\)", message)
    return found.group(1) if found else None


class NamespaceSpelling(Spelling):
    """A namespace's arrays cross from NumPy by DLPack, the standard's interchange; a wrapper's
    are its framework's, made as that framework's row makes them (torch's bfloat16 bit for bit,
    which DLPack from NumPy cannot carry)."""

    def array(self, variable, dtype, device=None):
        adapter = self.adapter
        if adapter.framework is not None:
            return adapter.framework.spelling.array(variable, dtype, device)
        made = f"xp.from_dlpack({variable})"
        if device is None or device == adapter.reference_device:
            return made
        index = adapter.info.devices().index(adapter.placement.device_object(device))
        return f"{made}.to_device(xp.__array_namespace_info__().devices()[{index}])"


class NamespaceValues(Values):
    @functools.cached_property
    def table(self) -> dict:
        """Canonical name -> dtype object: the inspection API's, and beyond the standard's those the
        namespace itself names as compat does (float16 of a wrapper of NumPy or torch)."""
        xp = self.adapter.xp
        listed = dict(self.adapter.info.dtypes())
        named = {name: getattr(xp, name) for name in dtypes.ALL if hasattr(xp, name)}
        return {**named, **listed}

    def classify(self, error):
        """A wrapper's errors are its framework's, in that framework's words: as its row reads them."""
        framework = self.adapter.framework
        return framework.values.classify(error) if framework is not None else super().classify(error)

    def to_numpy(self, value):
        if not hasattr(value, "__dlpack__"):  # array_api_compat.numpy's 0-d results are NumPy scalars
            return np.asarray(value)
        framework = self.adapter.framework
        if framework is not None:
            return framework.values.to_numpy(value)
        try:
            return np.array(np.from_dlpack(value))
        except (
            BufferError,
            RuntimeError,
            TypeError,
            ValueError,
        ):  # memory NumPy cannot read: the host's first
            return np.array(np.from_dlpack(value.to_device(self.adapter.info.default_device())))

    def dtype_name(self, value):
        for name, dtype in self.table.items():
            if type(value) is type(dtype) and value == dtype:
                return name
        return super().dtype_name(value)


class NamespacePlacement(Placement):
    """The devices of the namespace's inspection API, each named as the library names it."""

    def devices(self):
        return [device_name(d) for d in self.checked]

    @functools.cached_property
    def checked(self) -> list:
        """The namespace's devices compat checks: those whose arrays hold values that can be read
        (not torch's 'meta', which array_api_compat.torch lists: shapes and dtypes, no data), and of a
        wrapper those its framework's row has (not torch's 'lazy', which compat's lazy mode adds)."""
        framework = self.adapter.framework

        def checked(device) -> bool:
            try:
                array = self.adapter.xp.asarray([0], device=device)
                self.adapter.values.to_numpy(array)
            except Exception:  # whatever the library raises for a device without data
                return False
            return framework is None or framework.placement.device_of(array) in framework.placement.devices()

        return [d for d in self.adapter.info.devices() if checked(d)]

    def device_object(self, name: str):
        found = [d for d in self.adapter.info.devices() if device_name(d) == name]
        if not found:
            raise ValueError(
                f"{self.adapter.module} has no device {name!r} (its devices: {', '.join(self.devices())})"
            )
        return found[0]

    def device_of(self, value):
        device = getattr(value, "device", None)
        return None if device is None else device_name(device)


class NamespaceAdapter(Adapter):
    """The standard's namespace ``module`` (set on the class ``adapter_class`` makes for it)."""

    module = ""
    namespace = "xp"
    Spelling = NamespaceSpelling
    Values = NamespaceValues
    Placement = NamespacePlacement

    # -- the namespace ---------------------------------------------------------------
    @functools.cached_property
    def xp(self):
        return importlib.import_module(self.module)

    @functools.cached_property
    def info(self):
        return self.xp.__array_namespace_info__()

    @functools.cached_property
    def framework(self) -> Adapter | None:
        """The adapter of the framework a wrapper wraps (None for a namespace of its own): the
        wrapper's arrays are that framework's, made and read as its own row makes and reads them."""
        from compat.adapters import load_adapter  # (compat.adapters imports this module)

        return load_adapter(self.wraps) if self.wraps else None

    @property
    def reference_device(self) -> str:  # type: ignore[override]
        return device_name(self.info.default_device())

    def distribution(self) -> str:
        return self.module.split(".")[0].replace("_", "-")

    def version(self) -> str:
        return getattr(self.xp, "__version__", None) or super().version()

    def check_operations(self) -> None:
        if not hasattr(self.xp, "__array_namespace_info__"):
            raise AdapterError(
                f"{self.name} is not an Array API namespace (it has no __array_namespace_info__)"
            )
        super().check_operations()

    def unsupported_dtype(self, name):
        if name in self.values.table:
            return None
        return f"{self.module} has no dtype {name} (none in its dtypes(), no xp.{name})"

    # -- calling -------------------------------------------------------------------
    def target(self, op):
        return getattr(self._questions, op) if op in QUESTIONS else super().target(op)

    def function(self, op):
        if op == "to_device":  # the array's method, to a device the namespace names
            return lambda x, device: x.to_device(self.placement.device_object(device))
        if op == "from_dlpack_onto":  # onto a device the namespace names
            return lambda x, device: self.xp.from_dlpack(x, device=self.placement.device_object(device))
        if op == "from_dlpack_of":
            return lambda x, copy=None: (
                self.xp.from_dlpack(x) if copy is None else self.xp.from_dlpack(x, copy=copy)
            )
        return super().function(op)

    @functools.cached_property
    def _questions(self):
        return inspection.bound(self.xp)

    def call(self, op, args, kwargs=None, device=None, mode="eager"):
        """The table's call, with each argument the namespace's function takes by keyword only
        (the standard's ``sum(x, /, *, axis=None)``) passed by its name."""
        args, kwargs = self._by_keyword(op, tuple(args), dict(kwargs or {}))
        return super().call(op, args, kwargs, device, mode)

    def _by_keyword(self, op: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The arguments as the namespace's signature takes them: a positional one it takes by
        keyword only goes by the table's name for it (with those after it), a keyword one it
        takes by position only (``astype(x, dtype, /)``) goes by position, as a dtype object."""
        declared = ops.get(op)
        if declared.python is not None or self.unsupported(op) is not None:
            return args, kwargs
        try:
            parameters = inspect.signature(self.function(op)).parameters
        except (TypeError, ValueError):  # a builtin without a signature: as given
            return args, kwargs
        names = [p.strip().split("=")[0] for p in declared.params.strip("()").split(",") if p.strip()]
        if any(name.startswith("*") for name in names) or len(args) > len(names):
            return args, kwargs
        kinds = {name: parameters[name].kind for name in names if name in parameters}
        by_name = next((i for i in range(len(args)) if kinds.get(names[i]) is KEYWORD_ONLY), len(args))
        positional, keywords = list(args[:by_name]), {**dict(zip(names[by_name:], args[by_name:])), **kwargs}
        for name in names[len(positional) :]:
            if kinds.get(name) is not POSITIONAL_ONLY or name not in keywords:
                break
            value = keywords.pop(name)
            positional.append(dtypes.DType(value) if name == "dtype" and isinstance(value, str) else value)
        return tuple(positional), keywords


def wrapped_backend(module: str) -> str:
    """The registered backend a namespace wraps (``torch`` of ``array_api_compat.torch``), or ''."""
    from compat.adapters import registered  # (compat.adapters imports this module)

    package, _, name = module.partition(".")
    return name if package in WRAPPER_PACKAGES and name in registered() else ""


def wrapped_imports(backend: str) -> dict[str, str]:
    """The imports of the adapter of ``backend`` (none for ''): a wrapper's reproducers make its
    framework's arrays as that framework's adapter does."""
    from compat.adapters import load_class, registered

    return dict(load_class(registered()[backend]).imports) if backend else {}


@functools.cache
def adapter_class(module: str) -> type[NamespaceAdapter]:
    """The adapter of the standard's namespace ``module``: BackendMissing where its package is
    not installed, a one-line AdapterError where the name is not a module or not a namespace."""
    if not module or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module):
        raise AdapterError(
            f"{PREFIX}{module}: name an Array API namespace module, e.g. {PREFIX}array_api_strict"
        )
    top = module.split(".")[0]
    if importlib.util.find_spec(top) is None:
        raise BackendMissing(f"{PREFIX}{module} is not installed (no module {top!r})", PREFIX + module)
    try:
        found = importlib.util.find_spec(module)  # imports the package, not the framework it wraps
    except ImportError:
        found = None
    if found is None:
        raise AdapterError(f"{PREFIX}{module}: {top} has no module {module!r}")
    wraps = wrapped_backend(module)
    if wraps and importlib.util.find_spec(wraps) is None:
        raise BackendMissing(f"{PREFIX}{module} wraps {wraps}, which is not installed", PREFIX + module)
    return type(
        f"Namespace_{module.replace('.', '_')}",
        (NamespaceAdapter,),
        {
            "name": PREFIX + module,
            "requires": top,
            "module": module,
            "wraps": wraps,
            "imports": {**wrapped_imports(wraps), "np": "numpy", "xp": module},
            "OPS": standard_ops(),
            "__module__": __name__,
        },
    )
