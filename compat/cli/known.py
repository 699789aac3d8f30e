"""``python -m compat known {add,examples,lint}``: registry entries and examples from a run's
records, and the registry's own checks."""

from __future__ import annotations

import argparse

from compat.cli.common import UsageError, add_run_arguments, chosen_run
from compat.results import records

HELP = "registry entries and examples from a run's records; the registry's checks"
DESCRIPTION = (
    "add: print a [[known]] stub for every new divergence of a run, with its "
    "minimal example (fill in reason and source, then add it to a registry file). "
    "examples: print [[known.examples]] tables for an existing entry, from the "
    "divergences of a run that it matched (one per backend it showed on). "
    "lint: check registries (--registry, repeatable: a file or a folder; default compat's own): "
    "files of at most 1,500 lines, an example for every entry (or why not), every example one of its "
    "entry's and matched by it first and by no other entry of its level; with --records DIR, no record "
    "of the runs there matched by two entries of one level, and none that a device's entry claims "
    "matched by an entry of every device too. Every run replays the registry's "
    "examples first and reports entries whose examples no longer diverge as fixed in that version, "
    "and fails where another entry matches an example first."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("add", "examples", "lint"))
    add_run_arguments(parser)
    parser.add_argument(
        "--registry",
        action="append",
        default=[],
        metavar="PATH",
        help="lint: a registry file or folder (repeatable; default: compat's own)",
    )
    parser.add_argument(
        "--records", default=None, metavar="DIR", help="lint: also check the records of the runs under DIR"
    )
    parser.add_argument(
        "--backend", default=None, metavar="ID", help="add: only this backend id (or id@device)"
    )
    parser.add_argument("--entry", default=None, metavar="ID", help="examples: the registry entry (required)")


def run(args) -> int:
    from compat.results import entries

    if args.action == "lint":
        from compat.harness.lint import main

        return main(args.registry, args.records)
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
