"""The Adapter: how compat talks to one backend.

An adapter is one small class per backend (einops-style). Its core calls an operation by its
NumPy name in a config and an execution mode, and says which operations, dtypes and modes the
backend has. Four parts do the rest, each the protocol of a module of its own with its defaults,
which a backend's module subclasses where it does otherwise:

- ``spelling`` (compat.adapters.spelling): the text a reproducer writes for the backend's arrays,
  dtypes, device scopes, settings and operations; the harness makes them by evaluating that text;
- ``values`` (compat.adapters.values): arguments in, results out as Outcomes, errors by category;
- ``placement`` (compat.adapters.placement): its devices, a value's device, a device's probe;
- ``interchange`` (compat.adapters.interchange): the arrays it hands to other backends.

It knows nothing of records, registries or specs; plug-in devices have their own protocol
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
import os
import types
import warnings
from pathlib import Path
from typing import Any, ClassVar

from compat.adapters import moved
from compat.adapters.declared import (
    AdapterError,
    Unsupported,
    UnsupportedOperation,
)
from compat.adapters.interchange import Interchange
from compat.adapters.placement import Placement
from compat.adapters.spelling import Spelling
from compat.adapters.tracing import traced_call
from compat.adapters.values import Values
from compat.core import cache, ops
from compat.core.outcome import Outcome

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


class Adapter:
    """Base class of the adapters; subclasses fill in the class attributes, and the parts they change."""

    name: ClassVar[str] = "base"
    requires: ClassVar[str] = "numpy"  # import name checked before use
    namespace: ClassVar[str] = "np"  # alias of the backend's NumPy-like module
    imports: ClassVar[dict[str, str]] = {"np": "numpy"}  # alias -> module, as reproducers import them
    OPS: ClassVar[dict[str, str | Unsupported]] = {}
    CONFIGS: ClassVar[dict[str, dict[str, Any]]] = {"": {}}  # label -> config
    DEFAULT_CONFIGS: ClassVar[tuple[str, ...]] = ("",)  # the configs a bare backend name selects
    # config label -> the spec families whose rules the config changes: the default run checks
    # those configs there, on a share of the examples (compat.harness.plan)
    CONFIG_FAMILIES: ClassVar[dict[str, tuple[str, ...]]] = {}
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
    # what the framework raises once a call left its device unusable (a CUDA device-side assert): the
    # words of its error's class or message, a regular expression; records of old runs are read by it
    # (compat.harness.rematch), a run itself probes the device (``placement.probe``)
    device_lost: ClassVar[str] = ""
    # its parts, each the protocol of a module of its own with the defaults: a backend's module
    # subclasses those it does otherwise and names its subclass here
    Spelling: ClassVar[type[Spelling]] = Spelling  # reproducers' text, which the harness evaluates
    Values: ClassVar[type[Values]] = Values  # arguments in, results out
    Placement: ClassVar[type[Placement]] = Placement  # devices
    Interchange: ClassVar[type[Interchange]] = Interchange  # arrays handed to other backends

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        moved.into_parts(cls)  # an older adapter's hooks, in the parts they moved to

    def __init__(self, label: str = "") -> None:
        if label not in self.CONFIGS:
            choices = ", ".join(f"{self.name}[{c}]" for c in self.CONFIGS if c) or self.name
            raise AdapterError(f"unknown config {label!r} for backend {self.name!r} (choose from {choices})")
        self.label = label
        self.selector = self.id  # how load_adapter finds this adapter again (set by resolve)
        self.config = dict(self.CONFIGS[label])
        self.spelling = self.Spelling(self)
        self.values = self.Values(self)
        self.placement = self.Placement(self)
        self.interchange = self.Interchange(self)
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
                    target = self.spelling.resolve(target)
                except AdapterError as error:
                    raise AdapterError(
                        f"adapter {self.id} maps operation {op!r} to {self.target(op)}, which does not "
                        f"exist ({error}): map it to {self.name}'s spelling in OPS or declare it "
                        f"unsupported(reason)"
                    ) from None
            self._functions[op] = target
        return self._functions[op]

    def check_operations(self) -> None:
        """Resolve every operation of compat's table: a mapping to something that does not
        exist stops the run here, with one line naming the adapter and the operation. A
        passed check is kept in compat's cache under what it depends on (``operations_key``):
        the process that only hands tests to xdist workers then imports no framework."""
        passed = cache.directory("operations") / operations_key(self)
        if passed.exists():
            return
        for op in ops.OPS:
            if self.unsupported(op) is None:
                self.function(op)
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs the check next time
            passed.parent.mkdir(parents=True, exist_ok=True)
            passed.touch()

    def preparation(self, op: str, args: tuple, kwargs: dict) -> types.FunctionType | None:
        """A function compat wrote that ``call`` passes the positional arguments of ``op``
        through before calling it (``op(*prepare(*args))``), or None. It is where an
        adapter supplies a rule its framework lacks for these arguments (the NumPy
        adapter: NEP 50 for bfloat16); reproducers show it and call it the same way."""
        return None

    # -- calling -------------------------------------------------------------------
    def call(
        self, op: str, args: tuple, kwargs: dict | None = None, device: str | None = None, mode: str = "eager"
    ) -> Outcome:
        """Run ``op(*args, **kwargs)`` (NumPy arrays and Python values) on ``device``, in
        an execution ``mode`` (one of MODES); an exception the backend raises, while it
        traces, compiles or runs, is an outcome like any other."""
        values = self.values
        try:
            with self.context(mode), self.placement.scope(device), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # numpy's "divide by zero" etc. are not results
                fn = self.function(op)
                backend_args = [values.convert(a, device) for a in args]
                prepare = self.preparation(op, args, kwargs or {})
                if prepare is not None:
                    backend_args = prepare(*backend_args)
                backend_kwargs = {
                    k: values.dtype(v) if k == "dtype" and v is not None else values.convert(v, device)
                    for k, v in (kwargs or {}).items()
                }  # arrays among them (searchsorted's sorter, diff's prepend) as backend arrays
                if mode == "eager":
                    return values.outcome(fn(*backend_args, **backend_kwargs))
                operands, traced = traced_call(fn, op, args, backend_args, backend_kwargs, kwargs or {})
                return values.outcome(self.compile(mode, traced)(*operands))
        except Exception as error:
            return values.error(error)

    def context(self, mode: str = "eager"):
        """A context manager around a call: the row's config in force (``spelling.setup``'s
        statements, run), and what an execution ``mode`` needs besides compiling."""
        return self.spelling.applied()

    def compile(self, mode: str, function):
        """``function`` (of the call's operands) as ``mode`` runs it: traced and compiled
        (jax.jit, tf.function, torch.compile) or recorded lazily; it is called once."""
        raise UnsupportedOperation(f"{self.id} has no execution mode {mode!r}")

    def isolate(self, op: str, args: tuple, mode: str = "eager", device: str | None = None) -> bool:
        """True for calls known to kill the interpreter (or its device), now and then or always
        (framework bugs): the harness runs those in a child process, where a death is a crash outcome."""
        return False

    def policy(self, name: str):
        """A context manager under which the backend's calls follow mixed-precision policy
        ``name`` (one of POLICIES), restoring what was in force before."""
        raise UnsupportedOperation(f"{self.id} has no mixed-precision policy {name!r}")


def operations_key(adapter: Adapter) -> str:
    """A digest of compat's table, an adapter's mappings and the installed modules they resolve
    against (compat's own by their source; a framework by its version and install)."""

    def named(target) -> str:
        if isinstance(target, Unsupported):
            return f"unsupported: {target.reason}"
        return target if isinstance(target, str) else f"{target.__module__}.{target.__qualname__}"

    parts = [
        f"{type(adapter).__module__}:{type(adapter).__qualname__}",
        *(f"{op} -> {named(adapter.target(op))}" for op in ops.OPS),
        *(f"{alias} = {installed(module)}" for alias, module in sorted(adapter.imports.items())),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


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
