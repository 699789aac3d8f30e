"""compat's command line: ``python -m compat {survey,report,bench,merge,dashboard,devices,selftest,detect,ops,known}``."""

from __future__ import annotations

import argparse
import json
import secrets
import shlex
import subprocess
import sys
import time
from pathlib import Path

from compat import adapters
from compat.devices import DeviceBuildError
from compat.harness.plugin import DEFAULT_REGISTRY, DEFAULT_RESULTS
from compat.results import records, registry, store
from compat.results.store import DEFAULT_STORE
from compat.specs import DIRECTORY as SPECS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m compat", description="Cross-backend compatibility harness for array frameworks."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    survey = commands.add_parser(
        "survey",
        help="explore: run every spec on the installed backends under a fresh seed and "
        "print the report (exit status 1 if it found a new divergence)",
        description="Run every spec against the installed backends with pytest -n auto in report mode "
        "(record everything, fail no spec) under a seed of its own (Hypothesis's dev "
        "profile: other examples each survey; the test command draws the same ones every "
        "run), then print the report. Exit status 1 if the run found a divergence the "
        "registry does not know. Extra arguments go to pytest.",
    )
    survey.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="the Hypothesis seed (default: a new one, printed; the same seed draws the same examples)",
    )
    survey.add_argument(
        "--results",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"where records go (default: {DEFAULT_RESULTS})",
    )
    survey.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )
    survey.add_argument("-n", "--workers", default="auto", help="pytest-xdist workers (default: auto)")

    report = commands.add_parser(
        "report",
        help="print the divergence report of a results directory",
        description="Print the summary (backend x family: cases, new, known, stale), every new divergence, "
        "the known ones grouped by registry entry with its reason and source, and each "
        "backend's promotion differences from NumPy.",
    )
    report.add_argument(
        "results",
        nargs="?",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"results directory (default: {DEFAULT_RESULTS})",
    )
    report.add_argument("--format", choices=("text", "json"), default="text")
    report.add_argument("--run", default=None, metavar="ID", help="run id (default: the latest run in DIR)")
    report.add_argument(
        "--registry",
        default=None,
        metavar="FILE",
        help="registry for reasons and stale entries (default: the run's)",
    )
    report.add_argument(
        "--all", action="store_true", help="list every known divergence, not two examples per registry entry"
    )

    bench = commands.add_parser(
        "bench",
        help="examples per second per backend and family, and harness overhead",
        description="Run each family's specs per backend in one process, twice (cold: an empty JAX "
        "compilation cache; warm: the cache the first run filled), and print examples "
        "checked per second and the share of wall time spent outside framework calls.",
    )
    bench.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )

    merge = commands.add_parser(
        "merge",
        help="add the records of results directories to the store",
        description="Add every run under the given results directories (a run, the workers of a run, "
        "a tox matrix's .tox/results, CI artifacts) to the SQLite store, with each run's "
        "environment from its run.json. What the store holds already is not added again. "
        "Lines that are not records are listed and skipped (exit status 1).",
    )
    merge.add_argument("results", nargs="+", metavar="DIR", help="results directories to read")
    merge.add_argument(
        "--store", default=str(DEFAULT_STORE), metavar="FILE", help=f"the store (default: {DEFAULT_STORE})"
    )

    dashboard = commands.add_parser(
        "dashboard",
        help="write the static HTML dashboard of the store",
        description="Write a static HTML dashboard (no network needed) of everything in the store: "
        "the divergence matrix with a page per divergence, promotion tables, survey "
        "tables, devices and kernel coverage, and history across runs. Open "
        "DIR/index.html in a browser.",
    )
    dashboard.add_argument(
        "--store", default=str(DEFAULT_STORE), metavar="FILE", help=f"the store (default: {DEFAULT_STORE})"
    )
    dashboard.add_argument(
        "--results",
        action="append",
        default=[],
        metavar="DIR",
        help="merge this results directory into the store first (repeatable)",
    )
    dashboard.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="directory to write the dashboard into"
    )

    devices = commands.add_parser(
        "devices",
        help="build compat's reference plug-in devices, or list every device",
        description="build: compile compat's reference plug-ins for the installed frameworks "
        "(TensorFlow's APU, torch's apu; cached per framework version). "
        "list: every device each installed backend can see, the plug-ins included.",
    )
    devices.add_argument("action", choices=("build", "list"))
    devices.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )

    selftest = commands.add_parser(
        "selftest",
        help="switch each plug-in fault on in turn and check that the specs catch it",
        description="For every named fault of compat's reference plug-in devices, run the specs "
        "on the faulty device and print: fault, detected, by which spec, cases "
        "checked until the first divergence, seconds. Exit status 1 if a fault "
        "went undetected. Extra arguments go to pytest.",
    )
    selftest.add_argument(
        "--backends", default=None, metavar="LIST", help="tensorflow, torch (default: both, if installed)"
    )
    selftest.add_argument("--seed", type=int, default=0, help="fault and Hypothesis seed (default: 0)")
    selftest.add_argument(
        "-n",
        "--workers",
        default="auto",
        help="pytest-xdist workers of each device's run (default: auto; two runs at a time); "
        "0: each run one process, all runs at once",
    )

    detect = commands.add_parser(
        "detect",
        help="run deliberately broken adapters under N seeds and show which specs catch them",
        description="Run each fault of compat.adapters.broken (an adapter with one rule of NumPy's "
        "semantics broken) against the specs of its family under SEEDS seeds of the "
        "default Hypothesis profile (40 examples per spec), beside the backend it is "
        "built on as a control, and print per fault the share of seeds that caught it "
        "and the median examples until its first divergence. Exit status 1 if a fault "
        "was missed under some seed or a control showed a divergence. Extra arguments "
        "go to pytest (e.g. -k).",
    )
    detect.add_argument(
        "--seeds", type=positive, default=10, metavar="N", help="how many seeds (default: 10)"
    )
    detect.add_argument(
        "--first-seed",
        type=natural,
        default=0,
        metavar="S",
        help="the first seed (default: 0): seeds S..S+N-1",
    )
    detect.add_argument(
        "--faults",
        default=None,
        metavar="LIST",
        help="comma-separated faults: adapter names (broken_clamp), class names of compat.adapters.broken, "
        "or module:Class paths of your own with a family attribute (default: all whose framework is installed)",
    )
    detect.add_argument(
        "-j", "--jobs", type=positive, default=2, metavar="N", help="pytest runs at a time (default: 2)"
    )

    ops = commands.add_parser(
        "ops",
        help="print the table of operations and each installed backend's support",
        description="compat's table of operations (compat/core/ops.py): each operation's NumPy "
        "signature and facts, and for each installed backend whether its adapter maps "
        "it (yes) or declares it unsupported (no, with the reason below the table).",
    )
    ops.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )

    known = commands.add_parser(
        "known",
        help="registry entries and examples from a run's records",
        description="add: print a [[known]] stub for every new divergence of a run, with its "
        "minimal example (fill in reason and source, then append it to the registry). "
        "examples: print [[known.examples]] tables for an existing entry, from the "
        "divergences of a run that it matched (one per backend it showed on). Every "
        "run replays the registry's examples first and reports entries whose examples "
        "no longer diverge as fixed in that version.",
    )
    known.add_argument("action", choices=("add", "examples"))
    known.add_argument(
        "results",
        nargs="?",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"results directory (default: {DEFAULT_RESULTS})",
    )
    known.add_argument("--run", default=None, metavar="ID", help="run id (default: the latest run in DIR)")
    known.add_argument(
        "--backend", default=None, metavar="ID", help="add: only this backend id (or id@device)"
    )
    known.add_argument("--entry", default=None, metavar="ID", help="examples: the registry entry (required)")

    args, extra = parser.parse_known_args(argv)
    if extra and args.command not in ("survey", "selftest", "detect"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "survey":
            return survey_command(args, extra)
        if args.command == "report":
            return report_command(args)
        if args.command == "merge":
            return merge_command(args)
        if args.command == "dashboard":
            return dashboard_command(args)
        if args.command == "devices":
            return devices_command(args)
        if args.command == "ops":
            return ops_command(args)
        if args.command == "known":
            return known_command(args, parser)
        if args.command == "selftest":
            from compat.harness import selftest as selftest_module

            return selftest_module.main(args.backends, args.seed, args.workers, extra)
        if args.command == "detect":
            from compat.harness import detect as detect_module

            return detect_module.main(args.seeds, args.first_seed, args.faults, args.jobs, extra)
        from compat.harness import bench as bench_module

        return bench_module.main(args.backends)
    except (
        records.ResultsError,
        registry.RegistryError,
        store.StoreError,
        adapters.AdapterError,
        DeviceBuildError,
    ) as error:
        print(f"compat {args.command}: {error}", file=sys.stderr)
        return 2


def whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
    return value


def positive(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    return whole(text, 1)


def natural(text: str) -> int:
    """argparse type: a whole number of at least 0."""
    return whole(text, 0)


def devices_command(args) -> int:
    """Build every selected backend's plug-ins, or list what each backend sees (in a
    child process per backend: a framework must load its plug-ins before it starts)."""
    names = [n.strip() for n in args.backends.split(",")] if args.backends else list(adapters.BUILTIN)
    status = 0
    for name in names:
        try:
            adapter = adapters.resolve(name)[0]
        except adapters.BackendMissing as reason:
            print(f"{name}: skipped ({reason})")
            continue
        if args.action == "build":
            if not adapter.plugin_devices():
                continue
            start = time.perf_counter()
            adapter.plugin.prepare(load=False)
            print(
                f"{adapter.name}: {', '.join(adapter.plugin_devices())} ready in {time.perf_counter() - start:.1f} s (builds are cached)"
            )
            continue
        child = subprocess.run(
            [sys.executable, "-c", LIST_DEVICES, adapter.spec], capture_output=True, text=True
        )
        if child.returncode:
            lines = child.stderr.strip().splitlines()
            print(
                f"{adapter.name}: cannot list devices: {lines[-1] if lines else child.returncode}",
                file=sys.stderr,
            )
            status = 2
        else:
            print(child.stdout.rstrip())
    return status


LIST_DEVICES = """
import sys
from compat.adapters import load_adapter
from compat.devices import DeviceBuildError
adapter = load_adapter(sys.argv[1])
note = ""
try:
    if adapter.plugin is not None:
        adapter.plugin.prepare()
except DeviceBuildError as error:
    note = f"  (plug-ins not available: {error})"
plugins = set(adapter.plugin_devices())
shown = [d + (" (compat's reference plug-in)" if d in plugins else "") for d in adapter.devices()]
print(f"{adapter.name}: {', '.join(shown)}{note}")
"""


FACTS = ("elementwise", "accumulates", "correctly_rounded", "ulps", "index_arg", "moves_to", "transform")


def ops_command(args) -> int:
    from compat.core import ops
    from compat.harness.selection import select
    from compat.results.report import table

    chosen, missing, _ = select(args.backends, [])
    firsts = list({a.name: a for a in chosen}.values())  # configs map operations alike
    rows, reasons = [], []
    for op in ops.TABLE:
        facts = [
            f"{fact}={getattr(op, fact)}" if not isinstance(getattr(op, fact), bool) else fact
            for fact in FACTS
            if getattr(op, fact) not in (None, False)
        ]
        support = []
        for adapter in firsts:
            reason = adapter.unsupported(op.name)
            support.append("no" if reason else "yes")
            if reason:
                reasons.append(f"  {adapter.name} has no {op.name}: {reason}")
        rows.append([op.name + op.params, op.group, ", ".join(facts) or "-", *support])
    print(table(["operation", "group", "facts", *(a.name for a in firsts)], rows))
    if reasons:
        print("\nunsupported:\n" + "\n".join(reasons))
    for spec, reason in missing.items():
        print(f"{spec}: skipped ({reason})")
    return 0


def survey_command(args, extra: list[str]) -> int:
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    again = shlex.join(
        [
            "python",
            "-m",
            "compat",
            "survey",
            "--seed",
            str(seed),
            *(["--backends", args.backends] if args.backends else []),
            *extra,
        ]
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        SPECS,
        "-n",
        args.workers,
        "-q",
        "--compat-mode",
        "report",
        "--compat-results",
        args.results,
        "--hypothesis-seed",
        str(seed),
    ]
    if not any(
        a.startswith("--hypothesis-profile") for a in extra
    ):  # a derandomized profile would ignore the seed
        command += ["--hypothesis-profile", "dev"]
    if args.backends:
        command += ["--backends", args.backends]
    print(f"compat survey: seed {seed} (the same examples again: {again})", flush=True)
    status = subprocess.call(command + extra)
    if status not in (0, 1):  # 1 would be a failing harness test; report what was recorded anyway
        return status
    reported, run = shown_report(
        argparse.Namespace(results=args.results, format="text", run=None, registry=None, all=False)
    )
    new = {r.key for r in run.divergences if r.status == "new"}
    if new:
        print(f"\ncompat survey: {len(new)} new divergence(s) under seed {seed} (again: {again})")
    return reported or status or (1 if new else 0)


def chosen_run(args, command: str) -> tuple[records.Run, records.Loaded]:
    """The run ``--run`` names in the results directory, or its latest."""
    loaded = records.load(Path(args.results), run=args.run or "latest")
    for problem in loaded.problems:
        print(f"compat {command}: skipped {problem}", file=sys.stderr)
    run = loaded.runs.get(args.run) if args.run else loaded.latest()
    if run is None:
        raise records.ResultsError(
            f"no run {args.run!r} in {args.results}" if args.run else f"no records in {args.results}"
        )
    return run, loaded


def known_command(args, parser) -> int:
    from compat.results import entries

    if args.action == "examples" and not args.entry:
        parser.error("known examples: --entry ID is required")
    run, _ = chosen_run(args, "known")
    if args.action == "add":
        found = entries.new_divergences(run, args.backend)
        print(
            "\n\n".join(entries.entry_stub(r) for r in found)
            if found
            else f"# no new divergence in run {run.run_id}" + (f" of {args.backend}" if args.backend else "")
        )
        return 0
    chosen = entries.examples_of(run, args.entry)
    if not chosen:
        raise records.ResultsError(f"run {run.run_id} has no divergence that entry {args.entry!r} matched")
    print("\n\n".join(entries.example_toml(record, backends) for record, backends in chosen))
    return 0


def report_command(args) -> int:
    return shown_report(args)[0]


def shown_report(args) -> tuple[int, records.Run]:
    """Print the report of the run ``args`` choose; the exit status (1 where lines were skipped) and that run."""
    run, loaded = chosen_run(args, "report")
    registry_path = args.registry or run.meta.get("registry")
    if registry_path and not args.registry and not Path(registry_path).exists():
        print(
            f"compat report: the run's registry {registry_path} is gone; using the default", file=sys.stderr
        )
        registry_path = None
    if registry_path is None and DEFAULT_REGISTRY.exists():
        registry_path = DEFAULT_REGISTRY
    known = registry.load(registry_path)
    from compat.results import report

    if args.format == "json":
        print(json.dumps(report.json_report(run, known), indent=2))
    else:
        print(report.text_report(run, known, every=args.all))
    return (1 if loaded.problems else 0), run


SKIPPED_SHOWN = 100


def print_ingested(ingested: store.Ingested, store_path: str, command: str) -> int:
    """What a merge added, one line per run; skipped lines on stderr. Exit status 1 if any."""
    runs, described = set(ingested.runs), set(ingested.described)
    for run_id in sorted(runs | described | set(ingested.per_run)):
        added = ingested.per_run.get(run_id, 0)
        what = (["new run"] if run_id in runs else []) + (["its run.json"] if run_id in described else [])
        if added or what:
            print(f"  {run_id}: {', '.join(what + [f'{added} record(s)'])} added")
    print(
        f"{store_path}: added {len(runs)} run(s) and {ingested.records} record(s); read {ingested.lines} record line(s) "
        f"in {ingested.files} file(s), {ingested.lines - ingested.bad_lines - ingested.records} already in the store"
        + (
            f"; skipped {len(ingested.skipped)} line(s) or file(s) that are not records"
            if ingested.skipped
            else ""
        )
    )
    for problem in ingested.skipped[:SKIPPED_SHOWN]:
        print(f"compat {command}: skipped {problem}", file=sys.stderr)
    if len(ingested.skipped) > SKIPPED_SHOWN:
        print(
            f"compat {command}: ... and {len(ingested.skipped) - SKIPPED_SHOWN} more skipped", file=sys.stderr
        )
    return 1 if ingested.skipped else 0


def merge_command(args) -> int:
    return print_ingested(store.ingest(args.store, args.results), args.store, "merge")


def dashboard_command(args) -> int:
    from compat import dashboard

    status = 0
    if args.results:
        status = print_ingested(store.ingest(args.store, args.results), args.store, "dashboard")
    written = dashboard.render(args.store, Path(args.output))
    print(
        f"dashboard: {written.pages} page(s), {written.bytes / 1e6:.2f} MB in {args.output}; "
        f"open {Path(args.output) / 'index.html'}"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
