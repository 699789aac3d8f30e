"""``python -m compat survey``: every spec under a fresh seed in report mode, then the report."""

from __future__ import annotations

import argparse
import secrets
import shlex
import subprocess
import sys

from compat.cli.common import shown_report
from compat.harness.plugin import DEFAULT_RESULTS
from compat.specs import DIRECTORY as SPECS
from compat.specs import report_options

HELP = (
    "explore: run every spec on the installed backends under a fresh seed and "
    "print the report (exit status 1 if it found a new divergence)"
)
DESCRIPTION = (
    "Run every spec against the installed backends with pytest -n auto in report mode "
    "(record everything, fail no spec) under a seed of its own (Hypothesis's dev "
    "profile: other examples each survey; the test command draws the same ones every "
    "run), then print the report. Exit status 1 if the run found a divergence the "
    "registry does not know. Extra arguments go to pytest."
)
PYTEST_ARGS = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="the Hypothesis seed (default: a new one, printed; the same seed draws the same examples)",
    )
    parser.add_argument(
        "--results",
        default=DEFAULT_RESULTS,
        metavar="DIR",
        help=f"where records go (default: {DEFAULT_RESULTS})",
    )
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )
    parser.add_argument("-n", "--workers", default="auto", help="pytest-xdist workers (default: auto)")


def run(args) -> int:
    extra = args.pytest_args
    seed = args.seed if args.seed is not None else secrets.randbelow(10**6)
    again = shlex.join(
        [
            "python",
            "-m",
            "compat",
            "survey",
            "--seed",
            str(seed),
            *(["--backends", args.backends] if args.backends else []),
            *extra,
        ]
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        SPECS,
        *report_options(args.results),
        "-n",
        args.workers,
        "--hypothesis-seed",
        str(seed),
    ]
    if not any(
        a.startswith("--hypothesis-profile") for a in extra
    ):  # a derandomized profile would ignore the seed
        command += ["--hypothesis-profile", "dev"]
    if args.backends:
        command += ["--backends", args.backends]
    print(f"compat survey: seed {seed} (the same examples again: {again})", flush=True)
    status = subprocess.call(command + extra)
    if status not in (0, 1):  # 1 would be a failing harness test; report what was recorded anyway
        return status
    reported, surveyed = shown_report(
        argparse.Namespace(results=args.results, format="text", run=None, registry=[], all=False)
    )
    new = {r.key for r in surveyed.divergences if r.status == "new"}
    if new:
        print(f"\ncompat survey: {len(new)} new divergence(s) under seed {seed} (again: {again})")
    return reported or status or (1 if new else 0)
