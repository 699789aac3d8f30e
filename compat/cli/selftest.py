"""``python -m compat selftest``: each plug-in fault must be caught (compat.harness.selftest runs them)."""

from __future__ import annotations

import argparse

HELP = "switch each plug-in fault on in turn and check that the specs catch it"
DESCRIPTION = (
    "For every named fault of compat's reference plug-in devices, run the specs "
    "on the faulty device and print: fault, detected, by which spec, cases "
    "checked until the first divergence, seconds. Exit status 1 if a fault "
    "went undetected. Extra arguments go to pytest."
)
PYTEST_ARGS = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="tensorflow, torch (default: both, if installed)"
    )
    parser.add_argument("--seed", type=int, default=0, help="fault and Hypothesis seed (default: 0)")
    parser.add_argument(
        "-n",
        "--workers",
        default="auto",
        help="pytest-xdist workers of each device's run (default: auto; two runs at a time); "
        "0: each run one process, all runs at once",
    )


def run(args) -> int:
    from compat.harness import selftest

    return selftest.main(args.backends, args.seed, args.workers, args.pytest_args)
