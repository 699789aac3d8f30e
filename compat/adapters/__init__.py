"""The Adapter protocol, the Outcome it returns, and adapter discovery.

An adapter is one small class per backend (einops-style). It knows how to
turn NumPy inputs into backend values on a device, how to call an operation
of the backend's NumPy-like API by its NumPy name, and how to turn the result
back into an Outcome. It knows nothing about records, registries or specs.

Operations are named as in NumPy (``add``, ``floor_divide``, ``matmul``...).
An adapter maps a name to source text (``OPS``): the same text is evaluated
to get the callable and pasted into reproducer snippets, so a reproducer runs
exactly what the harness ran.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import operator
import time
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from compat import dtypes


class Unsupported(Exception):
    """The backend has no such operation."""


class BackendArray(np.ndarray):
    """A NumPy array the adapter converts to a backend array even where it is
    nested (an index array inside an index tuple); NumPy treats it as an ndarray."""


def backend_array(values) -> BackendArray:
    return np.asarray(values).view(BackendArray)


class AdapterError(Exception):
    """An adapter could not be found or loaded (one-line message for users)."""


class BackendMissing(AdapterError):
    """The backend's framework is not installed: a skip, not an error."""

    def __init__(self, message: str, backend: str):
        super().__init__(message)
        self.backend = backend


# Seconds spent inside framework code (conversions and the call itself);
# the benchmark compares it with wall time to measure harness overhead.
framework_seconds = 0.0


@dataclass
class Outcome:
    """What one call produced: a value (as NumPy) or an exception."""

    values: np.ndarray | None = None
    dtype: str | None = None
    shape: tuple[int, ...] | None = None
    device: str | None = None
    error: BaseException | None = None
    error_category: str | None = None
    parts: list[Outcome] | None = None  # a call that returns several arrays (gradients of x0, x1, ...)
    tolerance: np.ndarray | None = None  # allowed absolute error per element, where the reference knows it

    @property
    def raised(self) -> bool:
        return self.error is not None

    def describe(self) -> str:
        if self.raised:
            return f"raised {error_type(self.error).rpartition('.')[2]} ({self.error_category}): {first_line(self.error)}"
        if self.parts is not None:
            return "(" + "; ".join(p.describe() for p in self.parts) + ")"
        if self.values is None:
            return "None" if self.shape is None else f"shape {self.shape}"
        return f"{self.dtype}{list(self.shape)} {format_values(self.values)}"

    def to_json(self) -> dict[str, Any]:
        if self.raised:
            return {
                "error": {
                    "type": error_type(self.error),
                    "category": self.error_category,
                    "message": first_line(self.error),
                }
            }
        if self.parts is not None:
            return {"parts": [p.to_json() for p in self.parts]}
        out: dict[str, Any] = {"shape": list(self.shape) if self.shape is not None else None}
        if self.values is not None:
            out["dtype"] = self.dtype
            out["values"] = json_values(self.values)
        if self.device is not None:
            out["device"] = self.device
        return out


def error_type(error: BaseException) -> str:
    """'module.Class' of an exception; an exception from a child process keeps its original type."""
    return getattr(error, "type_name", None) or f"{type(error).__module__}.{type(error).__qualname__}"


def first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:300] if text else type(error).__name__


def format_values(values: np.ndarray, limit: int = 8) -> str:
    flat = values.reshape(-1)
    shown = ", ".join(repr_scalar(v) for v in flat[:limit])
    more = f", ... ({flat.size} values)" if flat.size > limit else ""
    return f"[{shown}{more}]"


def repr_scalar(value) -> str:
    if isinstance(value, (np.bool_, bool)):
        return str(bool(value))
    if np.iscomplexobj(value):
        return repr(complex(value))
    if isinstance(value, (np.floating, float)) or (hasattr(value, "dtype") and value.dtype.kind == "V"):
        return repr(float(value))
    try:
        return str(int(value))
    except (TypeError, ValueError):
        return repr(float(value))


def json_values(values: np.ndarray, limit: int = 64) -> list:
    """Values for a record: JSON-safe, NaN/inf as strings, complex as [re, im]."""
    flat = values.reshape(-1)[:limit]
    return [json_scalar(v) for v in flat]


def json_scalar(value):
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if np.iscomplexobj(value):
        return [json_scalar(np.real(value)), json_scalar(np.imag(value))]
    if isinstance(value, (np.integer, int)):
        return int(value)
    f = float(value)
    if np.isnan(f):
        return "nan"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0 and np.signbit(f):
        return "-0.0"
    return f


class Adapter:
    """Base class of the adapters; subclasses fill in the class attributes.

    ``namespace`` is the source name of the backend's NumPy-like module in
    reproducers (``np``, ``torch``, ``jnp``, ``tnp``); ``imports`` are the
    import lines that define it. ``OPS`` overrides ``namespace.<op>`` for
    operations spelled differently: an expression, or a ``def <op>(...)``
    block for operations that take several statements (functional updates).
    ``getitem`` is Python's ``x[index]`` everywhere.
    """

    name: ClassVar[str] = "base"
    requires: ClassVar[str] = "numpy"  # import name checked before use
    namespace: ClassVar[str] = "np"
    imports: ClassVar[tuple[str, ...]] = ("import numpy as np",)
    OPS: ClassVar[dict[str, str]] = {}
    # label -> config; configs run by default are listed in DEFAULT_CONFIGS
    CONFIGS: ClassVar[dict[str, dict[str, Any]]] = {"": {}}
    DEFAULT_CONFIGS: ClassVar[tuple[str, ...]] = ("",)

    def __init__(self, label: str = "") -> None:
        if label not in self.CONFIGS:
            choices = ", ".join(f"{self.name}[{c}]" for c in self.CONFIGS if c) or self.name
            raise AdapterError(f"unknown config {label!r} for backend {self.name!r} (choose from {choices})")
        self.label = label
        self.spec = self.id  # how load_adapter finds this adapter again (set by resolve)
        self.config = dict(self.CONFIGS[label])
        self._functions: dict[str, Any] = {}

    # -- identity --------------------------------------------------------
    @property
    def id(self) -> str:
        return f"{self.name}[{self.label}]" if self.label else self.name

    @classmethod
    def is_available(cls) -> bool:
        return importlib.util.find_spec(cls.requires) is not None

    def version(self) -> str:
        if not hasattr(self, "_version"):  # importlib.metadata costs milliseconds per call
            self._version = importlib.metadata.version(self.distribution())
        return self._version

    def distribution(self) -> str:
        return self.requires

    # -- devices -------------------------------------------------------------
    reference_device: ClassVar[str] = "cpu:0"  # what other devices are compared with

    def devices(self) -> list[str]:
        """Every device the backend sees in this process."""
        return [self.reference_device]

    def placement_on(self, device: str) -> str | None:
        """The ``device`` argument that computes on the reference ``device``: the
        device itself, or None where default placement puts values there anyway."""
        return device

    def plugin_devices(self) -> list[str]:
        """Devices compat itself can give this backend (its reference plug-ins), checked by default."""
        return []

    def prepare_devices(self, load: bool = True) -> None:
        """Build the reference plug-ins (cached) and, with ``load``, make them
        visible in this process; before the framework starts. Raises
        compat.devices.DeviceBuildError with a one-line reason."""

    def faults(self) -> dict[str, str]:
        """The reference plug-in's named faults (name -> what goes wrong), for the self-test."""
        return {}

    def set_fault(self, name: str | None, seed: int = 0) -> None:
        """Switch a plug-in fault on (None: off) in this process."""
        raise NotImplementedError(f"{self.id} has no fault injection")

    def kernel_counters(self) -> dict[str, dict[str, int]] | None:
        """Plug-in kernel launches since the last reset: op -> {"device": n, "fallback": n}; None if no plug-in."""
        return None

    def reset_kernel_counters(self) -> None:
        pass

    def device_scope(self, device: str | None):
        """A context manager in which operations run on ``device``."""
        import contextlib

        return contextlib.nullcontext()

    def device_lines(self, device: str) -> list[str]:
        """Reproducer lines that make ``device`` exist (load a plug-in, ...)."""
        return []

    def scope_source(self, device: str) -> str | None:
        """Reproducer line opening a block that runs on ``device`` (TensorFlow), or None."""
        return None

    # -- conversions (override per framework) ------------------------------
    def from_numpy(self, array: np.ndarray, device: str | None):
        raise NotImplementedError

    def to_numpy(self, value) -> np.ndarray:
        raise NotImplementedError

    def device_of(self, value) -> str | None:
        return None

    def dtype(self, name: str):
        """The backend's dtype object for a canonical dtype name."""
        return eval(self.dtype_source(name), self.source_globals())

    def dtype_source(self, name: str) -> str:
        return f"{self.namespace}.{name}"

    def array_source(self, variable: str, dtype: str, device: str | None = None) -> str:
        """Source text converting the NumPy array in ``variable`` (of canonical ``dtype``) onto ``device``."""
        return f"{self.namespace}.asarray({variable})"

    def setup_lines(self) -> list[str]:
        """Source lines that put the backend into this adapter's config."""
        return []

    def is_shape(self, value) -> bool:
        return isinstance(value, tuple) and all(isinstance(v, int) for v in value)

    # -- calling -----------------------------------------------------------
    def op_source(self, op: str) -> str:
        if op == "getitem":
            return "operator.getitem"
        return self.OPS.get(op, f"{self.namespace}.{op}")

    def supports(self, op: str) -> bool:
        try:
            self.function(op)
        except Unsupported:
            return False
        return True

    def source_globals(self) -> dict[str, Any]:
        namespace: dict[str, Any] = {}
        for line in self.imports:
            exec(line, namespace)
        return namespace

    def function(self, op: str):
        if op not in self._functions:
            source, namespace = self.op_source(op), self.source_globals()
            try:
                if source.startswith("def "):
                    exec(source, namespace)
                    self._functions[op] = namespace[op]
                else:
                    self._functions[op] = eval(source, {"operator": operator, **namespace})
            except AttributeError as error:
                raise Unsupported(f"{self.id} has no {op} ({source})") from error
        return self._functions[op]

    def convert(self, value, device):
        """Arguments to backend values: top-level arrays, and BackendArrays anywhere."""
        if isinstance(value, BackendArray):
            return self.from_numpy(np.asarray(value), device)
        if isinstance(value, np.ndarray):
            return self.from_numpy(value, device)
        if isinstance(value, tuple):
            return tuple(v if isinstance(v, np.ndarray) and not isinstance(v, BackendArray) else self.convert(v, device)
                         for v in value)
        return value

    def run(self, op: str, args: tuple, kwargs: dict | None = None, device: str | None = None) -> Outcome:
        """Call ``op`` on ``args`` (NumPy arrays and Python values) on ``device``;
        calls that can kill the process run in a child process (their time,
        the child's attempts included, counts as framework time)."""
        global framework_seconds
        start = time.perf_counter()
        try:
            if self.isolate(op, args):
                from compat import isolation

                return isolation.run(self, op, args, kwargs, device)
            return self.call(op, args, kwargs, device)
        finally:
            framework_seconds += time.perf_counter() - start

    def isolate(self, op: str, args: tuple) -> bool:
        """True for calls known to abort the interpreter now and then (framework bugs)."""
        return False

    def call(self, op: str, args: tuple, kwargs: dict | None = None, device: str | None = None) -> Outcome:
        try:
            with self.context(), self.device_scope(device), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numpy's "divide by zero" etc. are not results
                fn = self.function(op)
                backend_args = [self.convert(a, device) for a in args]
                backend_kwargs = {k: self.dtype(v) if k == "dtype" else v for k, v in (kwargs or {}).items()}
                return self.outcome(fn(*backend_args, **backend_kwargs))
        except Exception as error:  # a raised error is a result like any other
            return Outcome(error=error, error_category=self.classify(error))

    def context(self):
        """A context manager that applies this adapter's config around a call."""
        import contextlib

        return contextlib.nullcontext()

    def outcome(self, result) -> Outcome:
        if result is None:  # TensorFlow's gradient of an input it cannot differentiate
            return Outcome()
        if isinstance(result, (list, tuple)) and not self.is_shape(result):
            return Outcome(parts=[self.outcome(r) for r in result])
        if self.is_shape(result):
            return Outcome(shape=tuple(int(v) for v in result))
        values = self.to_numpy(result)
        return Outcome(
            values=values,
            dtype=dtypes.name_of(values.dtype),
            shape=tuple(values.shape),
            device=self.device_of(result),
        )

    def classify(self, error: BaseException) -> str:
        """A coarse, framework-neutral category for an exception."""
        message = str(error).lower()
        if isinstance(error, Unsupported):
            return "unsupported"
        if isinstance(error, IndexError) or (("bounds" in message or "out of range" in message) and "ind" in message):
            return "index"
        if isinstance(error, (ZeroDivisionError, FloatingPointError)) or "division by zero" in message or "zerodivision" in message:
            return "arithmetic"
        if isinstance(error, OverflowError) or "out of bounds for" in message or "overflow" in message:
            return "overflow"
        if any(word in message for word in ("broadcast", "shape", "size of tensor", "dimension", "axis")):
            return "shape"
        if isinstance(error, (TypeError, NotImplementedError)) or any(
            phrase in message for phrase in ("not implemented for", "not in the list of allowed values", "dtype", "promot")
        ):
            return "dtype"
        if isinstance(error, ValueError):
            return "value"
        return "other"


BUILTIN = {
    "numpy": "compat.adapters.numpy:NumpyAdapter",
    "torch": "compat.adapters.torch:TorchAdapter",
    "jax": "compat.adapters.jax:JaxAdapter",
    "tensorflow": "compat.adapters.tensorflow:TensorflowAdapter",
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


def parse(spec: str) -> tuple[str, str | None]:
    """'jax[x32]' -> ('jax', 'x32'); 'jax' -> ('jax', None)."""
    if spec.endswith("]") and "[" in spec:
        name, _, label = spec[:-1].partition("[")
        return name, label
    return spec, None


def resolve(spec: str) -> list[Adapter]:
    """Adapters for a --backends item or an --adapter path.

    A bare backend name gives one adapter per default config (``jax`` ->
    ``jax[x64]``, ``jax[x32]``); ``name[label]`` gives that config only.
    Raises BackendMissing when the framework is not installed.
    """
    name, label = parse(spec)
    if ":" in name:
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
        adapter.spec = f"{name}[{adapter.label}]" if adapter.label else name
    return adapters


def load_adapter(spec: str) -> Adapter:
    """Exactly one adapter, for reproducers: 'torch', 'jax[x32]', 'pkg.mod:Name[label]'."""
    adapters = resolve(spec)
    if len(adapters) != 1:
        raise AdapterError(f"{spec!r} names {len(adapters)} configs; add one of {[a.id for a in adapters]}")
    return adapters[0]
