"""The ``xp`` fixture: one param per backend, device and fault; the Checker a spec
talks to; and, when the spec ends, its records and its outcome (a new divergence
fails it in strict mode, known ones make it xfail, report mode fails nothing)."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from compat import adapters
from compat.adapters import patches
from compat.core.row import Row
from compat.harness import casualties, supervision
from compat.harness.checker import Checker, row_info
from compat.harness.found import unwrap
from compat.harness.plugin import session_of
from compat.results import records, report


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "compat_requires(op): the spec checks op (grad, to_device, ...): a row that declares op unsupported "
        "does not collect it, and the report counts it as not checked there (not_runnable)",
    )
    config.addinivalue_line(
        "markers",
        "compat_where(condition, otherwise): the spec runs on the rows where condition(row, adapter) holds; "
        "elsewhere its params are not collected, counted in the summary under otherwise",
    )


def pytest_generate_tests(metafunc):
    if "xp" not in metafunc.fixturenames:
        return
    compat = session_of(metafunc.config)
    if (
        "known_family" in metafunc.fixturenames
    ):  # compat/specs/known.py: the families the registry has examples of
        families = sorted({example.family for entry in compat.registry.entries for example in entry.examples})
        # a registry without examples: one family of none, not collected on any row (not_runnable)
        metafunc.parametrize("known_family", families or [""])
    params = []
    faults = metafunc.config.getoption("compat_fault")
    family = metafunc.module.__name__.rsplit(".", 1)[-1]
    for adapter in compat.adapters:
        modes = compat.plan.modes.get(adapter.id, [])
        # a share row outside its families is not collected (the header names its families once)
        if not metafunc.config.getoption("only_devices") and not compat.plan.outside(adapter, family):
            params += [param(Row.of(adapter.id, mode)) for mode in ["eager", *modes]]
        for device in compat.plan.devices.get(adapter.id, []):
            reason = compat.plan.unavailable.get((adapter.id, device))
            marks = [pytest.mark.skip(reason=f"{device}: {reason}")] if reason else []
            plugin = adapter.plugin
            # the plug-in's own devices also in the modes it names (tf.function on the APU)
            device_modes = ["eager"] + [
                m for m in modes if plugin is not None and device in plugin.names and m in plugin.modes
            ]
            known = {**plugin.faults, **plugin.fatal_faults} if plugin is not None else {}
            named = list(plugin.faults) if faults == ["all"] else [f for f in faults if f in known]
            for mode in device_modes:
                params += [param(Row.of(adapter.id, mode, device, f), marks) for f in [None, *named]]
    if not params:  # a backend that is not installed is a line of the header and summary, and a skip here
        params = [
            pytest.param(None, id=spec, marks=pytest.mark.skip(reason=reason))
            for spec, reason in compat.plan.missing.items()
        ]
    if not params:
        params = [pytest.param(None, id="no-backend", marks=pytest.mark.skip(reason="no backend selected"))]
    metafunc.parametrize("xp", params, indirect=True)


NO_EXAMPLE = "the known spec's replays of a family the registry has no example of for the row"
LACKS = "an operation the row declares unsupported: the report counts each as not checked"


def not_runnable(item, compat) -> tuple[str, str] | None:
    """Why a param cannot run on its row whatever it draws, and the operation it lacks if that is
    why; None where it can run: the known spec's (``known_family``) where the registry has no
    example of the family for the row and device (``Registry.examples_on``), a spec's whose
    ``compat_requires`` operation the row declares unsupported, or whose ``compat_where``
    condition the row does not meet."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    row = params.get("xp")
    if row is None:
        return None
    adapter = next(a for a in compat.adapters if a.id == row.backend_id)
    if "known_family" in params:
        if adapter.name == compat.reference.name:  # NumPy, the reference, replays nothing against itself
            return NO_EXAMPLE, ""
        info = row_info(adapter, row.fault, row.mode)
        found = compat.registry.examples_on(info, row.device, params["known_family"])
        return None if next(found, None) else (NO_EXAMPLE, "")
    for mark in item.iter_markers("compat_requires"):
        if adapter.unsupported(mark.args[0], row.mode) is not None:
            return LACKS, mark.args[0]
    for mark in item.iter_markers("compat_where"):
        condition, otherwise = mark.args
        if not condition(row, adapter):
            return otherwise, ""
    return None


@pytest.hookimpl(trylast=True)  # after -k and -m: the summary counts what would have run
def pytest_collection_modifyitems(config, items):
    """What a row cannot run is not collected (``not_runnable``), and said once in the summary, per
    reason and row; a param of an operation the row lacks still counts as not checked in the report:
    the first process of the run to collect writes its Checks record (each xdist worker collects the
    same items, and a supervised run's next child collects them again)."""
    compat = session_of(config)
    why = {id(item): reason for item in items if (reason := not_runnable(item, compat)) is not None}
    if not why:
        return
    dropped = [item for item in items if id(item) in why]
    lacked = [(item, why[id(item)][1]) for item in dropped if why[id(item)][0] == LACKS]
    if lacked and not config.option.collectonly and first_to_collect(compat.run_directory):
        for item, op in lacked:
            compat.write(lacking(item, compat, op))
    config.hook.pytest_deselected(items=dropped)
    items[:] = [item for item in items if id(item) not in why]
    counts = Counter((why[id(item)][0], str(item.callspec.params["xp"])) for item in dropped)
    compat.not_collected = not_collected_lines(counts)
    if hasattr(config, "workeroutput"):
        config.workeroutput["compat_not_collected"] = compat.not_collected


def pytest_report_collectionfinish(config, start_path, items):
    """Without xdist the lines follow pytest's 'collected N items' too (an xdist controller collects nothing)."""
    return session_of(config).not_collected


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's controller: a worker's lines of what was not collected (each worker's are the same)."""
    compat = session_of(node.config)
    compat.not_collected = compat.not_collected or getattr(node, "workeroutput", {}).get(
        "compat_not_collected", []
    )


def first_to_collect(run_directory: Path) -> bool:
    """Is this the run's first process to ask (its claim, a file in the run's folder)?"""
    run_directory.mkdir(parents=True, exist_ok=True)
    try:
        (run_directory / "not-collected.claimed").open("x").close()
    except FileExistsError:
        return False
    return True


def not_collected_lines(counts: Counter) -> list[str]:
    """A line per reason, the most params first: how many in all, and on which rows."""
    by_reason: dict[str, dict[str, int]] = {}
    for (reason, row), n in counts.items():
        by_reason.setdefault(reason, {})[row] = n
    return [
        f"compat: not collected ({reason}): {sum(rows.values())} params: "
        + ", ".join(f"{row} {n}" for row, n in sorted(rows.items()))
        for reason, rows in sorted(by_reason.items(), key=lambda item: -sum(item[1].values()))
    ]


def lacking(item, compat, op: str) -> records.Checks:
    """The Checks record of a param not collected for an operation its row lacks, as the spec
    would have written it on the first call it skipped (one case of ``op`` not checked)."""
    row: Row = item.callspec.params["xp"]
    adapter = next(a for a in compat.adapters if a.id == row.backend_id)
    return records.Checks(
        run_id=compat.run_id,
        worker=compat.worker,
        family=item.module.__name__.rsplit(".", 1)[-1],
        spec=item.nodeid,
        backend=row_info(adapter, row.fault, row.mode),
        device=row.device,
        reference=compat.reference.name,
        cases={},
        unsupported={op: adapter.unsupported(op, row.mode)},
        unsupported_cases={op: 1},
        tables=[mark.args[0] for mark in item.iter_markers("compat_table")],
        input_class=input_class(item),
    )


def builtin_backends(session_adapters) -> tuple[str, ...]:
    """compat's built-in backends among the session's adapters: the producers whose arrays every
    row imports (interchange), besides its own (a broken adapter's arrays go to itself only,
    so that its control row never meets its fault); not those whose arrays have no DLPack export
    (an adapter's ``Interchange.exports = False``: Dask's, a divergence of its own row)."""
    builtin = adapters.registered()
    return tuple(
        sorted(
            {
                a.name
                for a in session_adapters
                if builtin.get(a.name) == f"{type(a).__module__}:{type(a).__qualname__}"
                and a.interchange.exports
            }
        )
    )


def param(row: Row, marks=()):
    """An xp param: the row, its text as the pytest id (node ids name rows as records do)."""
    return pytest.param(row, id=str(row), marks=marks)


@pytest.fixture
def xp(request) -> Iterator[Checker]:
    """The backend under test, as a Checker: ``xp.check("add", x, y)``."""
    compat = session_of(request.config)
    row: Row = request.param
    adapter = next(a for a in compat.adapters if a.id == row.backend_id)
    device, fault, mode = row.device, row.fault, row.mode
    reference_device = compat.reference_devices.get(adapter.id) or compat.reference_devices.get(adapter.name)
    checker = Checker(
        adapter,
        request.module.__name__.rsplit(".", 1)[-1],
        request.node.nodeid,
        compat.checkers,
        device=device,
        reference_device=reference_device,
        mode=mode,
        share=compat.plan.share(adapter, device, mode),
        fault=fault,
        casualty=casualties.find(compat.run_directory, request.node.nodeid),
        table_share=table_share_of(request.node),
    )
    if compat.checkers.producers is None:
        compat.checkers.producers = builtin_backends(compat.adapters)
        compat.checkers.writable_producers = builtin_backends(
            [a for a in compat.adapters if a.interchange.writable]
        )
    if fault is None:
        yield checker
        return
    adapter.plugin.set_fault(fault, compat.seed)
    try:
        yield checker
    finally:
        adapter.plugin.set_fault(None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Tell whoever supervises this process which spec runs, and which finished."""
    compat = session_of(item.config)
    if compat.progress is None and ("xp" in getattr(item, "fixturenames", ()) or supervision.supervised()):
        compat.progress = supervision.Progress(compat.run_directory, compat.worker, item.config)
        compat.checkers.note = compat.progress.note
    if compat.progress is not None:
        compat.progress.started(item.nodeid)
    result = yield
    if compat.progress is not None:
        compat.progress.ended(item.nodeid)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    checker = pyfuncitem.funcargs.get("xp")
    if not isinstance(checker, Checker):
        return (yield)
    escaped = None
    # a plug-in's counters load it: only where its device is under test (a PrivateUse1 device
    # loaded beside CUDA becomes torch's accelerator, and every CUDA backward then fails)
    on_plugin = checker.device in checker.backend.placement.plugin_devices()
    if on_plugin:
        checker.backend.plugin.reset_kernel_counters()
    try:
        checker.replay(checker.casualty.case if checker.casualty is not None else None)
        with (
            examples_of_param(pyfuncitem),
            examples_share(
                pyfuncitem.obj, checker.share, params_on_row(pyfuncitem), least_examples(pyfuncitem)
            ),
            without_shrinking_hangs(pyfuncitem.obj, checker),
            patches.applied("hypothesis-digest-once"),
        ):
            yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # Hypothesis raises groups of our NewDivergence errors
        escaped = error
    found, others = unwrap(escaped)
    compat = session_of(pyfuncitem.config)
    common = dict(
        run_id=compat.run_id,
        worker=compat.worker,
        family=checker.ledger.family,
        spec=checker.spec,
        backend=checker.backend_info,
        device=checker.device,
        reference=checker.session.reference.name,
    )
    tables = [mark.args[0] for mark in pyfuncitem.iter_markers("compat_table")]  # what the spec feeds
    divergences = checker.ledger.records(found, common, tables)
    for record in divergences:
        compat.write(record)
    shadowing = checker.ledger.shadowing
    for entry, case, status in checker.ledger.replays:
        by = {"shadowed": shadowing, "overridden": checker.ledger.overriding}.get(status, {}).get(entry, [])
        compat.write(
            records.Replay(**common, op=case.op, known=entry, status=status, example=case.example(), by=by)
        )
    for table, row, value in checker.ledger.observations:
        compat.write(records.Observation(**common, table=table, row=row, value=value))
    counters = checker.backend.plugin.kernel_counters() if on_plugin else None
    if counters:  # which operations of this spec really ran on the plug-in (kernel coverage)
        compat.write(records.Coverage(**common, ops=counters))
    compat.write(
        records.Checks(
            **common,
            cases=dict(checker.ledger.cases),
            unsupported=dict(checker.ledger.unsupported),
            unsupported_cases=dict(checker.ledger.unsupported_cases),
            tables=tables,
            input_class=input_class(pyfuncitem),
            forms={
                op: {p: dict(k) for p, k in params.items()} for op, params in checker.ledger.forms.items()
            },
            facts=checker.ledger.facts,
        )
    )
    if others:
        raise escaped
    new = [r for r in divergences if r.status == "new"]
    if new and compat.policy == "strict":
        pytest.fail(report.new_divergences_message(new), pytrace=False)
    if shadowing and compat.policy == "strict":  # the registry's order hides an entry: mend the registry
        pytest.fail(
            "\n".join(
                f"registry: the example of {entry} is matched by {', '.join(by)} first: narrow one of them"
                for entry, by in sorted(shadowing.items())
            ),
            pytrace=False,
        )
    known = sorted({r.known for r in divergences if r.known})
    standard = sum(r.status == "standard" for r in divergences)
    departs = sum(r.status == "departs" for r in divergences)
    reasons = ["known divergences: " + ", ".join(known)] if known else []
    reasons += [f"{standard} follow the standard where NumPy does not"] if standard else []
    reasons += [f"{departs} depart from the standard as NumPy does"] if departs else []
    if reasons:
        pyfuncitem.stash[KNOWN] = "; ".join(reasons)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A spec that showed only known divergences is reported xfailed, as pytest.xfail()
    would make it, without the traceback pytest would format for the exception (about
    10 ms a spec, and a run has a thousand such)."""
    report = yield
    reason = item.stash.get(KNOWN, None)
    if call.when == "call" and report.passed and reason:
        report.outcome, report.wasxfail = "skipped", reason
    return report


def input_class(item) -> dict | None:
    """The input class this param of a spec covers (compat.core.params.input_classes), or None."""
    declared = getattr(item.obj, "compat_input_classes", None)
    if declared is None:
        return None
    name, classes = declared
    return {"name": name, "value": str(item.callspec.params[name]), "all": [str(c) for c in classes]}


_PARAMS_ON_ROW = pytest.StashKey[Counter]()
KNOWN = pytest.StashKey[str]()  # why a spec that showed only known (or standard) divergences is xfailed


def params_on_row(item) -> int:
    """How many params of this item's spec run on its row (one per operation, input
    class, ...): they share the least number of examples a row checks of a spec."""
    counts = item.config.stash.get(_PARAMS_ON_ROW, None)
    if counts is None:
        counts = item.config.stash[_PARAMS_ON_ROW] = Counter(spec_row(i) for i in item.session.items)
    return counts[spec_row(item)]


def spec_row(item) -> tuple | None:
    param = getattr(getattr(item, "callspec", None), "params", {}).get("xp")
    return (item.module.__name__, item.originalname, param) if param is not None else None


LEAST_EXAMPLES = (
    3  # a spec's examples over its params on a row that runs a share of them (one a param at most)
)


def least_examples(item) -> int:
    """The least examples a spec checks on a row that runs a share of them, over all its params
    there: 5, or what its compat_least_examples mark says (a family whose every call in a mode
    compiles anew, and whose eager rows check it in full)."""
    mark = item.get_closest_marker("compat_least_examples")
    return mark.args[0] if mark is not None else LEAST_EXAMPLES


@contextlib.contextmanager
def examples_share(test, share: float, params: int = 1, least: int = LEAST_EXAMPLES):
    """Run the Hypothesis test ``test`` with ``share`` of its max_examples, and with at least
    ``least`` examples over the ``params`` params of its spec on this row (at least 1 each)."""
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None or share >= 1 or not getattr(test, "is_hypothesis_test", False):
        yield
        return
    least = max(1, -(-min(least, current.max_examples) // params))
    fewer = max(least, round(current.max_examples * share))
    with patches.applied("hypothesis-settings-per-call", test, settings(current, max_examples=fewer)):
        yield


def table_share_of(item) -> float:
    """The share of its spec's examples and exhaustive table a param checks, besides its row's:
    the run plan's for an operation checked beside the spec's own (compat_beside), else 1."""
    return session_of(item.config).plan.beside(item)


@contextlib.contextmanager
def examples_of_param(item):
    """A param marked ``compat_beside`` (an operation a spec checks beside those it checks at
    full size: compat.core.params.operation_params) runs the run plan's share of the spec's
    examples (at least 1); under a full-size profile (thorough) all of them."""
    share = table_share_of(item)
    test = item.obj
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if share >= 1 or current is None:
        yield
        return
    fewer = max(1, round(current.max_examples * share))
    with patches.applied("hypothesis-settings-per-call", test, settings(current, max_examples=fewer)):
        yield


@contextlib.contextmanager
def without_shrinking_hangs(test, checker: Checker):
    """A spec that hung its process runs again with a quarter of its examples (at least
    5) and without shrinking: each example that still hangs costs seconds."""
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None or checker.casualty is None or checker.casualty.cause != "timeout":
        yield
        return
    fewer = settings(
        current,
        max_examples=max(min(5, current.max_examples), current.max_examples // 4),
        phases=[p for p in current.phases if p != Phase.shrink],
    )
    with patches.applied("hypothesis-settings-per-call", test, fewer):
        yield
