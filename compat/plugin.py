"""The pytest plugin: options, the ``xp`` fixture, records, and the summary.

Every spec that takes the ``xp`` fixture runs once per selected backend
(SciPy-style); ``xp`` is a Checker bound to that backend. When the spec
ends, its divergences are written as records, matched against the registry,
and turned into the test's outcome: a new divergence fails it in strict mode,
known ones make it xfail, and report mode fails nothing.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import secrets
import sys
from pathlib import Path

import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, settings

from compat import adapters, registry, report
from compat.adapters import AdapterError, BackendMissing
from compat.checker import Checker, backend_json, unwrap
from compat.records import RecordWriter, ResultsError, check_writable

DEFAULT_REGISTRY = Path(__file__).resolve().parent.parent / "fixtures" / "known-divergences.toml"
DEFAULT_RESULTS = "compat-results"

# The xp fixture deliberately spans all examples of a test; framework calls are
# slow the first time; the explain phase costs many calls per divergence.
_common = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
               phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink])
settings.register_profile("dev", max_examples=40, **_common)
settings.register_profile("ci", max_examples=40, derandomize=True, database=None, print_blob=True, **_common)
settings.register_profile("thorough", max_examples=1000, **_common)


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
    group.addoption("--compat-registry", default=None, metavar="FILE",
                    help="known-divergence registry (default: fixtures/known-divergences.toml of this checkout)")


class CompatSession:
    """Per-process state: selected adapters, registry, records, run identity."""

    def __init__(self, config):
        self.config = config
        self.mode = config.getoption("compat_mode")
        self.results = Path(config.getoption("compat_results"))
        registry_path = config.getoption("compat_registry") or (DEFAULT_REGISTRY if DEFAULT_REGISTRY.exists() else None)
        self.registry = registry.load(registry_path)
        self.adapters, self.missing = select(config.getoption("backends"), config.getoption("adapter"))
        self.reference = adapters.load_adapter("numpy")
        self.gradient_reference = gradient_reference(self.adapters)
        workerinput = getattr(config, "workerinput", None)
        self.worker = workerinput["workerid"] if workerinput else "main"
        self.run_id = workerinput["compat_run_id"] if workerinput else new_run_id()
        self.run_directory = self.results / self.run_id
        self._writer: RecordWriter | None = None

    def write(self, record: dict) -> None:
        if self._writer is None:
            self._writer = RecordWriter(self.run_directory, self.worker)
        self._writer.write(record)

    def describe_run(self) -> dict:
        profile = settings._current_profile  # noqa: SLF001 - Hypothesis keeps no public getter
        return {
            "run_id": self.run_id,
            "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "mode": self.mode,
            "backends": [backend_json(a) for a in self.adapters],
            "missing": self.missing,
            "reference": backend_json(self.reference),
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
    candidates = [a for a in chosen if "grad" in a.OPS and a.config.get("x64", True)]
    ranked = sorted(candidates, key=lambda a: GRADIENT_REFERENCES.index(a.name) if a.name in GRADIENT_REFERENCES else len(GRADIENT_REFERENCES))
    return ranked[0] if ranked else None


def new_run_id() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ-") + secrets.token_hex(3)


def select(backends: str | None, adapter_paths: list[str]):
    """Adapters to run and {spec: reason} for backends that are not installed."""
    if backends is None:
        specs = [] if adapter_paths else list(adapters.registered())
    else:
        specs = [s.strip() for s in backends.split(",") if s.strip()]
    chosen, missing = [], {}
    for spec in specs + list(adapter_paths):
        try:
            chosen += adapters.resolve(spec)
        except BackendMissing as reason:
            missing[spec] = str(reason)
    return chosen, missing


_SESSION = pytest.StashKey[CompatSession]()


def session_of(config) -> CompatSession:
    return config.stash[_SESSION]


def pytest_configure(config):
    try:
        compat = CompatSession(config)
        check_writable(compat.results)
    except (AdapterError, registry.RegistryError, ResultsError) as error:
        raise pytest.UsageError(str(error)) from None
    config.stash[_SESSION] = compat
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("ci" if os.environ.get("CI") else "dev")
    compat.description = compat.describe_run()


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
    params = [pytest.param(a, id=a.id) for a in compat.adapters]
    params += [pytest.param(None, id=spec, marks=pytest.mark.skip(reason=reason)) for spec, reason in compat.missing.items()]
    if not params:
        params = [pytest.param(None, id="no-backend", marks=pytest.mark.skip(reason="no backend selected"))]
    metafunc.parametrize("xp", params, indirect=True)


@pytest.fixture
def xp(request) -> Checker:
    """The backend under test, as a Checker: ``xp.check("add", x, y)``."""
    compat = session_of(request.config)
    return Checker(request.param, compat.reference, request.module.__name__.rsplit(".", 1)[-1],
                   request.node.nodeid, compat.registry, gradient_reference=compat.gradient_reference)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    checker = pyfuncitem.funcargs.get("xp")
    if not isinstance(checker, Checker):
        return (yield)
    escaped = None
    try:
        yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # Hypothesis raises groups of our Divergence errors
        escaped = error
    found, others = unwrap(escaped)
    compat = session_of(pyfuncitem.config)
    common = {"schema": 1, "run_id": compat.run_id, "worker": compat.worker, "family": checker.family,
              "spec": checker.spec, "backend": checker.backend_json,
              "device": checker.device, "reference": checker.reference_name}
    records = checker.records(found, common)
    for record in records:
        compat.write(record)
    for table, row, value in checker.observations:
        compat.write({**common, "record": "observation", "table": table, "row": row, "value": value})
    compat.write({**common, "record": "checks", "cases": dict(checker.cases)})
    if others:
        raise escaped
    new = [r for r in records if r["status"] == "new"]
    if new and compat.mode == "strict":
        pytest.fail(report.new_divergences_message(new), pytrace=False)
    known = sorted({r["known"] for r in records if r["known"]})
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
