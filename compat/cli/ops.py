"""``python -m compat ops``: the table of operations and each installed backend's support."""

from __future__ import annotations

import argparse

HELP = "print the table of operations and each installed backend's support"
DESCRIPTION = (
    "compat's table of operations (compat/core/table/): each operation's NumPy "
    "signature and facts, and for each installed backend whether its adapter maps "
    "it (yes) or declares it unsupported (no, with the reason below the table)."
)
FACTS = ("elementwise", "accumulates", "correctly_rounded", "ulps", "index_arg", "moves_to", "transform")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )


def run(args) -> int:
    from compat.core import ops
    from compat.harness.selection import select
    from compat.results.report import table

    chosen, missing, _ = select(args.backends, [])
    firsts = list({a.name: a for a in chosen}.values())  # configs map operations alike
    rows, reasons = [], []
    for op in ops.TABLE:
        facts = [
            f"{fact}={getattr(op, fact)}" if not isinstance(getattr(op, fact), bool) else fact
            for fact in FACTS
            if getattr(op, fact) not in (None, False)
        ]
        support = []
        for adapter in firsts:
            reason = adapter.unsupported(op.name)
            support.append("no" if reason else "yes")
            if reason:
                reasons.append(f"  {adapter.name} has no {op.name}: {reason}")
        rows.append([op.name + op.params, op.group, ", ".join(facts) or "-", *support])
    print(table(["operation", "group", "facts", *(a.name for a in firsts)], rows))
    if reasons:
        print("\nunsupported:\n" + "\n".join(reasons))
    for spec, reason in missing.items():
        print(f"{spec}: skipped ({reason})")
    return 0
