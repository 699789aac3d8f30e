"""``python -m compat known {add,examples}``: registry entries and examples from a run's records."""

from __future__ import annotations

import argparse

from compat.cli.common import UsageError, add_run_arguments, chosen_run
from compat.results import records

HELP = "registry entries and examples from a run's records"
DESCRIPTION = (
    "add: print a [[known]] stub for every new divergence of a run, with its "
    "minimal example (fill in reason and source, then append it to the registry). "
    "examples: print [[known.examples]] tables for an existing entry, from the "
    "divergences of a run that it matched (one per backend it showed on). Every "
    "run replays the registry's examples first and reports entries whose examples "
    "no longer diverge as fixed in that version."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("add", "examples"))
    add_run_arguments(parser)
    parser.add_argument(
        "--backend", default=None, metavar="ID", help="add: only this backend id (or id@device)"
    )
    parser.add_argument("--entry", default=None, metavar="ID", help="examples: the registry entry (required)")


def run(args) -> int:
    from compat.results import entries

    if args.action == "examples" and not args.entry:
        raise UsageError("known examples: --entry ID is required")
    chosen, _ = chosen_run(args, "known")
    if args.action == "add":
        found = entries.new_divergences(chosen, args.backend)
        print(
            "\n\n".join(entries.entry_stub(r) for r in found)
            if found
            else f"# no new divergence in run {chosen.run_id}"
            + (f" of {args.backend}" if args.backend else "")
        )
        return 0
    examples = entries.examples_of(chosen, args.entry)
    if not examples:
        raise records.ResultsError(f"run {chosen.run_id} has no divergence that entry {args.entry!r} matched")
    print("\n\n".join(entries.example_toml(record, backends) for record, backends in examples))
    return 0
