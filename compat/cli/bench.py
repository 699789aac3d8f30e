"""``python -m compat bench``: examples per second (compat.harness.bench measures)."""

from __future__ import annotations

import argparse

HELP = "examples per second per backend and family, and harness overhead"
DESCRIPTION = (
    "Run each family's specs per backend in one process, twice (cold: an empty JAX "
    "compilation cache; warm: the cache the first run filled), and print examples "
    "checked per second and the share of wall time spent outside framework calls."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )


def run(args) -> int:
    from compat.harness import bench

    return bench.main(args.backends)
