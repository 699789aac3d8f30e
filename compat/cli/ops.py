"""``python -m compat ops``: the table of operations and each installed backend's support, and
the coverage of the Array API standard per backend row."""

from __future__ import annotations

import argparse
import sys

from compat.cli.common import add_run_arguments

HELP = "print the table of operations, each installed backend's support, and the standard's coverage per row"
DESCRIPTION = (
    "compat's table of operations (compat/core/table/): each operation's NumPy signature and facts, and "
    "for each installed backend whether its adapter maps it (yes) or declares it unsupported (no, with the "
    "reason below the table). Then the Array API standard's 135 main-namespace functions and compat's "
    "operator forms, per backend row of the latest run in DIR (or --run): checked (the run judged a case "
    "of it there), unsupported (declared by the adapter, reasons below), mapped (mapped, but no case was "
    "judged there: no spec checks it, or the run left it out), or - (not in compat's table). Without a "
    "run, each installed backend's eager row and its default modes, mapped or unsupported. With --view "
    "parameters: each function of the standard (main namespace, linalg, fft, the array's methods) and each of "
    "its parameters, the kinds of value its signature admits (absent, None, a Python scalar of each kind, "
    "array, tuple, negative, each literal) and, per row of the run, the kinds some case checked there "
    "(all: every one it admits; -kind: one not checked; unsupported: the row's function does not take it); "
    "without a run, the kinds compat's calls of each function give it."
)
FACTS = ("elementwise", "accumulates", "correctly_rounded", "ulps", "index_arg", "moves_to", "transform")
VIEWS = ("all", "table", "coverage", "parameters")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backends", default=None, metavar="LIST", help="comma-separated backends (default: all installed)"
    )
    add_run_arguments(parser)
    parser.add_argument(
        "--view",
        choices=VIEWS,
        default="all",
        help="the table of operations, the standard's coverage per row, or both (default); parameters: "
        "the kinds of value each parameter of each function of the standard was checked with, per row",
    )


def run(args) -> int:
    from compat.harness.plan import select

    if args.view == "parameters":  # from the records and the signatures: no backend is loaded
        print_parameters(args)
        return 0
    plan = select(args.backends, [])
    chosen, missing = plan.adapters, plan.missing
    if args.view in ("all", "table"):
        print_table(list({a.name: a for a in chosen}.values()))  # configs map operations alike
    if args.view in ("all", "coverage"):
        if args.view == "all":
            print()
        print_coverage(chosen, args)
    for spec, reason in missing.items():
        print(f"{spec}: skipped ({reason})")
    return 0


def print_table(firsts) -> None:
    from compat.core import ops
    from compat.results.report import table

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


def latest_coverage(args) -> tuple[str | None, list]:
    """The run the coverage view reads (its id) and its rows' coverage; (None, []) without one."""
    from compat.results import coverage, records

    try:
        loaded = records.load(args.results, run=args.run or "latest", validate=False)
    except records.ResultsError as error:
        if args.run:
            raise
        print(f"compat ops: no run read ({error})", file=sys.stderr)
        return None, []
    run = loaded.runs.get(args.run) if args.run else loaded.latest()
    if run is None:
        if args.run:
            raise records.ResultsError(f"no run {args.run!r} in {args.results}")
        return None, []
    return run.run_id, coverage.from_checks(run.checks)


def print_coverage(chosen, args) -> None:
    from compat.core import standard
    from compat.core.row import Row
    from compat.results import coverage
    from compat.results.report import table

    run_id, found = latest_coverage(args)
    if not found:  # each installed backend's rows as a run would have them, nothing checked yet
        found = [coverage.Coverage(str(Row.of(a.id, m))) for a in chosen for m in ("eager", *a.DEFAULT_MODES)]
    adapters = {a.id: a for a in chosen}
    names = [*standard.FUNCTIONS, *coverage.operator_forms()]
    reasons: dict[str, str] = {}  # footnote text -> its mark
    grid = []
    for name in names:
        implemented = coverage.implementations(name)
        cells = []
        for row in found:
            cell, why = status(name, implemented, row, adapters.get(Row.parse(row.row).backend_id))
            if why:
                mark = reasons.setdefault(why, f"[{len(reasons) + 1}]")
                cell += mark
            cells.append(cell)
        section = standard.section(name) or coverage.OPERATOR
        grid.append([name, section, ", ".join(n for n in implemented if n != name) or "", *cells])
    source = f"run {run_id}" if run_id else "no run read: mapped or unsupported, nothing checked yet"
    print(f"the Array API standard {standard.VERSION} per row ({source}):")
    print(table(["function", "section", "compat's name", *(c.row for c in found)], grid))
    if reasons:
        print("\nunsupported:\n" + "\n".join(f"  {mark} {why}" for why, mark in reasons.items()))
    print()
    for column, row in enumerate(found, start=3):  # without a run: what each row maps
        functions, operators = (
            sum(line[column] == "mapped" for line in grid if (line[0] in standard.FUNCTIONS) == of_standard)
            for of_standard in (True, False)
        )
        done = f"{functions} of {len(standard.FUNCTIONS)} functions, {operators} operator forms mapped"
        print(f"{row.row}: {row.line() if run_id else done}")


def status(name: str, implemented: list[str], row, adapter) -> tuple[str, str | None]:
    """A function's cell on a row: checked, unsupported (and why), mapped (not checked), or -
    (not in compat's table)."""
    from compat.core.row import Row

    if name in row.checked:
        return "checked", None
    if not implemented:
        return "-", None
    mode = Row.parse(row.row).mode
    why = {
        op: row.unsupported.get(op) or (adapter.unsupported(op, mode) if adapter else None)
        for op in implemented
    }
    if all(why.values()):
        first = implemented[0]
        return "unsupported", f"{Row.parse(row.row).backend_id} has no {first}: {why[first]}"
    return "mapped", None


def print_parameters(args) -> None:
    """Per function of the standard and parameter: the kinds its signature admits, and per row of the
    latest run the kinds checked there (without a run: the kinds compat's calls of it give it)."""
    from compat.core import calls, signatures
    from compat.results import coverage, records
    from compat.results.report import table

    try:
        loaded = records.load(args.results, run=args.run or "latest", validate=False)
        run = loaded.runs.get(args.run) if args.run else loaded.latest()
    except records.ResultsError as error:
        if args.run:
            raise
        print(f"compat ops: no run read ({error})", file=sys.stderr)
        run = None
    found = coverage.parameters(run.checks) if run is not None else {}
    rows = sorted(found, key=lambda row: (not row.startswith("numpy"), row))
    made: dict[str, dict[str, set[str]]] = {}
    if not rows:  # what compat's calls give each parameter (compat.core.calls.forms)
        for name in calls.functions():
            for form in calls.forms(name):
                for parameter, kind in calls.kinds_of(form.op, form.args, form.kwargs):
                    made.setdefault(coverage.standard_name(name) or name, {}).setdefault(
                        parameter, set()
                    ).add(kind)
    body = []
    for name, signature in signatures.load().items():
        for parameter in signature.parameters:
            admits = parameter.kinds
            cells = [cell(admits, found[row].get(name), parameter.name) for row in rows] or [
                cell(admits, made.get(name), parameter.name)
            ]
            body.append([name, parameter.name, " ".join(admits), *cells])
    source = f"run {run.run_id}" if rows and run is not None else "no run read: the kinds compat's calls give"
    print(
        f"the parameters of the Array API standard {signatures_version()}, kinds checked per row ({source}):"
    )
    print(table(["function", "parameter", "admits", *(rows or ["compat's calls"])], body))


def signatures_version() -> str:
    from compat.core import standard

    return standard.VERSION


def cell(admits: tuple[str, ...], checked: dict[str, set[str]] | None, parameter: str) -> str:
    """A row's cell: all (every kind the parameter admits was checked), the kinds checked with -kind for
    each not checked, unsupported (the row's function takes no such keyword), or - (the function was
    not checked there)."""
    if checked is None:
        return "-"
    lacks = checked.get("(unsupported)", set())
    seen = checked.get(parameter, set())
    if (parameter in lacks or "*" in lacks) and not seen - {"absent"}:  # left out: the only way to call it
        return "unsupported"
    missing = [k for k in admits if k not in seen]
    if not missing:
        return "all"
    shown = [k for k in admits if k in seen] + [f"-{k}" for k in missing]
    return " ".join(shown)
