"""The Adapter base class: how compat talks to one backend."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import operator
import time
import warnings
from typing import Any, ClassVar

import numpy as np

from compat.core import dtypes
from compat.core.outcome import Outcome

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
                from compat.harness import isolation

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


