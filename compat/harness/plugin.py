"""The pytest plugin: options, the ``xp`` fixture, records, and the summary.

Every spec that takes the ``xp`` fixture runs once per selected backend
(SciPy-style); ``xp`` is a Checker bound to that backend. When the spec
ends, its divergences are written as records, matched against the registry,
and turned into the test's outcome: a new divergence fails it in strict mode,
known ones make it xfail, and report mode fails nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import os
import platform
import re
import secrets
import sys
from pathlib import Path
from typing import Iterator

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, settings

from compat import adapters
from compat.results import registry
from compat.results import report
from compat.adapters import AdapterError, BackendMissing
from compat.harness.checker import Checker, backend_info, unwrap
from compat.harness.isolation import Isolation
from compat.results import records
from compat.results.records import RecordWriter, ResultsError, check_writable

DEFAULT_REGISTRY = Path(__file__).resolve().parents[2] / "fixtures" / "known-divergences.toml"
DEFAULT_RESULTS = "compat-results"
DEVICE_EXAMPLES = 0.2  # default share of examples for device params (--device-examples)

# The xp fixture deliberately spans all examples of a test; framework calls are
# slow the first time; the explain phase costs many calls per divergence.
PROFILE_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
               phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
settings.register_profile("dev", max_examples=40, **PROFILE_SETTINGS)
settings.register_profile("ci", max_examples=40, derandomize=True, database=None, print_blob=True, **PROFILE_SETTINGS)
settings.register_profile("thorough", max_examples=1000, **PROFILE_SETTINGS)
# python -m compat selftest: detection, not minimal examples
settings.register_profile("selftest", max_examples=20, database=None,
                          **{**PROFILE_SETTINGS, "phases": [Phase.explicit, Phase.generate]})


def pytest_addoption(parser):
    group = parser.getgroup("compat", "compat: cross-backend divergence checks")
    group.addoption("--backends", default=None, metavar="LIST",
                    help="comma-separated backends to check, e.g. torch,jax[x32] "
                         f"(default: every registered backend: {', '.join(adapters.registered())})")
    group.addoption("--adapter", action="append", default=[], metavar="MODULE:CLASS",
                    help="also check this third-party adapter class (repeatable)")
    group.addoption("--compat-mode", choices=("strict", "report"), default="strict",
                    help="strict: a new divergence fails its spec; report: record everything, fail nothing")
    group.addoption("--compat-results", default=DEFAULT_RESULTS, metavar="DIR",
                    help=f"directory for the divergence records (default: {DEFAULT_RESULTS})")
    group.addoption("--device", action="append", default=[], metavar="BACKEND:DEVICE",
                    help="also run every spec on this device and compare it with the backend's reference device, "
                         "e.g. tensorflow:APU:0, torch:apu:0, jax:cpu:1 (repeatable; default: compat's reference "
                         "plug-in devices of the selected backends, built on first use; 'none' for none)")
    group.addoption("--only-devices", action="store_true",
                    help="run the specs on the devices under test only, not on the backends' default devices")
    group.addoption("--device-examples", type=fraction, default=None, metavar="FRACTION",
                    help="share of each Hypothesis spec's max_examples (at least 5) and of each exhaustive table "
                         "that the device params check (default 0.2: the default-device row explores values, the "
                         "device row checks kernels; 1 with --only-devices)")
    group.addoption("--compat-fault", action="append", default=[], metavar="NAME",
                    help="also run the device params with this plug-in fault switched on ('all': each fault of each "
                         "plug-in; python -m compat selftest uses it); the fault's seed is --hypothesis-seed or 0")
    group.addoption("--reference-device", action="append", default=[], metavar="BACKEND:DEVICE",
                    help="what a backend's devices are compared with (default: its CPU, e.g. tensorflow:CPU:0)")
    group.addoption("--compat-registry", default=None, metavar="FILE",
                    help="known-divergence registry (default: fixtures/known-divergences.toml of this checkout)")
    from compat.harness import examples as database
    group.addoption("--compat-examples", default=database.default_spec(), metavar="DB", help=database.HELP)


class CompatSession:
    """Per-process state: selected adapters, registry, records, run identity."""

    def __init__(self, config):
        self.config = config
        self.mode = config.getoption("compat_mode")
        self.results = Path(config.getoption("compat_results"))
        registry_path = config.getoption("compat_registry") or (DEFAULT_REGISTRY if DEFAULT_REGISTRY.exists() else None)
        self.registry = registry.load(registry_path)
        self.adapters, self.missing, absent = select(config.getoption("backends"), config.getoption("adapter"))
        for adapter in self.adapters:  # a mapping to nothing stops the run here, not as skipped specs
            adapter.check_operations()
        self.reference = adapters.load_adapter("numpy")
        self.gradient_reference = gradient_reference(self.adapters)
        self.devices, self.unavailable = select_devices(self.adapters, config.getoption("device"), absent)
        self.seed = int(config.getoption("hypothesis_seed", None) or 0)  # of faults and of exhaustive-table samples
        only_devices = config.getoption("only_devices")
        self.device_share = config.getoption("device_examples") or (1.0 if only_devices else DEVICE_EXAMPLES)
        self.reference_devices = dict(parse_device(item, self.adapters) for item in config.getoption("reference_device")
                                      if not of_missing_backend(item, absent))
        workerinput = getattr(config, "workerinput", None)
        self.worker = workerinput["workerid"] if workerinput else "main"
        self.run_id = workerinput["compat_run_id"] if workerinput else new_run_id()
        self.run_directory = self.results / self.run_id
        self._writer: RecordWriter | None = None
        self.isolation = Isolation()

    def write(self, record: records.Record) -> None:
        if self._writer is None:
            self._writer = RecordWriter(self.run_directory, self.worker)
        self._writer.write(record)

    def describe_run(self) -> dict:
        # the option first: Hypothesis's own plugin may load the profile after this runs
        profile = self.config.getoption("hypothesis_profile", None) or settings.get_current_profile_name()
        return {
            "run_id": self.run_id,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "mode": self.mode,
            "backends": [backend_info(a).to_json() for a in self.adapters],
            "missing": self.missing,
            "reference": backend_info(self.reference).to_json(),
            "registry": str(self.registry.path) if self.registry.path else None,
            "python": platform.python_version(),
            "platform": platform.platform(),
            "hypothesis": {"version": hypothesis.__version__, "profile": profile,
                           "seed": self.config.getoption("hypothesis_seed", None)},
            "argv": sys.argv[1:],
        }


GRADIENT_REFERENCES = ("torch", "jax", "tensorflow")  # preferred order: torch's eager autodiff is the cheapest


def gradient_reference(chosen: list) -> adapters.Adapter | None:
    """The framework every other one's gradients are also compared with: the
    first of GRADIENT_REFERENCES that runs, in a config that keeps float64."""
    candidates = [a for a in chosen if a.unsupported("grad") is None and a.config.get("x64", True)]
    ranked = sorted(candidates, key=lambda a: GRADIENT_REFERENCES.index(a.name) if a.name in GRADIENT_REFERENCES else len(GRADIENT_REFERENCES))
    return ranked[0] if ranked else None


def parse_device(item: str, chosen: list) -> tuple[str, str]:
    """'tensorflow:APU:0' -> ('tensorflow', 'APU:0'), the backend being a selected adapter's name or id."""
    backend, _, device = item.partition(":")
    if not device or backend not in {a.name for a in chosen} | {a.id for a in chosen}:
        names = ", ".join(sorted({a.name for a in chosen})) or "none selected"
        raise AdapterError(f"--device/--reference-device {item!r} must be BACKEND:DEVICE with a selected backend ({names})")
    return backend, device


def of_missing_backend(item: str, absent: set[str]) -> bool:
    """A --device item of a backend that is not installed: its specs skip with the reason."""
    return item.partition(":")[0] in absent


def select_devices(chosen: list, requested: list[str], absent: set[str]) -> tuple[dict[str, list[str]], dict[tuple[str, str], str]]:
    """adapter id -> devices under test, and (adapter id, device) -> why it cannot run.

    By default each backend's reference plug-in devices (compat's APU, apu, a second
    JAX CPU device), on the first config of each backend only: devices are about
    kernels, not configs."""
    devices: dict[str, list[str]] = {}
    if requested == ["none"]:
        return devices, {}
    firsts = {}
    for adapter in chosen:
        firsts.setdefault(adapter.name, adapter)
    if requested:
        for item in requested:
            if of_missing_backend(item, absent):
                continue
            backend, device = parse_device(item, chosen)
            adapter = next(a for a in chosen if backend in (a.name, a.id))
            devices.setdefault(adapter.id, []).append(device)
    else:
        for adapter in firsts.values():
            if adapter.plugin_devices():
                devices[adapter.id] = adapter.plugin_devices()
    return devices, {}


def fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise ValueError(text)
    return value


@contextlib.contextmanager
def examples_share(test, share: float):
    """Run the Hypothesis test ``test`` with ``share`` of its max_examples (at least 5)."""
    # Hypothesis reads a test's settings from this attribute at each call; a
    # parametrized test is one function, so the change lasts for this call only.
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None or share >= 1 or not getattr(test, "is_hypothesis_test", False):
        yield
        return
    fewer = max(min(5, current.max_examples), round(current.max_examples * share))
    test._hypothesis_internal_use_settings = settings(current, max_examples=fewer)
    try:
        yield
    finally:
        test._hypothesis_internal_use_settings = current


def new_run_id() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)


def select(backends: str | None, adapter_paths: list[str]):
    """Adapters to run, {spec: reason} for backends that are not installed, and their names."""
    if backends is None:
        specs = [] if adapter_paths else list(adapters.registered())
    else:
        specs = [s.strip() for s in backends.split(",") if s.strip()]
    chosen, missing, absent = [], {}, set()
    for spec in specs + list(adapter_paths):
        try:
            chosen += adapters.resolve(spec)
        except BackendMissing as reason:
            missing[spec] = str(reason)
            absent.add(reason.backend)
    return chosen, missing, absent


_SESSION = pytest.StashKey[CompatSession]()


def session_of(config) -> CompatSession:
    return config.stash[_SESSION]


def pytest_configure(config):
    config.addinivalue_line("markers", "compat_table(name): the report table a spec's records feed "
                                       "(promotion-grid, invalid-indices)")
    try:
        compat = CompatSession(config)
        check_writable(compat.results)
    except (AdapterError, registry.RegistryError, ResultsError) as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_SESSION] = compat
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("ci" if os.environ.get("CI") else "dev")
    if config.getoption("compat_examples"):  # the chosen example database, with the profile's other settings
        from compat.harness.examples import ExamplesError, example_database
        try:
            examples = example_database(config.getoption("compat_examples"))
        except ExamplesError as error:
            raise pytest.UsageError(f"--compat-examples: {error}") from None
        # re-registered under its own name: Hypothesis's plugin may load --hypothesis-profile after this hook
        profile = config.getoption("hypothesis_profile", None) or settings.get_current_profile_name()
        settings.register_profile(profile, parent=settings.get_profile(profile), database=examples)
        settings.load_profile(profile)
    prepare_devices(compat, config)
    compat.description = compat.describe_run()


def prepare_devices(compat: CompatSession, config) -> None:
    """Build the plug-ins the device params need (cached) and, in processes that
    run specs, load them before any framework starts. An xdist controller only
    builds, so that workers do not compile at once; devices named on the command
    line are checked to exist."""
    from compat.devices import DeviceBuildError

    runs_specs = hasattr(config, "workerinput") or not config.getoption("numprocesses", None)
    explicit = bool(config.getoption("device")) and config.getoption("device") != ["none"]
    for adapter in compat.adapters:
        wanted = compat.devices.get(adapter.id)
        if not wanted:
            continue
        try:
            adapter.plugin.prepare(load=runs_specs or explicit)
        except DeviceBuildError as error:
            compat.unavailable.update({(adapter.id, d): str(error) for d in wanted})
            continue
        if explicit and not hasattr(config, "workerinput"):
            seen = adapter.devices()
            unknown = [d for d in wanted if d not in seen]
            if unknown:
                raise pytest.UsageError(f"{adapter.id} has no device {unknown[0]} (it sees: {', '.join(seen)})")


def pytest_sessionfinish(session):
    """The controller describes the run, once specs have written records into it."""
    config = session.config
    if hasattr(config, "workerinput") or _SESSION not in config.stash:
        return
    compat = session_of(config)
    if compat.run_directory.exists():
        (compat.run_directory / "run.json").write_text(json.dumps(compat.description, indent=2))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker writes under the controller's run id."""
    node.workerinput["compat_run_id"] = session_of(node.config).run_id


# the device in an xp param's id: "[jax[x64]@cpu:1-add]" (faulty devices, "@apu:0!fault", are left alone)
DEVICE_IN_ID = re.compile(r"@[A-Za-z]+:\d+(?=[-\]])")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's default distribution, except that a spec on a device goes to
    the worker that runs it without one: its reference-device side then reuses that
    worker's compiled code (JAX compiles every operation per dtype and shape)."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class DeviceTwinScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return DEVICE_IN_ID.sub("", nodeid)

    return DeviceTwinScheduling(config, log)


def pytest_report_header(config):
    compat = session_of(config)
    lines = [f"compat: {compat.mode} mode; backends: {', '.join(a.id for a in compat.adapters) or 'none'}; "
             f"registry: {compat.registry.path or 'none'}; records: {compat.run_directory}"]
    lines += [f"compat: skipping {spec}: {reason}" for spec, reason in compat.missing.items()]
    return lines


def pytest_generate_tests(metafunc):
    if "xp" not in metafunc.fixturenames:
        return
    compat = session_of(metafunc.config)
    params = []
    faults = metafunc.config.getoption("compat_fault")
    for adapter in compat.adapters:
        if not metafunc.config.getoption("only_devices"):
            params.append(pytest.param((adapter, None, None), id=adapter.id))
        for device in compat.devices.get(adapter.id, []):
            reason = compat.unavailable.get((adapter.id, device))
            marks = [pytest.mark.skip(reason=f"{device}: {reason}")] if reason else []
            params.append(pytest.param((adapter, device, None), id=f"{adapter.id}@{device}", marks=marks))
            known = adapter.plugin.faults if adapter.plugin is not None else {}
            named = list(known) if faults == ["all"] else [f for f in faults if f in known]
            params += [pytest.param((adapter, device, f), id=f"{adapter.id}@{device}!{f}", marks=marks) for f in named]
    params += [pytest.param(None, id=spec, marks=pytest.mark.skip(reason=reason)) for spec, reason in compat.missing.items()]
    if not params:
        params = [pytest.param(None, id="no-backend", marks=pytest.mark.skip(reason="no backend selected"))]
    metafunc.parametrize("xp", params, indirect=True)


@pytest.fixture
def xp(request) -> Iterator[Checker]:
    """The backend under test, as a Checker: ``xp.check("add", x, y)``."""
    compat = session_of(request.config)
    adapter, device, fault = request.param
    reference_device = compat.reference_devices.get(adapter.id) or compat.reference_devices.get(adapter.name)
    checker = Checker(adapter, compat.reference, request.module.__name__.rsplit(".", 1)[-1],
                      request.node.nodeid, compat.registry, device=device,
                      gradient_reference=compat.gradient_reference, reference_device=reference_device,
                      share=compat.device_share if device else 1.0, seed=compat.seed, isolation=compat.isolation)
    if fault is None:
        yield checker
        return
    checker.backend_info = dataclasses.replace(checker.backend_info, config={**checker.backend_info.config, "fault": fault})  # records say which
    adapter.plugin.set_fault(fault, compat.seed)
    try:
        yield checker
    finally:
        adapter.plugin.set_fault(None)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    checker = pyfuncitem.funcargs.get("xp")
    if not isinstance(checker, Checker):
        return (yield)
    escaped = None
    if checker.device is not None:
        checker.backend.plugin.reset_kernel_counters()
    try:
        with examples_share(pyfuncitem.obj, checker.share):
            yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # Hypothesis raises groups of our Divergence errors
        escaped = error
    found, others = unwrap(escaped)
    compat = session_of(pyfuncitem.config)
    common = dict(run_id=compat.run_id, worker=compat.worker, family=checker.family, spec=checker.spec,
                  backend=checker.backend_info, device=checker.device, reference=checker.reference_name)
    tables = [mark.args[0] for mark in pyfuncitem.iter_markers("compat_table")]  # what the spec feeds
    divergences = checker.records(found, common, tables)
    for record in divergences:
        compat.write(record)
    for table, row, value in checker.observations:
        compat.write(records.Observation(**common, table=table, row=row, value=value))
    counters = checker.backend.plugin.kernel_counters() if checker.device is not None else None
    if counters:  # which operations of this spec really ran on the plug-in (kernel coverage)
        compat.write(records.Coverage(**common, ops=counters))
    compat.write(records.Checks(**common, cases=dict(checker.cases), unsupported=dict(checker.unsupported), tables=tables))
    if others:
        raise escaped
    new = [r for r in divergences if r.status == "new"]
    if new and compat.mode == "strict":
        pytest.fail(report.new_divergences_message(new), pytrace=False)
    known = sorted({r.known for r in divergences if r.known})
    if known:
        pytest.xfail("known divergences: " + ", ".join(known))
    return None


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput") or _SESSION not in config.stash:
        return
    compat = session_of(config)
    if not compat.run_directory.exists():  # no spec ran (harness tests only, --collect-only, ...)
        return
    try:
        text = report.terminal_summary(compat.run_directory, compat.registry)
    except ResultsError as error:
        text = f"compat: {error}"
    terminalreporter.write_sep("=", "compat divergence summary")
    terminalreporter.write_line(text)
