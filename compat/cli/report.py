"""``python -m compat report``: the divergence report of a results directory."""

from __future__ import annotations

import argparse

from compat.cli.common import add_run_arguments, shown_report

HELP = "print the divergence report of a results directory"
DESCRIPTION = (
    "Print the summary (backend x family: cases, new, known, stale), every new divergence, "
    "the known ones grouped by registry entry with its reason and source, and each "
    "backend's promotion differences from NumPy."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_run_arguments(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--registry",
        action="append",
        default=[],
        metavar="PATH",
        help="a registry (a file or a folder) whose entries add to compat's own, for reasons and stale entries "
        "(repeatable; 'none': not compat's own; default: the run's)",
    )
    parser.add_argument(
        "--all", action="store_true", help="list every known divergence, not two examples per registry entry"
    )
    parser.add_argument(
        "--rematch",
        action="store_true",
        help="judge the records again by today's rules, device contracts and registry (compat's own and "
        "--registry), offline: a record of an old run or another machine's (a GPU's) gets the status "
        "it would get now; the records' files are left as they are",
    )


def run(args) -> int:
    return shown_report(args)[0]
