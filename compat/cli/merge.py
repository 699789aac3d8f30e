"""``python -m compat merge``: results directories into the SQLite store."""

from __future__ import annotations

import argparse

from compat.cli.common import print_ingested
from compat.results import store
from compat.results.store import DEFAULT_STORE

HELP = "add the records of results directories to the store"
DESCRIPTION = (
    "Add every run under the given results directories (a run, the workers of a run, "
    "a tox matrix's .tox/results, CI artifacts) to the SQLite store, with each run's "
    "environment from its run.json. What the store holds already is not added again. "
    "Lines that are not records are listed and skipped (exit status 1)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", nargs="+", metavar="DIR", help="results directories to read")
    parser.add_argument(
        "--store", default=str(DEFAULT_STORE), metavar="FILE", help=f"the store (default: {DEFAULT_STORE})"
    )


def run(args) -> int:
    return print_ingested(store.ingest(args.store, args.results), args.store, "merge")
