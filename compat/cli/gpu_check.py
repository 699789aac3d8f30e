"""``python -m compat gpu-check``: the specs on this machine's CUDA rows (compat.harness.gpucheck)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

HELP = "check this machine's GPU: the specs on the CUDA rows (torch, JAX, CuPy) within a time limit"
DESCRIPTION = (
    "Run the specs on the CUDA rows this machine has (torch@cuda:0 and jax[x64]@gpu:0 on a share of "
    "the examples, compared with NumPy and with their CPU; CuPy, compared with NumPy) and the "
    "self-test's control, side by side, in report mode, interrupted at the time limit; write the "
    "records and a summary (rows, cases, divergences new and known, cases per second per row) to DIR; "
    "then run each new cause's reproducer alone, in a fresh interpreter (DIR/reproducers). "
    "Installs nothing. Exit status 0 when it ran (divergences do not fail it), 2 on a machine "
    "without a CUDA device (nothing to check), 1 when no row checked a case."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        default="compat-gpu-check",
        metavar="DIR",
        help="records and summary (default: compat-gpu-check)",
    )
    parser.add_argument(
        "--minutes", type=float, default=7.0, help="the whole command's time limit (default: 7)"
    )
    parser.add_argument(
        "-n",
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="pytest-xdist workers, shared out over the runs (default: the CPU count)",
    )


def run(args) -> int:
    from compat.harness import gpucheck

    return gpucheck.main(Path(args.out), args.minutes, args.workers)
