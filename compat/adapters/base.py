"""The Adapter: how compat talks to one backend.

An adapter is one small class per backend (einops-style). Its core turns NumPy
inputs into backend values on a device and back, calls an operation by its NumPy
name, and names dtypes, devices and errors in compat's terms. It knows nothing of
records, registries or specs; plug-in devices have their own protocol
(``compat.devices.PluginDevices``), which an adapter names in ``plugin``.

Which operations exist is compat's table (``compat.core.ops``). An adapter calls
``<namespace>.<name>`` for each, unless ``OPS`` maps it to another dotted name
(``"torch.eq"``, resolved against ``imports``; ``"ops.set_at"``, a function of the
backend's ``*_ops`` module, for operations that take several statements) or declares it
``unsupported("reason")``. A name that does not resolve is an ``AdapterError`` at
start-up (``check_operations``), never a silent skip. Reproducers are written from
the same mapping: the dotted name, or the function's own source. An adapter may pass
the arguments of a call through a function of its own first (``preparation``: the
NumPy adapter's NEP 50 for bfloat16); reproducers show that function too.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from compat.adapters.tracing import traced_call
from compat.core import cache, dtypes, ops
from compat.core.outcome import Outcome
from compat.core.programs import BoundProgram
from compat.core.source import BackendArray, Exported, Written, function_source


class AdapterError(Exception):
    """An adapter could not be found, loaded or used (one-line message for users)."""


class BackendMissing(AdapterError):
    """The backend's framework is not installed: a skip, not an error."""

    def __init__(self, message: str, backend: str):
        super().__init__(message)
        self.backend = backend


# a mode's reason for every question about dtypes (result_type, finfo, ...): there is no array to trace
NOTHING_TO_COMPILE = "a question about dtypes: no array in or out, nothing for an execution mode to compile"
# the table's questions to the standard's inspection namespace (__array_namespace_info__), and the
# backend's own answers they are compared with (made_dtypes, shown_capabilities)
INSPECTION = (
    "default_dtype",
    "info_dtypes",
    "made_dtypes",
    "info_lists_device",
    "info_capabilities",
    "shown_capabilities",
)
# the fields of the standard's finfo and iinfo objects (data_type_functions: finfo_object, iinfo_object)
FINFO_FIELDS = ("bits", "eps", "max", "min", "smallest_normal", "dtype")
IINFO_FIELDS = ("bits", "max", "min", "dtype")


@dataclass(frozen=True)
class Unsupported:
    """An operation an adapter declares it does not have, and why."""

    reason: str


def unsupported(reason: str) -> Unsupported:
    return Unsupported(reason)


class UnsupportedOperation(Exception):
    """Raised when a declared-unsupported operation is called anyway."""


@dataclass(frozen=True)
class OpSource:
    """How a reproducer spells an operation: an expression, and the definitions it needs first."""

    expression: str
    definitions: str = ""


class Adapter:
    """Base class of the adapters; subclasses fill in the class attributes."""

    name: ClassVar[str] = "base"
    requires: ClassVar[str] = "numpy"  # import name checked before use
    namespace: ClassVar[str] = "np"  # alias of the backend's NumPy-like module
    imports: ClassVar[dict[str, str]] = {"np": "numpy"}  # alias -> module, as reproducers import them
    OPS: ClassVar[dict[str, str | Unsupported]] = {}
    CONFIGS: ClassVar[dict[str, dict[str, Any]]] = {"": {}}  # label -> config
    DEFAULT_CONFIGS: ClassVar[tuple[str, ...]] = ("",)  # the configs a bare backend name selects
    # configs the default run (no --backends) also checks, on a share of the examples: label ->
    # the spec families whose rules the config changes (only those run on its row there)
    SHARE_CONFIGS: ClassVar[dict[str, tuple[str, ...]]] = {}
    share_families: tuple[str, ...] | None = None  # set on such a row: the families it checks
    # execution mode -> how it runs a call
    MODES: ClassVar[dict[str, str]] = {"eager": "op by op, as written"}
    MODE_LIMITS: ClassVar[dict[str, dict[str, str]]] = {}  # mode -> {operation: why the mode cannot run it}
    DEFAULT_MODES: ClassVar[tuple[str, ...]] = ()  # the modes besides eager that a run checks by default
    POLICIES: ClassVar[dict[str, str]] = {}  # mixed-precision policy -> what it promises (numerics survey)
    # maximum/minimum -> the zero each gives of -0.0 and +0.0 in either argument order, where the
    # backend promises one (IEEE 754-2019 maximum and minimum: -0 < +0); the standard leaves it open
    zero_order: ClassVar[dict[str, float]] = {}
    no_array_namespace: ClassVar[str] = ""  # why users' functions (array_namespace(x)) cannot take its arrays
    wraps: ClassVar[str] = ""  # the backend a namespace wraps (array_api_compat.torch: torch)
    reference_device: ClassVar[str] = "cpu:0"  # what other devices are compared with
    plugin: ClassVar[Any] = None  # compat.devices.PluginDevices: compat's reference plug-ins for this backend
    default_run_share: ClassVar[bool] = False  # the default run checks it on a share of the examples, not all
    exports_dlpack: ClassVar[bool] = True  # its arrays have __dlpack__: other rows import them (interchange)
    # what the framework raises once a call left its device unusable (a CUDA device-side assert): the
    # words of its error's class or message, a regular expression; records of old runs are read by it
    # (compat.harness.rematch), a run itself probes the device (``probe``)
    device_lost: ClassVar[str] = ""

    def __init__(self, label: str = "") -> None:
        if label not in self.CONFIGS:
            choices = ", ".join(f"{self.name}[{c}]" for c in self.CONFIGS if c) or self.name
            raise AdapterError(f"unknown config {label!r} for backend {self.name!r} (choose from {choices})")
        self.label = label
        self.selector = self.id  # how load_adapter finds this adapter again (set by resolve)
        self.config = dict(self.CONFIGS[label])
        self._functions: dict[str, Any] = {}
        self._version: str | None = None

    # -- identity ------------------------------------------------------------------
    @property
    def id(self) -> str:
        return f"{self.name}[{self.label}]" if self.label else self.name

    @classmethod
    def is_available(cls) -> bool:
        return importlib.util.find_spec(cls.requires) is not None

    def version(self) -> str:
        if self._version is None:  # importlib.metadata costs milliseconds per call
            self._version = importlib.metadata.version(self.distribution())
        return self._version

    def distribution(self) -> str:
        return self.requires

    # -- operations ----------------------------------------------------------------
    def target(self, op: str) -> str | Unsupported | types.FunctionType:
        """What ``op`` is in this backend: a dotted name, a shared Python function, or a declaration."""
        if op in self.OPS:
            return self.OPS[op]
        declared = ops.get(op)
        return declared.python if declared.python is not None else f"{self.namespace}.{op}"

    def unsupported(self, op: str, mode: str = "eager") -> str | None:
        """The reason this adapter gives for not having ``op`` (in execution ``mode``), or None if it has it."""
        target = self.target(op)
        if isinstance(target, Unsupported):
            return target.reason
        if mode != "eager" and ops.get(op).group == "dtype":
            return NOTHING_TO_COMPILE
        return self.MODE_LIMITS.get(mode, {}).get(op)

    # the standard's keywords its functions do not take ("keyword", or "operation.keyword") -> why: a case
    # passing one is counted as "<operation>(<keyword>=)", not checked, as an unsupported operation is
    LACKS: ClassVar[dict[str, str]] = {}

    def unsupported_parameter(self, op: str, name: str) -> str | None:
        return self.LACKS.get(f"{op}.{name}") or self.LACKS.get(name)

    def unsupported_dtype(self, name: str) -> str | None:
        """The reason the backend has no dtype ``name`` (CuPy's bfloat16), or None if it has it: a
        case that holds or asks for one is counted, not checked, as an unsupported operation is."""
        return None

    def function(self, op: str):
        """The callable of ``op``; AdapterError if the adapter maps it to nothing."""
        if op not in self._functions:
            target = self.target(op)
            if isinstance(target, Unsupported):
                raise UnsupportedOperation(f"{self.id} has no {op}: {target.reason}")
            if isinstance(target, str):
                try:
                    target = self.resolve(target)
                except AdapterError as error:
                    raise AdapterError(
                        f"adapter {self.id} maps operation {op!r} to {self.target(op)}, which does not "
                        f"exist ({error}): map it to {self.name}'s spelling in OPS or declare it "
                        f"unsupported(reason)"
                    ) from None
            self._functions[op] = target
        return self._functions[op]

    def resolve(self, path: str):
        """The object a dotted name like ``torch.linalg.norm`` names, through ``imports``."""
        alias, _, attributes = path.partition(".")
        if alias not in self.imports:
            raise AdapterError(f"{alias!r} is not one of its imports ({', '.join(self.imports)})")
        value = importlib.import_module(self.imports[alias])
        for attribute in filter(None, attributes.split(".")):
            if not hasattr(value, attribute):
                raise AdapterError(f"{value.__name__} has no {attribute!r}")
            value = getattr(value, attribute)
        return value

    def check_operations(self) -> None:
        """Resolve every operation of compat's table: a mapping to something that does not
        exist stops the run here, with one line naming the adapter and the operation. A
        passed check is kept in compat's cache under what it depends on (``operations_key``):
        the process that only hands tests to xdist workers then imports no framework."""
        passed = cache.directory("operations") / self.operations_key()
        if passed.exists():
            return
        for op in ops.OPS:
            if self.unsupported(op) is None:
                self.function(op)
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs the check next time
            passed.parent.mkdir(parents=True, exist_ok=True)
            passed.touch()

    def operations_key(self) -> str:
        """A digest of compat's table, this adapter's mappings and the installed modules they
        resolve against (compat's own by their source; a framework by its version and install)."""

        def named(target) -> str:
            if isinstance(target, Unsupported):
                return f"unsupported: {target.reason}"
            return target if isinstance(target, str) else f"{target.__module__}.{target.__qualname__}"

        parts = [
            f"{type(self).__module__}:{type(self).__qualname__}",
            *(f"{op} -> {named(self.target(op))}" for op in ops.OPS),
            *(f"{alias} = {installed(module)}" for alias, module in sorted(self.imports.items())),
        ]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]

    def op_source(self, op: str) -> OpSource:
        """How a reproducer calls ``op`` in this backend: the dotted name, or the source
        of the function compat wrote for it (renamed after the backend, with its helpers)."""
        target = self.target(op)
        if isinstance(target, Unsupported):
            raise UnsupportedOperation(f"{self.id} has no {op}: {target.reason}")
        if isinstance(target, str):
            if not is_compat_function(self.resolve(target)):
                return OpSource(target)
            target = self.resolve(target)
        if not is_compat_function(target):  # a user's own function (xp.check_function), from its module
            return OpSource(f"{target.__module__}.{target.__name__}", f"import {target.__module__}")
        return self.compat_source(target)

    def compat_source(self, function, *others) -> OpSource:
        """A function compat wrote, as a reproducer defines and names it: renamed after the
        backend, with the helpers and constants of its module that it uses (and the
        definitions of ``others``, each function once)."""
        prefix = f"{self.name.replace('-', '_')}_"
        rename = {"xp": self.namespace}  # compat.adapters.inspection's namespace, as the backend's alias
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

    def preparation(self, op: str, args: tuple, kwargs: dict) -> types.FunctionType | None:
        """A function compat wrote that ``call`` passes the positional arguments of ``op``
        through before calling it (``op(*prepare(*args))``), or None. It is where an
        adapter supplies a rule its framework lacks for these arguments (the NumPy
        adapter: NEP 50 for bfloat16); reproducers show it and call it the same way."""
        return None

    def import_lines(self) -> list[str]:
        """The reproducer's imports of the backend (compat's own modules are pasted, not imported)."""
        return [
            f"import {module}" if alias == module else f"import {module} as {alias}"
            for alias, module in self.imports.items()
            if not module.startswith("compat.")
        ]

    # -- calling -------------------------------------------------------------------
    def call(
        self, op: str, args: tuple, kwargs: dict | None = None, device: str | None = None, mode: str = "eager"
    ) -> Outcome:
        """Run ``op(*args, **kwargs)`` (NumPy arrays and Python values) on ``device``, in
        an execution ``mode`` (one of MODES); an exception the backend raises, while it
        traces, compiles or runs, is an outcome like any other."""
        try:
            with self.context(mode), self.device_scope(device), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numpy's "divide by zero" etc. are not results
                fn = self.function(op)
                backend_args = [self.convert(a, device) for a in args]
                prepare = self.preparation(op, args, kwargs or {})
                if prepare is not None:
                    backend_args = prepare(*backend_args)
                backend_kwargs = {
                    k: self.dtype(v) if k == "dtype" and v is not None else self.convert(v, device)
                    for k, v in (kwargs or {}).items()
                }  # arrays among them (searchsorted's sorter, diff's prepend) as backend arrays
                if mode == "eager":
                    return self.outcome(fn(*backend_args, **backend_kwargs))
                operands, traced = traced_call(fn, op, args, backend_args, backend_kwargs, kwargs or {})
                return self.outcome(self.compile(mode, traced)(*operands))
        except Exception as error:
            return Outcome(error=error, error_category=self.classify(error))

    def compile(self, mode: str, function):
        """``function`` (of the call's operands) as ``mode`` runs it: traced and compiled
        (jax.jit, tf.function, torch.compile) or recorded lazily; it is called once."""
        raise UnsupportedOperation(f"{self.id} has no execution mode {mode!r}")

    def isolate(self, op: str, args: tuple, mode: str = "eager", device: str | None = None) -> bool:
        """True for calls known to kill the interpreter (or its device), now and then or always
        (framework bugs): the harness runs those in a child process, where a death is a crash outcome."""
        return False

    def mode_notes(self, case, mode: str) -> list[str]:
        """What ``mode`` does to a case's operands that its reproducer must say (Dask's chunks)."""
        return []

    def context(self, mode: str = "eager"):
        """A context manager that applies this adapter's config (and execution mode) around a call."""
        return contextlib.nullcontext()

    def policy(self, name: str):
        """A context manager under which the backend's calls follow mixed-precision policy
        ``name`` (one of POLICIES), restoring what was in force before."""
        raise UnsupportedOperation(f"{self.id} has no mixed-precision policy {name!r}")

    def setup_lines(self) -> list[str]:
        """Reproducer lines that put the backend into this adapter's config (``context``'s twin)."""
        return []

    # -- values --------------------------------------------------------------------
    def from_numpy(self, array: np.ndarray, device: str | None):
        raise NotImplementedError

    def array_source(self, variable: str, dtype: str, device: str | None = None) -> str:
        """Reproducer text converting the NumPy array in ``variable`` (``from_numpy``'s twin)."""
        return f"{self.namespace}.asarray({variable})"

    def to_numpy(self, value) -> np.ndarray:
        raise NotImplementedError

    def dtype_source(self, name: str) -> str:
        return f"{self.namespace}.{name}"

    def dtype(self, name: str):
        """The backend's dtype object for a canonical dtype name."""
        return self.resolve(self.dtype_source(name))

    def is_shape(self, value) -> bool:
        return isinstance(value, tuple) and all(isinstance(v, int) for v in value)

    def convert(self, value, device):
        """Arguments to backend values: top-level arrays, BackendArrays anywhere, and the
        constants of a bound program (made before a compiled call traces it)."""
        if isinstance(value, BoundProgram):
            return value.prepare()
        if isinstance(value, dtypes.DType):  # a dtype asked about (result_type's arguments)
            return self.dtype(value)
        if isinstance(value, Exported):  # another backend's array: it makes and exports it
            return producer(self, value.producer).exported(value)
        if isinstance(value, np.ndarray):
            return self.from_numpy(np.asarray(value), device)
        listed = isinstance(value, list) and any(isinstance(v, BackendArray) for v in value)
        if isinstance(value, tuple) or listed:  # concat's arrays (another list stays the caller's)
            keep = lambda v: isinstance(v, np.ndarray) and not isinstance(v, BackendArray)  # noqa: E731
            return type(value)(v if keep(v) else self.convert(v, device) for v in value)
        return value

    def outcome(self, result) -> Outcome:
        if result is None:  # TensorFlow's gradient of an input it cannot differentiate
            return Outcome()
        if isinstance(result, dict):  # the inspection namespace's answers: named parts
            return Outcome(parts=[self.outcome(v) for v in result.values()], names=tuple(result))
        if isinstance(result, (list, tuple)) and not self.is_shape(result):
            return Outcome(parts=[self.outcome(r) for r in result])
        if self.is_shape(result):
            return Outcome(shape=tuple(int(v) for v in result))
        if type(result) in (bool, int, float, complex):  # bool(x), x.ndim: a Python number, not the backend's
            values = np.asarray(result)
            return Outcome(values=values, dtype=dtypes.name_of(values.dtype), shape=())
        name = self.dtype_name(result)
        if name is not None:  # result_type's answer, x.dtype: the dtype alone
            return Outcome(dtype=name)
        if hasattr(result, "bits") and not hasattr(result, "shape"):  # finfo's or iinfo's answer
            return self.fields_outcome(result)
        values = self.to_numpy(result)
        return Outcome(
            values=values,
            dtype=dtypes.name_of(values.dtype),
            shape=tuple(values.shape),
            device=self.device_of(result),
        )

    def dtype_name(self, value) -> str | None:
        """The canonical name of ``value`` where it is one of the backend's dtype objects, else None."""
        if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
            return dtypes.name_of(value)
        return None

    def fields_outcome(self, info) -> Outcome:
        """An object of the standard's finfo or iinfo (one with ``eps`` is finfo's) as its fields:
        ints and floats as the Python numbers the standard says they are, the dtype by its name;
        a field the object lacks is an AttributeError of its own."""
        parts = []
        names = FINFO_FIELDS if hasattr(info, "eps") else IINFO_FIELDS
        for name in names:
            try:
                value = getattr(info, name)
                if name == "dtype":  # a dtype object, or its name (torch's finfo)
                    named = str(value) if str(value) in dtypes.ALL else None
                    parts.append(Outcome(dtype=named or self.dtype_name(value) or dtypes.name_of(value)))
                    continue
                number = np.asarray(
                    int(value) if name == "bits" or not hasattr(info, "eps") else float(value)
                )
                parts.append(Outcome(values=number, dtype=number.dtype.name, shape=()))
            except Exception as error:
                parts.append(Outcome(error=error, error_category=self.classify(error)))
        return Outcome(parts=parts, names=names)

    def classify(self, error: BaseException) -> str:
        """A coarse, framework-neutral category for an exception."""
        message = str(error).lower()
        if isinstance(error, UnsupportedOperation):
            return "unsupported"
        if (
            "converted to python scalars" in message
        ):  # int(x) of a larger array: NumPy's, torch's, JAX's words
            return "shape"
        if isinstance(error, IndexError) or (
            ("bounds" in message or "out of range" in message) and "ind" in message
        ):
            return "index"
        if (
            isinstance(error, (ZeroDivisionError, FloatingPointError))
            or "division by zero" in message
            or "zerodivision" in message
        ):
            return "arithmetic"
        if "axis" in message and ("out of bounds" in message or "out of range" in message):
            return "index"  # an axis beyond the rank: NumPy's AxisError is an IndexError
        if isinstance(error, OverflowError) or "out of bounds for" in message or "overflow" in message:
            return "overflow"
        if any(word in message for word in ("broadcast", "shape", "size of tensor", "dimension", "axis")):
            return "shape"
        if isinstance(error, (TypeError, NotImplementedError)) or any(
            phrase in message
            for phrase in ("not implemented for", "not in the list of allowed values", "dtype", "promot")
        ):
            return "dtype"
        if isinstance(error, ValueError):
            return "value"
        return "other"

    # -- interchange ---------------------------------------------------------------
    def exported(self, value: Exported):
        """This backend's array of ``value`` (eager, on its default device), laid out as
        ``value.layout`` says (its transpose, every second row of a larger array), as it
        hands it to another backend's from_dlpack: ``export_dlpack``'s object."""
        on = self.placement_on(self.reference_device)  # TensorFlow would place it on a plug-in device
        with self.context(), self.device_scope(on):
            array = self.made_for_export(value.base_values(), on)
            if value.layout == "transposed":
                array = self.transposed(array)
            elif value.layout == "sliced":
                array = array[::2, ...]  # every axis indexed: the standard's form
            after = value.before_and_after()[1]
            if after is None:
                return self.export_dlpack(array)
            return Written(self.export_dlpack(array), lambda: self.overwrite(array, after))

    writable_exports = False  # whether overwrite writes this backend's arrays (interchange's copy= checks)

    def overwrite(self, array, values: np.ndarray) -> None:
        """Write ``values`` into this backend's ``array`` in place (a view writes its base's memory)."""
        raise UnsupportedOperation(f"{self.id} cannot write its arrays in place")

    def made_for_export(self, values: np.ndarray, device: str | None):
        """This backend's array of ``values``, in memory of its own allocator (where it has one)."""
        return self.from_numpy(values, device)

    def transposed(self, array):
        """The array with its axes reversed, as a view where the backend has views."""
        return array.T

    def export_dlpack(self, array):
        """What this backend hands to a consumer's from_dlpack: by default the array itself,
        whose ``__dlpack__`` (copy=, max_version= as the consumer asks) is the backend's export."""
        return array

    # -- devices -------------------------------------------------------------------
    def devices(self) -> list[str]:
        """Every device the backend sees in this process."""
        return [self.reference_device]

    def device_of(self, value) -> str | None:
        return None

    def placement_on(self, device: str) -> str | None:
        """The ``device`` argument that computes on the reference ``device``: the
        device itself, or None where default placement puts values there anyway."""
        return device

    def device_scope(self, device: str | None):
        """A context manager in which operations run on ``device``."""
        return contextlib.nullcontext()

    def scope_source(self, device: str | None) -> str | None:
        """Reproducer line opening a block that runs on ``device`` (``device_scope``'s twin; None:
        the default device), or None where no block is needed."""
        return None

    def probe(self, device: str | None) -> str | None:
        """After a call on ``device`` (None: the backend's default device) raised: whether the
        device still computes. None where it does, or where no call can leave it unusable (a CPU);
        else what the probe (a synchronize and a tiny computation) raised. A CUDA device-side assert
        or launch failure leaves every later call of the process failing: the harness then ends
        the process, and the call is a crash (compat.harness.runner)."""
        return None

    def plugin_devices(self) -> list[str]:
        """Devices compat itself gives this backend (its reference plug-ins), checked by default."""
        return list(self.plugin.names) if self.plugin is not None else []


def probed(computation) -> str | None:
    """What ``computation`` (an adapter's probe of its device: a synchronize and a tiny
    computation) raised, as ``Type: first line``; None where it ran."""
    try:
        computation()
    except Exception as error:  # whatever the framework raises for a device it lost
        lines = str(error).strip().splitlines()
        return f"{type(error).__name__}: {lines[0] if lines else ''}"
    return None


@functools.cache
def installed(module: str) -> str:
    """What a module resolves to, without importing a framework: a module of compat by its
    source; another by its package's file, install time and distribution versions."""
    top = module.split(".")[0]
    if top == "compat":
        spec = importlib.util.find_spec(module)
        return (
            hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest() if spec and spec.origin else "missing"
        )
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        return "missing"
    versions = [importlib.metadata.version(name) for name in distributions().get(top, [])]
    return f"{module} in {spec.origin} ({os.stat(spec.origin).st_mtime_ns}) {versions}"


@functools.cache
def distributions() -> dict[str, list[str]]:
    """Top-level module -> the installed distributions that provide it (a scan of all, once)."""
    return importlib.metadata.packages_distributions()


def is_compat_function(value) -> bool:
    """A function compat wrote (decorated ones too: tf.function), whose source a reproducer pastes."""
    return isinstance(inspect.unwrap(value), types.FunctionType) and getattr(
        value, "__module__", ""
    ).startswith("compat.")


_PRODUCERS: dict[str, Adapter] = {}


def producer(consumer: Adapter, name: str) -> Adapter:
    """The adapter that makes an array of backend ``name`` for ``consumer`` to import: the
    consumer itself for its own name (a broken adapter exports its own way), else compat's
    built-in backend of that name in its first default config."""
    if name == consumer.name:
        return consumer
    if name not in _PRODUCERS:
        from compat.adapters import resolve  # the discovery module imports this one

        _PRODUCERS[name] = resolve(name)[0]
    return _PRODUCERS[name]
