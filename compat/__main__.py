"""compat's command line: ``python -m compat {survey,report,bench}``."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from compat import records, registry
from compat.plugin import DEFAULT_REGISTRY, DEFAULT_RESULTS
from compat.specs import DIRECTORY as SPECS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compat", description="Cross-backend compatibility harness for array frameworks.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    survey = commands.add_parser("survey", help="run every spec on the installed backends in report mode and print the report",
                                 description="Run every spec against the installed backends with pytest -n auto in report mode "
                                             "(record everything, fail nothing), then print the report. Extra arguments go to pytest.")
    survey.add_argument("--results", default=DEFAULT_RESULTS, metavar="DIR", help=f"where records go (default: {DEFAULT_RESULTS})")
    survey.add_argument("--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)")
    survey.add_argument("-n", "--workers", default="auto", help="pytest-xdist workers (default: auto)")

    report = commands.add_parser("report", help="print the divergence report of a results directory",
                                 description="Print the summary (backend x family: cases, new, known, stale), every new divergence, "
                                             "the known ones grouped by registry entry with its reason and source, and each "
                                             "backend's promotion differences from NumPy.")
    report.add_argument("results", nargs="?", default=DEFAULT_RESULTS, metavar="DIR", help=f"results directory (default: {DEFAULT_RESULTS})")
    report.add_argument("--format", choices=("text", "json"), default="text")
    report.add_argument("--run", default=None, metavar="ID", help="run id (default: the latest run in DIR)")
    report.add_argument("--registry", default=None, metavar="FILE", help="registry for reasons and stale entries (default: the run's)")
    report.add_argument("--all", action="store_true", help="list every known divergence, not two examples per registry entry")

    bench = commands.add_parser("bench", help="examples per second per backend and family, and harness overhead",
                                description="Run each family's specs per backend in one process and print examples checked per "
                                            "second and the share of wall time spent outside framework calls.")
    bench.add_argument("--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)")

    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "survey":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "survey":
            return survey_command(args, extra)
        if args.command == "report":
            return report_command(args)
        from compat import bench as bench_module

        return bench_module.main(args.backends)
    except (records.ResultsError, registry.RegistryError) as error:
        print(f"compat {args.command}: {error}", file=sys.stderr)
        return 2


def survey_command(args, extra: list[str]) -> int:
    command = [sys.executable, "-m", "pytest", SPECS, "-n", args.workers, "-q",
               "--compat-mode", "report", "--compat-results", args.results]
    if args.backends:
        command += ["--backends", args.backends]
    status = subprocess.call(command + extra)
    if status not in (0, 1):  # 1 would be a failing harness test; report what was recorded anyway
        return status
    return report_command(argparse.Namespace(results=args.results, format="text", run=None, registry=None, all=False)) or status


def report_command(args) -> int:
    loaded = records.load(Path(args.results))
    for problem in loaded.problems:
        print(f"compat report: skipped {problem}", file=sys.stderr)
    if args.run:
        run = loaded.runs.get(args.run)
        if run is None:
            print(f"compat report: no run {args.run!r} in {args.results}", file=sys.stderr)
            return 2
    else:
        run = loaded.latest()
        if run is None:
            print(f"compat report: no records in {args.results}", file=sys.stderr)
            return 2
    registry_path = args.registry or run.meta.get("registry")
    if registry_path and not args.registry and not Path(registry_path).exists():
        print(f"compat report: the run's registry {registry_path} is gone; using the default", file=sys.stderr)
        registry_path = None
    if registry_path is None and DEFAULT_REGISTRY.exists():
        registry_path = DEFAULT_REGISTRY
    known = registry.load(registry_path)
    from compat import report

    if args.format == "json":
        print(json.dumps(report.json_report(run, known), indent=2))
    else:
        print(report.text_report(run, known, every=args.all))
    return 1 if loaded.problems else 0


if __name__ == "__main__":
    sys.exit(main())
