"""What several commands share: the run a results directory holds, its report, what a
merge added, and argparse types."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from compat.harness.plugin import DEFAULT_RESULTS
from compat.results import records, registry, store

SKIPPED_SHOWN = 20  # problems listed one per line; the rest counted in one more


class UsageError(Exception):
    """Arguments argparse cannot judge alone: reported as argparse reports its own (exit status 2)."""


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


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The results directory and the run in it that ``chosen_run`` reads."""
    parser.add_argument(
        "results",
        nargs="?",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"results directory (default: {DEFAULT_RESULTS})",
    )
    parser.add_argument("--run", default=None, metavar="ID", help="run id (default: the latest run in DIR)")


def chosen_run(args, command: str) -> tuple[records.Run, records.Loaded]:
    """The run ``--run`` names in the results directory, or its latest."""
    loaded = records.load(Path(args.results), run=args.run or "latest")
    for problem in loaded.problems[:SKIPPED_SHOWN]:
        print(f"compat {command}: skipped {problem}", file=sys.stderr)
    if len(loaded.problems) > SKIPPED_SHOWN:
        print(
            f"compat {command}: ... and {len(loaded.problems) - SKIPPED_SHOWN} more skipped", file=sys.stderr
        )
    run = loaded.runs.get(args.run) if args.run else loaded.latest()
    if run is None:
        raise records.ResultsError(
            f"no run {args.run!r} in {args.results}" if args.run else f"no records in {args.results}"
        )
    return run, loaded


def shown_report(args) -> tuple[int, records.Run]:
    """Print the report of the run ``args`` choose; the exit status (1 where lines were skipped) and that run."""
    run, loaded = chosen_run(args, "report")
    rematching = getattr(args, "rematch", False)
    known = registry.load(*registries_of(run, args.registry, "report", todays=rematching))
    from compat.results import report

    notes = []
    if rematching:
        from compat.harness.rematch import rematch

        rematched = rematch(run, known)
        run, notes = rematched.run, rematched.lines()
    if args.format == "json":
        print(json.dumps(report.json_report(run, known), indent=2))
    else:
        print("\n".join([*notes, report.text_report(run, known, every=args.all)]))
    return (1 if loaded.problems else 0), run


def registries_of(run: records.Run, given: list[str], command: str, todays: bool = False) -> list[Path]:
    """The registries a command reads a run's records with: those ``given`` (adding to compat's own;
    'none': not it), else the run's own (those that still exist: one that is gone is said), or, where
    ``todays``, compat's own as it is now."""
    if given or todays:
        return registry.chosen(given)
    recorded = run.meta.get("registry")
    paths = [recorded] if isinstance(recorded, str) else list(recorded or [])  # a run of schema 4: one file
    kept = [Path(p) for p in paths if Path(p).exists()]
    for gone in sorted(set(paths) - {str(p) for p in kept}):
        print(f"compat {command}: the run's registry {gone} is gone; using compat's own", file=sys.stderr)
    return kept if kept and len(kept) == len(paths) else registry.chosen([])


def print_ingested(ingested: store.Ingested, store_path: str, command: str) -> int:
    """What a merge added, one line per run; skipped lines on stderr. Exit status 1 if any."""
    runs, described = set(ingested.runs), set(ingested.described)
    for run_id in sorted(runs | described | set(ingested.per_run)):
        added = ingested.per_run.get(run_id, 0)
        what = (["new run"] if run_id in runs else []) + (["its run.json"] if run_id in described else [])
        if added or what:
            print(f"  {run_id}: {', '.join(what + [f'{added} record(s)'])} added")
    print(
        f"{store_path}: added {len(runs)} run(s) and {ingested.records} record(s); "
        f"read {ingested.lines} record line(s) "
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
