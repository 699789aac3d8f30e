"""The pytest plugin: options, the run's session in each process, devices,
supervision, and the summary.

Every spec that takes the ``xp`` fixture (``compat.harness.xp``) runs once per
selected backend (SciPy-style) and device. Records go to one file per process
under the run's directory; the controller (or the only process) describes the run
and prints the summary.
"""

from __future__ import annotations

import datetime
import fnmatch
import gc
import json
import os
import platform
import secrets
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, settings

from compat import adapters
from compat.adapters import AdapterError, patches
from compat.core.row import Row
from compat.harness import casualties, crossreplay, inflight, plan, supervision
from compat.harness.checker import Session, backend_info
from compat.harness.isolation import Isolation
from compat.harness.plan import (
    MODE_EXAMPLES,
    beside_once,
    fraction,
    gradient_reference,
    of_missing_backend,
    parse_device,
    sampled,
)
from compat.results import records, registry, report
from compat.results.records import RecordWriter, ResultsError, check_writable

pytest_plugins = ["compat.harness.xp"]

DEFAULT_RESULTS = "compat-results"

# The xp fixture deliberately spans all examples of a test; framework calls are
# slow the first time; the explain phase costs many calls per divergence.
PROFILE_SETTINGS = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)
# Parent: Hypothesis's own default profile. Without one, a profile inherits what is loaded when it is
# registered, and Hypothesis loads its derandomized "ci" profile wherever $CI is set: every seed of
# `compat detect` or `compat selftest` in a CI job would then draw the same examples.
HYPOTHESIS_DEFAULT = settings.get_profile("default")
settings.register_profile("dev", HYPOTHESIS_DEFAULT, max_examples=40, **PROFILE_SETTINGS)
settings.register_profile(
    "ci",
    HYPOTHESIS_DEFAULT,
    max_examples=40,
    derandomize=True,
    database=None,
    print_blob=True,
    **PROFILE_SETTINGS,
)
settings.register_profile("thorough", HYPOTHESIS_DEFAULT, max_examples=1000, **PROFILE_SETTINGS)
# python -m compat detect: the default profile's examples, seed by seed; no database (a failure
# found under one seed is not replayed under the next), no shrinking (it changes only the minimal example)
settings.register_profile(
    "detect",
    parent=settings.get_profile("dev"),
    database=None,
    phases=[p for p in settings.get_profile("dev").phases if p not in (Phase.reuse, Phase.shrink)],
)
# python -m compat selftest: detection, not minimal examples
settings.register_profile(
    "selftest",
    HYPOTHESIS_DEFAULT,
    max_examples=20,
    database=None,
    **{**PROFILE_SETTINGS, "phases": [Phase.explicit, Phase.generate]},
)


def pytest_addoption(parser):
    group = parser.getgroup("compat", "compat: cross-backend divergence checks")
    group.addoption(
        "--backends",
        default=None,
        metavar="LIST",
        help="comma-separated backends to check, e.g. torch,jax[x32],array-api:array_api_compat.torch (any "
        "Array API namespace module) (default: every registered backend: "
        f"{', '.join(dict.fromkeys([*adapters.registered(), *plan.EVERY_EXAMPLE, *plan.ON_A_SHARE]))}, some on a "
        "share of the examples, as the header says)",
    )
    group.addoption(
        "--adapter",
        action="append",
        default=[],
        metavar="MODULE:CLASS",
        help="also check this third-party adapter class (repeatable)",
    )
    group.addoption(
        "--compat-mode",
        choices=("strict", "report"),
        default="strict",
        help="strict: a new divergence fails its spec; report: record everything, fail nothing",
    )
    group.addoption(
        "--compat-results",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"directory for the divergence records (default: {DEFAULT_RESULTS})",
    )
    group.addoption(
        "--device",
        action="append",
        default=[],
        metavar="BACKEND:DEVICE",
        help="also run every spec on this device and compare it with the backend's reference device, "
        "e.g. tensorflow:APU:0, torch:apu:0, jax:cpu:1 (repeatable; default: compat's reference "
        "plug-in devices of the selected backends, built on first use; 'none' for none)",
    )
    group.addoption(
        "--only-devices",
        action="store_true",
        help="run the specs on the devices under test only, not on the backends' default devices",
    )
    group.addoption(
        "--device-examples",
        type=fraction,
        default=None,
        metavar="FRACTION",
        help="share of each Hypothesis spec's max_examples (at least 3 per spec, over its params) and of "
        "each exhaustive table (at least 5 rows) that the device params check (default 0.2, or the "
        "share a plug-in declares: 0.05 for JAX's virtual cpu:1, whose kernels are cpu:0's; the "
        "default-device row explores values, the device row checks kernels; 1 with --only-devices)",
    )
    group.addoption(
        "--compat-fault",
        action="append",
        default=[],
        metavar="NAME",
        help="also run the device params with this plug-in fault switched on ('all': each fault of each "
        "plug-in that does not kill or stall its process; python -m compat selftest uses it); the "
        "fault's seed is --hypothesis-seed or 0",
    )
    group.addoption(
        "--modes",
        default="default",
        metavar="LIST",
        help="execution modes to check besides eager, on the first config of each backend, each "
        "compared with NumPy and with the backend's eager result: BACKEND:MODE items (jax:jit, "
        "tensorflow:function, tensorflow:xla, torch:compile, torch:inductor, torch:lazy), 'default' "
        "(each backend's default modes: jax:jit, tensorflow:function and xla, torch:compile and "
        "lazy; the default), 'all', or 'none'",
    )
    group.addoption(
        "--mode-examples",
        type=fraction,
        default=None,
        metavar="FRACTION",
        help=f"share of each spec's examples (at least 3 per spec, over its params) and exhaustive tables "
        f"(at least 5 rows) that the mode params check (default {MODE_EXAMPLES}; 1 with "
        f"--hypothesis-profile thorough)",
    )
    group.addoption(
        "--reference-device",
        action="append",
        default=[],
        metavar="BACKEND:DEVICE",
        help="what a backend's devices are compared with (default: its CPU, e.g. tensorflow:CPU:0)",
    )
    group.addoption(
        "--compat-registry",
        action="append",
        default=[],
        metavar="PATH",
        help="a known-divergence registry, a TOML file or a folder of them, whose entries add to compat's own "
        "(compat/results/known/; repeatable); 'none': not compat's own",
    )
    group.addoption(
        "--no-compat-patches",
        action="store_true",
        help="run the frameworks without compat's speed patches of their internals (each named, with "
        "why, in compat/adapters/patches.py; run.json lists those a run had): slower, the same records",
    )
    supervision.add_options(group)
    from compat.harness import examples as database

    group.addoption("--compat-examples", default=database.default_spec(), metavar="DB", help=database.HELP)


class CompatSession:
    """Per-process state: selected adapters, registry, records, run identity."""

    def __init__(self, config):
        self.config = config
        self.policy = config.getoption("compat_mode")  # strict or report (not an execution mode)
        self.results = Path(config.getoption("compat_results"))
        self.registry = registry.load(*registry.chosen(config.getoption("compat_registry")))
        self.plan = plan.make(config)  # the rows, their shares and families: the only place that decides them
        self.adapters = self.plan.adapters
        workerinput = getattr(config, "workerinput", None)
        if workerinput is None:  # in the process that runs the session or hands it to xdist workers
            for adapter in self.adapters:  # a mapping to nothing stops the run here, not as skipped specs
                adapter.check_operations()
        self.reference = adapters.load_adapter("numpy")
        self.gradient_reference = gradient_reference(self.adapters)
        self.seed = int(
            config.getoption("hypothesis_seed", None) or 0
        )  # of faults and of exhaustive-table samples
        self.reference_devices = dict(
            parse_device(item, self.adapters)
            for item in config.getoption("reference_device")
            if not of_missing_backend(item, self.plan.absent)
        )
        self.worker = workerinput["workerid"] if workerinput else "main"
        self.run_id = (
            workerinput["compat_run_id"]
            if workerinput
            else os.environ.get(supervision.SUPERVISED) or new_run_id()
        )
        self.run_directory = self.results / self.run_id
        self._writer: RecordWriter | None = None
        call_limit, memory_limit = supervision.limits(config)
        self.checkers = Session(
            self.reference,
            self.registry,
            self.gradient_reference,
            Isolation(call_limit, memory_limit),
            seed=self.seed,
        )
        self.progress: supervision.Progress | None = (
            None  # created by the first spec (or any test, supervised)
        )
        self.watchdog: inflight.Watchdog | None = None  # the xdist controller's
        self.closing: list[str] = []  # the summary's last lines (compat.harness.crossreplay)
        self.not_collected: list[str] = []  # what rows cannot run, by reason (compat.harness.xp)

    def write(self, record: records.Record) -> None:
        if self._writer is None:
            self._writer = RecordWriter(self.run_directory, self.worker)
        self._writer.write(record)

    def describe_run(self) -> dict:
        profile = profile_name(self.config)
        return {
            "run_id": self.run_id,
            "started": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "mode": self.policy,
            "backends": [backend_info(a).to_json() for a in self.adapters],
            "missing": {
                **self.plan.missing,
                **{str(Row.of(b, device=d)): why for (b, d), why in self.plan.unavailable.items()},
            },
            # what lets a device under test differ from its reference by contract (TF32 matmuls)
            "device_settings": {
                a.id: a.plugin.settings()
                for a in self.adapters
                if self.plan.devices.get(a.id) and a.plugin is not None
            },
            "reference": backend_info(self.reference).to_json(),
            "registry": [str(path) for path in self.registry.paths],
            "python": platform.python_version(),
            "platform": platform.platform(),
            "hypothesis": {
                "version": hypothesis.__version__,
                "profile": profile,
                "seed": self.config.getoption("hypothesis_seed", None),
            },
            "patches": patches.in_force(),
            "argv": sys.argv[1:],
        }


def new_run_id() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)


_SESSION = pytest.StashKey[CompatSession]()


def session_of(config) -> CompatSession:
    return config.stash[_SESSION]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "compat_table(name): the report table a spec's records feed (promotion-grid, invalid-indices)",
    )
    config.addinivalue_line(
        "markers",
        "compat_beside: an operation its spec checks beside those at full size: this param runs a share of "
        "the spec's examples, or of its exhaustive table (compat.harness.plan.BESIDE; not under thorough)",
    )
    config.addinivalue_line(
        "markers",
        "compat_sampled: one operation of an input class (compat.core.params.operation_classes): on a "
        "row that checks a share of the examples, the row's share of the class's operations run "
        "(compat.harness.plan.sampled; all of them on a row with a plug-in fault, and under thorough)",
    )
    config.addinivalue_line(
        "markers",
        "compat_least_examples(n): on a row that runs a share of the examples (a mode, a device), the "
        "spec's params check at least n examples in all (default 5)",
    )
    # pytest-xdist's mark, registered here too for runs without xdist; compat's scheduler honours it
    config.addinivalue_line(
        "markers", "xdist_group(name): under pytest-xdist, the group's tests run on one worker"
    )
    config.addinivalue_line(
        "markers", "slow: a test of many seconds; under pytest-xdist compat's scheduler starts it first"
    )
    if config.getoption("no_compat_patches"):  # the environment carries it to workers and isolated calls
        os.environ[patches.SWITCH] = "off"
    try:
        compat = CompatSession(config)
        check_writable(compat.results)
    except (AdapterError, registry.RegistryError, ResultsError) as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_SESSION] = compat
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile(default_profile(config))
    if config.getoption("compat_examples"):  # the chosen example database, with the profile's other settings
        from compat.harness.examples import ExamplesError, example_database

        try:
            examples = example_database(config.getoption("compat_examples"))
        except ExamplesError as error:
            raise pytest.UsageError(f"--compat-examples: {error}") from None
        # re-registered under its own name: Hypothesis's plugin may load --hypothesis-profile after this hook
        profile = profile_name(config)
        settings.register_profile(profile, parent=settings.get_profile(profile), database=examples)
        settings.load_profile(profile)
    prepare_devices(compat, config)
    compat.description = compat.describe_run()


def profile_name(config) -> str:
    """The run's Hypothesis profile: the option first, since Hypothesis's own plugin may load it
    after compat's hooks."""
    return config.getoption("hypothesis_profile", None) or settings.get_current_profile_name()


def default_profile(config) -> str:
    """The profile of a run that names none: ``ci``, the same examples every run (a test
    command must not fail on one day's draw); ``dev`` where ``--hypothesis-seed`` asks for
    other draws (a derandomized profile ignores the seed). Exploring is the survey's job."""
    return "dev" if config.getoption("hypothesis_seed", None) is not None else "ci"


def prepare_devices(compat: CompatSession, config) -> None:
    """Build the plug-ins the device params need (cached) and, in processes that
    run specs, load them before any framework starts. An xdist controller only
    builds, so that workers do not compile at once; devices named on the command
    line are checked to exist."""
    from compat.devices import DeviceBuildError

    runs_specs = hasattr(config, "workerinput") or not config.getoption("numprocesses", None)
    explicit = bool(config.getoption("device")) and config.getoption("device") != ["none"]
    # a named device to ask its framework about: a plug-in's own devices exist once it is built
    # (an xdist controller that loaded TensorFlow's plug-in to see APU:0 spent 3 s of CPU on it)
    asked = {
        adapter.id: [
            d for d in compat.plan.devices.get(adapter.id, ()) if d not in adapter.placement.plugin_devices()
        ]
        for adapter in compat.adapters
    }
    load = runs_specs or (explicit and any(asked.values()))
    with_devices = [  # those that check a plug-in device (a CUDA row needs no build)
        adapter
        for adapter in compat.adapters
        if set(compat.plan.devices.get(adapter.id, ())) & set(adapter.placement.plugin_devices())
    ]

    def prepare(adapter) -> DeviceBuildError | None:
        try:
            adapter.plugin.prepare(load=load)
        except DeviceBuildError as error:
            return error
        return None

    if load:  # in this thread: a framework loads its plug-ins where it starts
        failures = [prepare(adapter) for adapter in with_devices]
    else:  # a build is a compiler's process: the builds of a process that only builds run side by side
        with ThreadPoolExecutor(max_workers=max(len(with_devices), 1)) as pool:
            failures = list(pool.map(prepare, with_devices))
    for adapter, failure in zip(with_devices, failures):
        if failure is not None:
            plugins = adapter.placement.plugin_devices()
            wanted = compat.plan.devices[adapter.id]
            compat.plan.unavailable.update({(adapter.id, d): str(failure) for d in wanted if d in plugins})
    if not explicit or hasattr(config, "workerinput"):
        return
    for adapter in compat.adapters:  # a device named on the command line must exist (a CUDA row too)
        wanted = [d for d in asked[adapter.id] if (adapter.id, d) not in compat.plan.unavailable]
        seen = adapter.placement.devices() if wanted else []
        unknown = [d for d in wanted if d not in seen]
        if unknown:
            raise pytest.UsageError(f"{adapter.id} has no device {unknown[0]} (it sees: {', '.join(seen)})")


def pytest_sessionfinish(session):
    """Every process says it ended normally; the controller describes the run, then settles its wrappers."""
    config = session.config
    if _SESSION not in config.stash:
        return
    compat = session_of(config)
    if compat.progress is not None:
        compat.progress.close()
    if compat.watchdog is not None:
        compat.watchdog.stop()
    if hasattr(config, "workerinput"):
        return
    if compat.run_directory.exists():
        (compat.run_directory / "run.json").write_text(json.dumps(compat.description, indent=2))
        compat.closing, new = crossreplay.after_run(
            compat.run_directory, compat.registry.paths, compat.description["backends"]
        )
        if new and compat.policy == "strict":
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collect_file(file_path, parent):
    """compat's specs (compat/specs/[!_]*.py), wherever the package lives (a checkout or
    site-packages; by path, not as this plugin's own package: a checkout's specs are collected
    even where another compat is installed): their names (promotion.py, ...) match no
    python_files pattern, so pytest's own collector takes them only when named on the command
    line or when the project's python_files matches them; then not here."""
    if (
        file_path.suffix == ".py"
        and not file_path.name.startswith("_")
        and file_path.parts[-3:-1] == ("compat", "specs")
        and not parent.session.isinitpath(file_path)
        and not taken_by_pytest(file_path, parent.config.getini("python_files"))
    ):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def taken_by_pytest(path: Path, python_files: list[str]) -> bool:
    """Whether pytest's own collector takes ``path`` by the python_files patterns, matched as
    pytest matches them (a pattern without a separator against the file's name, one with a
    separator against the end of its path); pytest's function for it is private."""
    for pattern in python_files:
        if os.sep not in pattern:
            taken = fnmatch.fnmatch(path.name, pattern)
        else:
            taken = fnmatch.fnmatch(str(path), pattern if os.path.isabs(pattern) else f"*{os.sep}{pattern}")
        if taken:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """The registry's examples first (compat/specs/known.py): a run reproduces what is
    known before it explores. On a share row, an operation several specs check beside their
    own runs in one of them (``beside_once``), and a spec with a param per input class and
    operation checks the row's share of each class's operations (``sampled``)."""
    compat = config.stash.get(_SESSION, None)
    if compat is not None and compat.adapters:
        for deselect in (beside_once, sampled):
            kept, dropped = deselect(items, compat)
            if dropped:
                config.hook.pytest_deselected(items=dropped)
                items[:] = kept
    items.sort(
        key=lambda item: getattr(getattr(item, "module", None), "__name__", "") != "compat.specs.known"
    )


@pytest.hookimpl(tryfirst=True)  # before xdist sends the collection to the controller
def pytest_collection_finish(session):
    """An xdist worker of compat's scheduler tells it the groups and slow ones of its tests.
    A process that runs specs hides what it holds by now (the frameworks, the collected
    tests: alive until it ends) from the garbage collector, which otherwise walks all of
    it in each full collection, and at the end of the session, for nothing."""
    workerinput = getattr(session.config, "workerinput", {})
    if workerinput.get("compat_hints"):
        supervision.write_hints(
            session_of(session.config).run_directory, workerinput["workerid"], session.items
        )
    if any("xp" in getattr(item, "fixturenames", ()) for item in session.items):
        gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker writes under the controller's run id, and tells compat's
    scheduler the groups and slow ones of its tests."""
    node.workerinput["compat_run_id"] = session_of(node.config).run_id
    node.workerinput["compat_hints"] = node.config.getoption("dist") == "load"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return supervision.make_scheduler(config, log, session_of(config).run_directory)


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    """A worker died in ``crashitem``: compat's scheduler runs it again (isolated) once."""
    compat = session_of(sched.config)
    casualty = casualties.find(compat.run_directory, crashitem)
    if casualty is None:  # another --dist mode: no second run, but the casualty is counted
        casualties.file(compat.run_directory, crashitem, "the worker process died", None)
    elif casualty.attempts == 1:
        supervision.rerun_report(report)


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report, config):
    if report.outcome == "rerun":
        return "rerun", "R", ("RERUN", {"yellow": True})
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Without xdist, compat's supervisor runs the tests in a child process (supervision)."""
    if not supervision.wants_supervisor(config):
        return None
    results = Path(config.getoption("compat_results"))
    try:
        check_writable(results)
    except ResultsError as error:
        raise pytest.UsageError(str(error)) from None
    return supervision.supervise(config, results / new_run_id())


def pytest_sessionstart(session):
    """The xdist controller watches its workers' calls in flight."""
    config = session.config
    if (
        config.getoption("numprocesses", None)
        and not hasattr(config, "workerinput")
        and _SESSION in config.stash
    ):
        compat = session_of(config)
        compat.run_directory.mkdir(parents=True, exist_ok=True)
        compat.watchdog = inflight.Watchdog(compat.run_directory)
        compat.watchdog.start()


def pytest_report_header(config):
    compat = session_of(config)
    lines = [
        f"compat: {compat.policy} mode; registry: {compat.registry.path or 'none'}; records: {compat.run_directory}"
    ]
    return (
        lines + compat.plan.lines() + skipped_lines(compat) + [f"compat: examples: {examples_line(config)}"]
    )


def skipped_lines(compat: CompatSession) -> list[str]:
    """A line per backend not installed and device that cannot run, with the reason."""
    lines = [f"compat: skipping {spec}: {reason}" for spec, reason in compat.plan.missing.items()]
    return lines + [
        f"compat: skipping {Row.of(b, device=d)}: {why}" for (b, d), why in compat.plan.unavailable.items()
    ]


def examples_line(config) -> str:
    """Which examples this run draws, and how to draw them again or draw others."""
    profile = profile_name(config)
    seed = config.getoption("hypothesis_seed", None)
    if settings.get_profile(profile).derandomize:
        return (
            f"Hypothesis profile {profile!r}, derandomized: each spec's seed is a digest of its source, the same "
            f"examples every run (other draws: --hypothesis-seed N, or python -m compat survey)"
        )
    if seed is not None:
        return f"Hypothesis profile {profile!r}, seed {seed} (again: --hypothesis-seed {seed})"
    return f"Hypothesis profile {profile!r}, random draws (failing examples are saved; see --compat-examples)"


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput") or _SESSION not in config.stash:
        return
    compat = session_of(config)
    if not any(compat.run_directory.glob("records-*.jsonl")):  # no spec ran (harness tests only, ...)
        return
    try:
        text = report.terminal_summary(compat.run_directory, compat.registry)
    except ResultsError as error:
        text = f"compat: {error}"
    terminalreporter.write_sep("=", "compat divergence summary")
    terminalreporter.write_line(text)
    for line in compat.plan.lines()[1:] + skipped_lines(compat) + compat.not_collected + compat.closing:
        terminalreporter.write_line(line)
    if casualties.summary(compat.run_directory):
        terminalreporter.write_line(casualties.summary(compat.run_directory))
