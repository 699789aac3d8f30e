"""``python -m compat bench``: examples per second (compat.harness.bench measures), or where the
test command's time goes (``--test-command``)."""

from __future__ import annotations

import argparse

HELP = "examples per second per backend and family, and harness overhead; or the test command's time"
DESCRIPTION = (
    "Run each family's specs per backend in one process, twice (cold: an empty JAX "
    "compilation cache; warm: the cache the first run filled), and print examples "
    "checked per second and the share of wall time spent outside framework calls. "
    "With --test-command: run the README's test command (pytest -n auto) once and print where "
    "its time went, per test file, per row and family (frameworks, compat's checker, the rest), "
    "the child processes its tests start, and the workers' start-up and collection."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )
    parser.add_argument(
        "--test-command",
        nargs=argparse.REMAINDER,
        metavar="PYTEST_ARGS",
        help="time the test command, with any pytest arguments after it (e.g. --test-command -m 'not slow'); "
        "$COMPAT_TIMING_DIR, if set, keeps the measurements",
    )


def run(args) -> int:
    from compat.harness import bench

    if args.test_command is not None:
        if args.backends:
            raise SystemExit(
                "compat bench: --backends and --test-command: pass --backends after --test-command"
            )
        return bench.test_command(args.test_command)
    return bench.main(args.backends)
