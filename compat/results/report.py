"""Reports built from records only (``compat.results.aggregate``): the summary table and how
much of the standard each row checked (``compat.results.coverage``), the divergence list,
registry entries fixed or not reproduced, the operations backends declare
unsupported, surveys, kernel coverage and each backend's promotion differences."""

from __future__ import annotations

from pathlib import Path

from compat.core.row import EAGER, Row
from compat.results import aggregate, causes, interchange_table, special_cases_table, wrapper_table
from compat.results import coverage as standard_coverage
from compat.results import records as records_module
from compat.results.records import Divergence, Run
from compat.results.registry import Registry


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in row] for row in [headers] + rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 or not c.replace(".", "").isdigit() else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_table(run: Run, registry: Registry) -> str:
    rows = aggregate.summary(run.checks, run.divergences)
    columns = ["backend", "family", "cases", "new", "known"]
    values = [[r.backend, r.family, r.cases, r.new, r.known] for r in rows]
    if any(r.standard for r in rows):  # differ from NumPy where NumPy departs from the standard
        columns.append("follows standard")
        values = [v + [r.standard] for v, r in zip(values, rows)]
    if any(r.departs for r in rows):  # depart from the standard where NumPy does, as NumPy does
        columns.append("departs, as NumPy does")
        values = [v + [r.departs] for v, r in zip(values, rows)]
    if any(r.contract for r in rows):  # differ, as the device's documented contract allows
        columns.append("within contract")
        values = [v + [r.contract] for v, r in zip(values, rows)]
    # devices under test and execution modes: their divergences from the reference device, or from eager, too
    targets = [Row.parse(r.backend) for r in rows]
    against = "/".join(
        name
        for name, found in (
            ("device", any(t.device for t in targets)),
            ("eager", any(t.mode != EAGER for t in targets)),
        )
        if found
    )
    if against:
        columns += [f"{against} new", f"{against} known"]
        values = [v + [r.device_new, r.device_known] for v, r in zip(values, rows)]
    if any(
        r.unsupported for r in rows
    ):  # operations a backend declares it does not have: counted, not checked
        columns.append("unsupported")
        values = [v + [len(r.unsupported)] for v, r in zip(values, rows)]
    text = table(columns, values)
    covered = standard_coverage.lines(standard_coverage.from_checks(run.checks))
    if covered:
        text += "\n\n" + "\n".join(covered)
    replayed = {(r.known, r.backend.id) for r in run.replays}
    if replayed:
        text += (
            f"\n\nregistry examples replayed: {len(run.replays)}, of {len({k for k, _ in replayed})} entries"
        )
    fixed, removed = fixed_and_removed(run, registry)
    if removed:
        text += (
            f"\nremoved by a wrapper: entries of the framework it wraps whose examples do not diverge on "
            f"the wrapper's row ({len(removed)})\n"
        ) + "\n".join(f"  {f.id} on {f.backend}" for f in removed)
    if fixed:
        text += (
            f"\nfixed: registry entries whose examples no longer diverge ({len(fixed)}; narrow their "
            "'versions' or remove them)\n"
        ) + "\n".join(f"  {f}" for f in fixed)
    stale = aggregate.stale(run, registry)
    if stale:
        text += (
            f"\n\nregistry entries without examples, not reproduced in this run ({len(stale)}): stale if a "
            "thorough run (--hypothesis-profile thorough) does not reproduce them either\n"
        )
        text += "\n".join(f"  {s.id} on {s.backend}" for s in stale)
    else:
        text += "\n\nstale registry entries: none"
    return text


def unsupported_lines(run: Run) -> list[str]:
    """row: operation or dtype (reason): cases not checked, for every operation and dtype a
    backend declared it has not: one line each (an operation's signatures together), however many
    specs met it."""
    found: dict[str, dict[str, tuple[str, int]]] = {}
    for record in run.checks:
        row = found.setdefault(record.where, {})
        for what, reason in record.unsupported.items():
            cases = row.get(what, (reason, 0))[1] + record.unsupported_cases.get(what, 0)
            row[what] = (reason, cases)
    return [
        f"  {where}: {what} ({reason})" + (f": {cases} cases not checked" if cases else "")
        for where, row in sorted(found.items())
        for what, reason, cases in aggregate.unsupported_by_operation(row)
    ]


UNSUPPORTED = "unsupported operations and dtypes (declared by the adapter; counted, not checked):"


def cause_lines(run: Run, shown: int | None = 2) -> list[str]:
    """The new divergences by cause (compat.results.causes): per row its causes and records, then
    each cause, largest first, with its records under it (``shown`` of them with their one line;
    None: every one, with its detail)."""
    groups = causes.by_cause(run.divergences, status="new")
    if not groups:
        return []
    counted = causes.per_row(groups)
    out = [
        f"new divergences by cause: {sum(c for c, _ in counted.values())} causes "
        f"({sum(len(g.records) for g in groups)} records)",
        *(f"  {where}: {n} new causes ({records} records)" for where, (n, records) in counted.items()),
    ]
    for group in groups:
        out.append(f"  {group.name} ({len(group.records)} records)")
        for record in group.records[:shown]:
            out.append("      " + one_line(record))
            if shown is None:
                out.append(f"          {record.detail}")
        if shown is not None and len(group.records) > shown:
            out.append(
                f"      ... {len(group.records) - shown} more (python -m compat report lists every one)"
            )
    return out


def contract_lines(run: Run) -> list[str]:
    """The differences a device's documented contract allows, by clause, with the rows."""
    by_clause: dict[str, dict[str, int]] = {}
    for record in aggregate.distinct(run.divergences):
        if record.status == "contract":
            rows = by_clause.setdefault(record.contract or "?", {})
            rows[record.where] = rows.get(record.where, 0) + 1
    if not by_clause:
        return []
    out = [f"within the device's contract ({sum(sum(r.values()) for r in by_clause.values())}), by clause:"]
    for clause, rows in sorted(by_clause.items(), key=lambda item: -sum(item[1].values())):
        out.append(f"  {clause}: " + ", ".join(f"{where} {n}" for where, n in sorted(rows.items())))
    return out


# survey tables of what the checker did not judge, and why (compat.harness.checker: lost, settled)
SET_ASIDE = {
    "reference lost": "references that crashed or hung (those cases judged against NumPy alone)",
    "unstable errors": "errors a second call did not raise again (the second call judged)",
}


def terminal_summary(run_directory: Path, registry: Registry) -> str:
    loaded = records_module.load(run_directory, validate=False)  # this run's own workers wrote the files
    run = loaded.latest()
    if run is None:
        return "compat: no records were written"
    text = summary_table(run, registry)
    if unsupported_lines(run):
        text += "\n\n" + "\n".join([UNSUPPORTED, *unsupported_lines(run)])
    for lines in (cause_lines(run), contract_lines(run)):
        text += "\n\n" + "\n".join(lines) if lines else ""
    for table_name, what in SET_ASIDE.items():
        cells = [r for r in run.observations if r.table == table_name]
        if cells:
            rows = sorted({f"{r.where}: {r.row}" for r in cells})
            text += (
                f"\n\n{what} ({len(rows)}; the survey table '{table_name}' of python -m compat report):\n"
                + "\n".join(f"  {row}" for row in rows[:10])
                + (f"\n  ... {len(rows) - 10} more" if len(rows) > 10 else "")
            )
    for problem in loaded.problems:  # a line cut short by a process that died while writing it
        text += f"\n\nskipped {problem}"
    text += f"\n\nrecords: {run_directory} (python -m compat report {run_directory.parent})"
    return text


def one_line(record: Divergence) -> str:
    s = record.signature
    what = f"{s['expected']} -> {s['actual']}" if record.kind != "value" else record.detail
    known = f" [known: {record.known}]" if record.known else ""
    versus = f" vs {record.reference}" if record.reference != "numpy" else ""
    return (
        f"{record.where}{versus} {record.family} [{record.kind}] {record.op}({s['inputs']}): "
        f"{what}; e.g. {record.example['call']} (x{record.count}){known}"
    )


def new_divergences_message(new: list[Divergence]) -> str:
    lines = [f"{len(new)} new divergence(s) against {new[0].reference}:"]
    for record in new:
        lines.append("")
        lines.append(one_line(record))
        lines.append(f"  {record.detail}")
        lines.append(
            "  minimal example: "
            + record.example["call"]
            + "".join(f"\n    {name} = {source}" for name, source in record.example["inputs"].items())
        )
        lines.append("  reproducer:\n" + "\n".join("    " + line for line in record.reproducer.splitlines()))
    return "\n".join(lines)


def text_report(run: Run, registry: Registry, every: bool = False) -> str:
    """Summary, new divergences in full, known ones grouped by registry entry (every one
    of them with ``every``), unsupported operations, surveys, coverage, promotion tables."""
    meta = run.meta
    backends = ", ".join(b["id"] + " " + b["version"] for b in meta.get("backends", [])) or "?"
    out = [
        f"compat run {run.run_id}  started {meta.get('started', '?')}  mode {meta.get('mode', '?')}",
        f"backends: {backends}",
        *(f"skipped {row}: {why}" for row, why in (meta.get("missing") or {}).items()),
        "",
        summary_table(run, registry),
        "",
    ]
    merged = aggregate.distinct(run.divergences)
    out += cause_lines(run, shown=None) or ["new divergences: none"]
    if contract_lines(run):
        out += ["", *contract_lines(run)]
    entries = registry.by_id()
    known = sum(1 for r in merged if r.status == "known")
    out += ["", f"known divergences ({known}), by registry entry:"]
    for entry_id, group in aggregate.by_entry(run.divergences):
        entry = entries.get(entry_id)
        per_backend: dict[str, int] = {}
        for record in group:
            per_backend[record.backend.id] = per_backend.get(record.backend.id, 0) + 1
        out.append(f"  {entry_id} ({', '.join(f'{b} {n}' for b, n in sorted(per_backend.items()))})")
        if entry:
            out.append(f"      differs: {entry.differs}")
            out.append(f"      reason: {entry.reason}" + (f" ({entry.source})" if entry.source else ""))
            if entry.broad:
                out.append(f"      broad: {entry.broad}")
        out.append(f"      ops: {', '.join(sorted({r.op for r in group}))}")
        for record in group if every else group[:2]:
            out.append("      " + one_line(record))
        if not every and len(group) > 2:
            out.append(f"      ... {len(group) - 2} more (--all lists every divergence)")
    if unsupported_lines(run):
        out += ["", UNSUPPORTED, *unsupported_lines(run)]
    for name, found in aggregate.survey_tables(run.observations).items():
        out += [
            "",
            f"{name} (a survey: backend x case -> value)",
            table(
                ["case"] + found.columns,
                [[row] + [values.get(c, "-") for c in found.columns] for row, values in found.rows.items()],
            ),
        ]
    for device, ops in aggregate.kernel_coverage(run.coverage).items():
        on_device = sorted(op for op, c in ops.items() if c["device"])
        fell_back = sorted(op for op, c in ops.items() if c["fallback"] and not c["device"])
        out += [
            "",
            f"kernel coverage on {device}: {len(on_device)} ops ran on the device, "
            f"{len(fell_back)} only fell back to the CPU",
            "  on the device: " + (", ".join(f"{op} x{ops[op]['device']}" for op in on_device) or "none"),
        ]
        if fell_back:
            out.append("  CPU fallback: " + ", ".join(f"{op} x{ops[op]['fallback']}" for op in fell_back))
    out += class_coverage_lines(run)
    out += special_case_lines(run)
    out += interchange_lines(run)
    out += wrapper_lines(run)
    differences = aggregate.promotion_differences(run.divergences)
    if differences:
        out += ["", "promotion: result dtypes that differ from NumPy"]
        for backend, rows in differences.items():
            out += [
                "",
                f"{backend}:",
                table(
                    ["inputs", "numpy", backend, "ops"],
                    [[r.inputs, r.numpy, r.backend, ", ".join(r.ops)] for r in rows],
                ),
            ]
    return "\n".join(out)


def special_case_lines(run: Run) -> list[str]:
    """The standard's special cases x rows (compat.results.special_cases_table), then each clause
    a row does not agree with NumPy on."""
    headers, body = special_cases_table.rows_and_columns(run)
    if not body:
        return []
    return [
        "",
        "special cases of the standard (clauses per function x rows): = agrees with NumPy; std:n follows "
        "the standard where NumPy does not; known:n / new:n differs from NumPy and the standard; "
        "dep:n NumPy departs from the standard; - not checked",
        table(headers, body),
        "",
        "special cases that differ:",
        *special_cases_table.details(run),
    ]


def interchange_lines(run: Run) -> list[str]:
    """Producer x consumer rows of arrays moved through DLPack (compat.results.interchange_table)."""
    headers, body = interchange_table.rows_and_columns(run)
    if not body:
        return []
    return [
        "",
        "interchange (DLPack, every dtype x layout x copy=; producer x consuming row): = every crossing "
        "kept dtype, shape and every bit; known:n / new:n crossings that did not; - not checked",
        table(headers, body),
    ]


def wrapper_lines(run: Run) -> list[str]:
    """What each wrapper row changes against its framework's own row (compat.results.wrapper_table)."""
    body = wrapper_table.rows(run)
    if not body:
        return []
    return [
        "",
        "what the wrappers change (divergences from NumPy per family, op, kind and registry entry, where "
        "both rows checked the op): removed, the framework's own row shows it and the wrapper's does not; "
        "added, only the wrapper's shows it; each by replay of its examples on the row that lacks it; "
        "unconfirmed, one row shows it, the other drew no example that does, and no replay settles it",
        table(wrapper_table.HEADERS, body),
    ]


def class_coverage_lines(run: Run) -> list[str]:
    """Per spec run once per input class: the classes, and those a backend or device left
    without a checked case (a spec skipped there, or deselected)."""
    found = aggregate.input_classes(run.checks)
    if not found:
        return []
    out = ["", "input classes covered (specs run once per class of input):"]
    for coverage in found:
        missing = coverage.missing()
        where = len(coverage.covered)
        out.append(
            f"  {coverage.spec} by {coverage.name}: "
            + " | ".join(coverage.classes)
            + (f" - all, on {where} backend(s)/device(s)" if not missing else "")
        )
        out += [f"      not covered on {w}: {', '.join(classes)}" for w, classes in missing.items()]
    return out


def fixed_and_removed(run: Run, registry: Registry) -> tuple[list[aggregate.Fixed], list[aggregate.Fixed]]:
    """The run's entries whose replayed examples diverge no more: those fixed, and those a wrapper
    removes of the framework it wraps (not fixed: aggregate.removed_by_wrappers)."""
    fixed = aggregate.fixed(map(aggregate.replayed, run.replays))
    removed = aggregate.removed_by_wrappers(fixed, aggregate.wrapper_rows(run.replays), registry)
    return [f for f in fixed if f not in removed], removed


def json_report(run: Run, registry: Registry) -> dict:
    fixed, removed = fixed_and_removed(run, registry)
    return {
        "run": run.meta or {"run_id": run.run_id},
        "summary": [row.to_json() for row in aggregate.summary(run.checks, run.divergences)],
        "coverage": [c.to_json() for c in standard_coverage.from_checks(run.checks)],
        "stale": [vars(s) for s in aggregate.stale(run, registry)],
        "fixed": [vars(f) for f in fixed],
        "removed_by_wrappers": [vars(f) for f in removed],
        "wrappers": [c.to_json() for c in wrapper_table.changes(run)],
        "divergences": [r.to_json() for r in aggregate.distinct(run.divergences)],
        "promotion": {
            backend: [vars(r) | {"ops": list(r.ops)} for r in rows]
            for backend, rows in aggregate.promotion_differences(run.divergences).items()
        },
        "input_classes": [
            {
                "spec": c.spec,
                "name": c.name,
                "classes": c.classes,
                "covered": {where: sorted(got) for where, got in c.covered.items()},
            }
            for c in aggregate.input_classes(run.checks)
        ],
        "surveys": {
            name: {"backends": t.columns, "rows": t.rows}
            for name, t in aggregate.survey_tables(run.observations).items()
        },
        "kernel_coverage": aggregate.kernel_coverage(run.coverage),
    }
