"""Reports built from records only: the summary table, the divergence list,
stale registry entries, and each backend's promotion differences from NumPy."""

from __future__ import annotations

from collections import defaultdict
from fnmatch import fnmatchcase
from pathlib import Path

from compat.results import records as records_module
from compat.results.registry import Registry


def merge(divergences: list[dict]) -> list[dict]:
    """One entry per distinct divergence across specs and workers; counts add up."""
    merged: dict[tuple, dict] = {}
    for record in divergences:
        s = record["signature"]
        key = (record["backend"]["id"], record["device"], record["reference"], record["family"],
               record["op"], record["kind"], s["inputs"], s["expected"], s["actual"])
        if key in merged:
            merged[key]["count"] += record["count"]
        else:
            merged[key] = dict(record)
    return sorted(merged.values(), key=lambda r: (r["backend"]["id"], r["family"], r["op"], r["kind"], r["signature"]["inputs"]))


def where(record: dict) -> str:
    """'torch', or 'torch@apu:0' for a device under test."""
    return record["backend"]["id"] + (f"@{record['device']}" if record.get("device") else "")


def checked(run: records_module.Run) -> dict[tuple[str, str], int]:
    """(backend id[@device], family) -> cases checked."""
    cases: dict[tuple[str, str], int] = defaultdict(int)
    for record in run.checks:
        cases[(where(record), record["family"])] += sum(record["cases"].values())
    return cases


def summary(run: records_module.Run) -> list[dict]:
    """Per backend (and device) and family: cases, new and known divergences from NumPy
    (or the derivative, or the gradient reference framework), and, side by side, from
    the reference device ("device new", "device known")."""
    def empty(key, cases=0):
        return {"backend": key[0], "family": key[1], "cases": cases, "new": 0, "known": 0,
                "device new": 0, "device known": 0}
    rows: dict[tuple[str, str], dict] = {key: empty(key, cases) for key, cases in checked(run).items()}
    for record in merge(run.divergences):
        key = (where(record), record["family"])
        row = rows.setdefault(key, empty(key))
        row[("device " if record["reference"].startswith("device:") else "") + record["status"]] += 1
    return [rows[k] for k in sorted(rows)]


def stale(run: records_module.Run, registry: Registry) -> list[dict]:
    """Registry entries that concern what ran but matched no divergence.

    For exhaustive specs that means the divergence is gone; for Hypothesis
    specs it may also mean this run did not draw such a case, so the report
    calls them "not reproduced" and a thorough run settles it. The reference
    backend (NumPy against itself) cannot diverge and is left out."""
    backends = {r["backend"]["id"]: r["backend"] for r in run.checks if r["backend"]["name"] != r["reference"]}
    ops_checked = defaultdict(set)  # backend id -> {(family, op)}
    for record in run.checks:
        ops_checked[record["backend"]["id"]].update((record["family"], op) for op in record["cases"])
    used = {(r["known"], r["backend"]["id"]) for r in run.divergences if r["known"]}
    found = []
    for entry in registry.entries:
        for backend_id, backend in sorted(backends.items()):
            if (entry.id, backend_id) in used:
                continue
            if not entry.applies_to(backend["name"], backend_id, backend["version"], backend["config"]):
                continue
            families = entry.patterns.get("family", ("*",))
            ops = entry.patterns.get("op", ("*",))
            if any(any(fnmatchcase(f, g) for g in families) and any(fnmatchcase(o, g) for g in ops)
                   for f, o in ops_checked[backend_id]):
                found.append({"id": entry.id, "backend": backend_id, "differs": entry.differs})
    return found


def promotion_differences(run: records_module.Run) -> dict[str, list[dict]]:
    """backend id -> [{inputs, numpy, backend, ops}] for result dtypes that differ from NumPy."""
    groups: dict[str, dict[tuple, set]] = defaultdict(lambda: defaultdict(set))
    for record in merge(run.divergences):
        if record["family"] == "promotion" and record["kind"] == "dtype" and record["reference"] == "numpy":
            s = record["signature"]
            groups[record["backend"]["id"]][(s["inputs"], s["expected"], s["actual"])].add(record["op"])
    return {
        backend: [{"inputs": i, "numpy": e, "backend": a, "ops": sorted(ops)} for (i, e, a), ops in sorted(rows.items())]
        for backend, rows in sorted(groups.items())
    }


def survey_tables(run: records_module.Run) -> dict[str, dict]:
    """table name -> {"backends": [...], "rows": {row: {backend id: value}}} from observation records."""
    tables: dict[str, dict] = {}
    for record in run.others:
        if record["record"] != "observation":
            continue
        column = record["backend"]["id"] + (f" {record['device']}" if record.get("device") else "")
        found = tables.setdefault(record["table"], {"backends": [], "rows": {}})
        if column not in found["backends"]:
            found["backends"].append(column)
        found["rows"].setdefault(record["row"], {})[column] = record["value"]
    for found in tables.values():
        found["backends"].sort()
    return tables


def kernel_coverage(run: records_module.Run) -> dict[str, dict[str, dict[str, int]]]:
    """backend@device -> op -> {"device": launches on the plug-in, "fallback": launches that fell back to CPU}."""
    found: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: {"device": 0, "fallback": 0}))
    for record in run.others:
        if record["record"] == "coverage":
            for op, counts in record["ops"].items():
                for side in ("device", "fallback"):
                    found[where(record)][op][side] += counts[side]
    return {k: dict(v) for k, v in sorted(found.items())}


def table(headers: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in row] for row in [headers] + rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) if i == 0 or not c.replace(".", "").isdigit() else c.rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def summary_table(run: records_module.Run, registry: Registry) -> str:
    rows = summary(run)
    stale_entries = stale(run, registry)
    stale_counts = defaultdict(int)
    for s in stale_entries:
        stale_counts[s["backend"]] += 1
    columns = ["backend", "family", "cases", "new", "known"]
    if any("@" in r["backend"] for r in rows):  # devices under test: their divergences from the reference device too
        columns += ["device new", "device known"]
    text = table(columns, [[r[c] for c in columns] for r in rows])
    if stale_entries:
        text += (f"\n\nregistry entries not reproduced in this run ({len(stale_entries)}): stale if a thorough run "
                 "(--hypothesis-profile thorough) does not reproduce them either\n")
        text += "\n".join(f"  {s['id']} on {s['backend']}" for s in stale_entries)
    else:
        text += "\n\nstale registry entries: none"
    return text


def terminal_summary(run_directory: Path, registry: Registry) -> str:
    loaded = records_module.load(run_directory)
    run = loaded.latest()
    if run is None:
        return "compat: no records were written"
    text = summary_table(run, registry)
    new = [r for r in merge(run.divergences) if r["status"] == "new"]
    if new:
        text += f"\n\nnew divergences ({len(new)}):\n" + "\n".join("  " + one_line(r) for r in new)
    text += f"\n\nrecords: {run_directory} (python -m compat report {run_directory.parent})"
    return text


def one_line(record: dict) -> str:
    s = record["signature"]
    what = f"{s['expected']} -> {s['actual']}" if record["kind"] != "value" else record["detail"]
    known = f" [known: {record['known']}]" if record["known"] else ""
    versus = f" vs {record['reference']}" if record["reference"] != "numpy" else ""
    return (f"{where(record)}{versus} {record['family']} [{record['kind']}] {record['op']}({s['inputs']}): "
            f"{what}; e.g. {record['example']['call']} (x{record['count']}){known}")


def new_divergences_message(new: list[dict]) -> str:
    lines = [f"{len(new)} new divergence(s) against {new[0]['reference']}:"]
    for record in new:
        lines.append("")
        lines.append(one_line(record))
        lines.append(f"  {record['detail']}")
        lines.append("  minimal example: " + record["example"]["call"] + "".join(
            f"\n    {name} = {source}" for name, source in record["example"]["inputs"].items()))
        lines.append("  reproducer:\n" + "\n".join("    " + line for line in record["reproducer"].splitlines()))
    return "\n".join(lines)


def text_report(run: records_module.Run, registry: Registry, every: bool = False) -> str:
    """Summary, new divergences in full, known ones grouped by registry entry
    (every one of them with ``every``), then the promotion tables."""
    meta = run.meta
    backends = ", ".join(b["id"] + " " + b["version"] for b in meta.get("backends", [])) or "?"
    out = [f"compat run {run.run_id}  started {meta.get('started', '?')}  mode {meta.get('mode', '?')}",
           f"backends: {backends}", "", summary_table(run, registry), ""]
    merged = merge(run.divergences)
    new = [r for r in merged if r["status"] == "new"]
    out.append(f"new divergences ({len(new)}):")
    for record in new:
        out += ["  " + one_line(record), f"      {record['detail']}"]
    known = defaultdict(list)
    for record in merged:
        if record["known"]:
            known[record["known"]].append(record)
    entries = registry.by_id()
    out += ["", f"known divergences ({len(merged) - len(new)}), by registry entry:"]
    for entry_id, group in sorted(known.items(), key=lambda item: -len(item[1])):
        entry = entries.get(entry_id)
        per_backend = defaultdict(int)
        for record in group:
            per_backend[record["backend"]["id"]] += 1
        counts = ", ".join(f"{b} {n}" for b, n in sorted(per_backend.items()))
        out.append(f"  {entry_id} ({counts})")
        if entry:
            out.append(f"      differs: {entry.differs}")
            out.append(f"      reason: {entry.reason}" + (f" ({entry.source})" if entry.source else ""))
        out.append(f"      ops: {', '.join(sorted({r['op'] for r in group}))}")
        for record in group if every else group[:2]:
            out.append("      " + one_line(record))
        if not every and len(group) > 2:
            out.append(f"      ... {len(group) - 2} more (--all lists every divergence)")
    for name, found in survey_tables(run).items():
        out += ["", f"{name} (a survey: backend x case -> value)",
                table(["case"] + found["backends"], [[row] + [values.get(b, "-") for b in found["backends"]]
                                                    for row, values in found["rows"].items()])]
    for device, ops in kernel_coverage(run).items():
        on_device = sorted(op for op, c in ops.items() if c["device"])
        fell_back = sorted(op for op, c in ops.items() if c["fallback"] and not c["device"])
        out += ["", f"kernel coverage on {device}: {len(on_device)} ops ran on the device, {len(fell_back)} only fell back to the CPU",
                "  on the device: " + (", ".join(f"{op} x{ops[op]['device']}" for op in on_device) or "none")]
        if fell_back:
            out.append("  CPU fallback: " + ", ".join(f"{op} x{ops[op]['fallback']}" for op in fell_back))
    differences = promotion_differences(run)
    if differences:
        out += ["", "promotion: result dtypes that differ from NumPy"]
        for backend, rows in differences.items():
            out += ["", f"{backend}:", table(["inputs", "numpy", backend, "ops"],
                                             [[r["inputs"], r["numpy"], r["backend"], ", ".join(r["ops"])] for r in rows])]
    return "\n".join(out)


def json_report(run: records_module.Run, registry: Registry) -> dict:
    return {
        "run": run.meta or {"run_id": run.run_id},
        "summary": summary(run),
        "stale": stale(run, registry),
        "divergences": merge(run.divergences),
        "promotion": promotion_differences(run),
        "surveys": survey_tables(run),
        "kernel_coverage": kernel_coverage(run),
    }
