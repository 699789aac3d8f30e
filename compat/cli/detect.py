"""``python -m compat detect``: broken adapters under N seeds (compat.harness.detect runs them)."""

from __future__ import annotations

import argparse

from compat.cli.common import natural, positive

HELP = "run deliberately broken adapters under N seeds and show which specs catch them"
DESCRIPTION = (
    "Run each fault of compat.adapters.broken (an adapter with one rule of NumPy's "
    "semantics broken) against the specs of its family under SEEDS seeds of the "
    "default Hypothesis profile (40 examples per spec), beside the backend it is "
    "built on as a control, and print per fault the share of seeds that caught it "
    "and the median examples until its first divergence. Exit status 1 if a fault "
    "was missed under some seed or a control showed a divergence. Extra arguments "
    "go to pytest (e.g. -k)."
)
PYTEST_ARGS = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seeds", type=positive, default=10, metavar="N", help="how many seeds (default: 10)"
    )
    parser.add_argument(
        "--first-seed",
        type=natural,
        default=0,
        metavar="S",
        help="the first seed (default: 0): seeds S..S+N-1",
    )
    parser.add_argument(
        "--faults",
        default=None,
        metavar="LIST",
        help="comma-separated faults: adapter names (broken_clamp), class names of compat.adapters.broken, "
        "or module:Class paths of your own with a family attribute (default: all whose framework is installed)",
    )
    parser.add_argument(
        "-j", "--jobs", type=positive, default=2, metavar="N", help="pytest runs at a time (default: 2)"
    )


def run(args) -> int:
    from compat.harness import detect

    return detect.main(args.seeds, args.first_seed, args.faults, args.jobs, args.pytest_args)
