"""``python -m compat dashboard``: the static HTML dashboard of the store."""

from __future__ import annotations

import argparse
from pathlib import Path

from compat.cli.common import print_ingested
from compat.results import store
from compat.results.store import DEFAULT_STORE

HELP = "write the static HTML dashboard of the store"
DESCRIPTION = (
    "Write a static HTML dashboard (no network needed) of everything in the store: "
    "the divergence matrix with a page per divergence, promotion tables, survey "
    "tables, devices and kernel coverage, and history across runs. Open "
    "DIR/index.html in a browser."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", default=str(DEFAULT_STORE), metavar="FILE", help=f"the store (default: {DEFAULT_STORE})"
    )
    parser.add_argument(
        "--results",
        action="append",
        default=[],
        metavar="DIR",
        help="merge this results directory into the store first (repeatable)",
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="directory to write the dashboard into"
    )


def run(args) -> int:
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
