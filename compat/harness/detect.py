"""``python -m compat detect``: how reliably the specs catch a broken adapter.

The self-test (``compat.harness.selftest``) switches faults of compat's plug-in devices
on; this benchmark does the same for adapters. Every fault is an adapter with one rule
of NumPy's semantics broken (``compat.adapters.broken``, or a ``module:Class`` of your
own with a ``family`` attribute), and it runs against the specs of its family under N
seeds of the exploring Hypothesis profile (``dev``: 40 random examples per spec), each seed in
one pytest run per family with every fault of the family beside the backend it is
built on (the control: NumPy, or torch for the gradient and placement faults).

Runs use the profile ``detect``: ``dev`` without its example database (a failure
found under one seed must not be replayed under the next) and without shrinking
(which changes nothing about when a divergence first shows, only the minimal example);
the registry is empty, so that nothing is excused as known.

A fault is caught under a seed when it shows a divergence that its control does not
show under the same seed (same spec, operation, kind and signature). The table gives,
per fault, the share of seeds that caught it, the median number of examples the
quickest spec ran until its first divergence (an exhaustive table's cases count as
examples), the specs that caught it and as what. A control row must show nothing:
NumPy against itself has no divergence under any seed (where a spec judges a backend against its
own answer to another call, reference ``itself:<call>``, NumPy's disagreement is NumPy's: taken
from the faults' divergences as a control's are, not counted as noise; so is a divergence of a control
that compat's registry knows: Dask, the base of the chunked faults, and NumPy importing other
frameworks' arrays in the interchange family differ from NumPy's rules where an entry says why,
which is that backend's behaviour, not the specs' noise); nor may a control adapter
(``compat.adapters.broken.CONTROLS``, a class with ``control = True``: a result that differs
from NumPy's where the standard leaves it open, as negated eigenvectors), whose row counts the
divergences it shows that its base does not.
"""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from compat import adapters
from compat.adapters import AdapterError, BackendMissing, namespace
from compat.harness import crossreplay
from compat.results import records, registry
from compat.results.report import table
from compat.specs import DIRECTORY as SPECS
from compat.specs import FAMILIES, report_options

BROKEN = "compat.adapters.broken"
# per family: what else its runs need (gradients: the default device only; placement:
# the devices under test only, compat's reference plug-ins; promotion: the faults' default
# execution modes, for a rule broken only when a call is traced; the others: eager only)
FAMILY_OPTIONS = {
    "gradients": ["--device", "none", "--modes", "none"],
    "placement": ["--only-devices"],
    "promotion": ["--modes", "default"],
}
EAGER_ONLY = ["--modes", "none"]


@dataclass(frozen=True)
class Fault:
    path: str  # module:Class, as --adapter takes it
    name: str  # its adapter name (records carry it)
    family: str
    base: str  # the built-in backend it is built on: the control
    rule: str  # the first line of its docstring
    control: bool = (
        False  # a correct adapter that differs from its base where the standard allows: must show nothing
    )
    beside: str = ""  # a fault built on a namespace (array-api:...): that namespace, intact, run beside it


@dataclass
class Seen:
    """What one adapter showed under one seed: divergence keys, and per key the spec,
    kind and examples until it first showed."""

    keys: dict[tuple, tuple[str, str, int | None]] = field(default_factory=dict)
    problem: str = ""  # why the run could not judge it
    # keys that are the backend's own behaviour: judged against its own answer to another call
    # (reference itself:<call>), or, for the control, a divergence compat's registry knows
    own: set[tuple] = field(default_factory=set)


def fault_of(path: str) -> Fault:
    """The fault a ``module:Class`` path (or a class name of compat.adapters.broken, or its
    adapter name) names; AdapterError with a one-line reason otherwise."""
    if ":" not in path:
        from compat.adapters import broken

        found = [cls for cls in broken.FAULTS + broken.CONTROLS if path in (cls.__name__, cls.name)]
        if not found:
            known = ", ".join(cls.name for cls in broken.FAULTS + broken.CONTROLS)
            raise AdapterError(f"no fault {path!r} in {BROKEN} (choose from: {known}; or give module:Class)")
        path = f"{BROKEN}:{found[0].__name__}"
    cls = adapters.load_class(path)
    family = getattr(cls, "family", "")
    if family not in FAMILIES:
        raise AdapterError(f"{path} has no family attribute naming one of {', '.join(FAMILIES)}")
    base = next(
        (
            c.name
            for c in cls.__mro__
            if adapters.registered().get(getattr(c, "name", "")) == f"{c.__module__}:{c.__qualname__}"
        ),
        None,
    )
    beside = ""
    if base is None and issubclass(cls, namespace.NamespaceAdapter) and cls.wraps:
        # the namespace's own divergences are its framework's or its own, not the fault's: the
        # intact namespace (the one it is built on, where it names one) runs beside it, the framework
        # it wraps is the control
        base, beside = cls.wraps, namespace.PREFIX + (getattr(cls, "intact", "") or cls.module)
    if base is None or base == cls.name:
        raise AdapterError(f"{path} is not built on one of compat's backends ({', '.join(adapters.BUILTIN)})")
    if not cls.is_available():
        raise BackendMissing(f"{path} needs {cls.requires}, which is not installed", cls.name)
    rule = (cls.__doc__ or "").strip().split("\n\n")[0]
    return Fault(
        path, cls.name, family, base, " ".join(rule.split()), bool(getattr(cls, "control", False)), beside
    )


def chosen_faults(names: str | None) -> tuple[list[Fault], list[str]]:
    """The faults to run, and notes on those skipped (their framework is missing). Named
    faults must all be runnable; by default, every fault whose framework is installed."""
    from compat.adapters import broken

    if names:
        return [fault_of(n.strip()) for n in names.split(",") if n.strip()], []
    faults, notes = [], []
    for cls in broken.FAULTS:
        try:
            faults.append(fault_of(f"{BROKEN}:{cls.__name__}"))
        except BackendMissing as reason:
            notes.append(f"skipped {cls.name}: {reason}")
    return faults, notes


def besides(faults: list[Fault]) -> list[str]:
    """The intact namespaces that faults built on them run beside."""
    return sorted({f.beside for f in faults if f.beside})


@functools.cache
def compat_registry() -> registry.Registry:
    """compat's own registry, read once for all the family runs (which themselves use none)."""
    return registry.load(registry.DEFAULT)


def run_family(
    family: str, base: str, faults: list[Fault], seed: int, results: Path, extra: list[str]
) -> dict[str, Seen]:
    """One pytest run of the family's specs under ``seed``: the control and every fault."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(Path(SPECS) / f"{family}.py"),
        *report_options(results),
        "--backends",
        ",".join([base, *besides(faults)]),
        *(f"--adapter={f.path}" for f in faults),
        *FAMILY_OPTIONS.get(family, EAGER_ONLY),
        "--compat-registry",
        "none",
        "--hypothesis-profile",
        "detect",
        "--hypothesis-seed",
        str(seed),
        *extra,
    ]
    environment = {**os.environ, crossreplay.SWITCH: "off"}  # the wrappers' table is not detect's business
    process = subprocess.run(command, capture_output=True, text=True, env=environment)
    names = [base, *besides(faults)] + [f.name for f in faults]
    if process.returncode not in (0, 1, 5):  # 1: a harness error in a spec; 5: -k selected nothing
        lines = (process.stderr or process.stdout).strip().splitlines()
        problem = lines[-1] if lines else f"pytest exit status {process.returncode}"
        return {name: Seen(problem=problem) for name in names}
    seen = {name: Seen() for name in names}
    loaded = records.load(results)
    known = compat_registry()
    for run in loaded.runs.values():
        for r in run.divergences:
            # NumPy's own departures from the standard are the reference's, not a control's noise
            if r.backend.name in seen and r.reference != "standard":
                key = (r.spec_name, r.device is not None, r.op, r.kind, tuple(sorted(r.signature.items())))
                seen[r.backend.name].keys.setdefault(key, (r.spec_name, r.kind, r.first_example))
                if r.reference.startswith("itself:") or (
                    r.backend.name == base and known.match(r.backend, r.fields) is not None
                ):
                    seen[r.backend.name].own.add(key)
    return seen


@dataclass
class Row:
    fault: Fault | None  # None: a control row
    name: str
    family: str
    caught: int = 0  # seeds
    judged: int = 0  # seeds whose run could judge it
    examples: list[int] = field(
        default_factory=list
    )  # per catching seed: examples until the first divergence
    specs: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    divergences: int = 0  # control rows: divergences shown under all seeds
    problems: list[str] = field(default_factory=list)


def judge(
    rows: dict[tuple[str, str], Row], family: str, base: str, faults: list[Fault], seen: dict[str, Seen]
) -> None:
    control = seen[base]
    row = rows[(family, base)]
    if control.problem:
        row.problems.append(control.problem)
    else:
        row.judged += 1
        # NumPy at odds with its own other calls (result_type against its own add) is NumPy's
        # behaviour, not the specs' noise: taken from the faults' divergences, not counted here
        noise = [value for key, value in control.keys.items() if key not in control.own]
        row.divergences += len(noise)
        row.specs.update({spec for spec, _, _ in noise})
        row.kinds.update({kind for _, kind, _ in noise})
    for fault in faults:
        row = rows[(family, fault.name)]
        mine = seen[fault.name]
        if mine.problem:
            row.problems.append(mine.problem)
            continue
        row.judged += 1
        intact = seen[fault.beside].keys if fault.beside else {}
        new = [value for key, value in mine.keys.items() if key not in control.keys and key not in intact]
        if fault.control:
            row.divergences += len(new)
            row.specs.update({spec for spec, _, _ in new})
            row.kinds.update({kind for _, kind, _ in new})
        elif new:
            row.caught += 1
            counts = [n for _, _, n in new if n is not None]
            if counts:
                row.examples.append(min(counts))
            row.specs.update({spec for spec, _, _ in new})
            row.kinds.update({kind for _, kind, _ in new})


def main(
    seeds: int = 10,
    first_seed: int = 0,
    names: str | None = None,
    jobs: int = 2,
    extra: list[str] | None = None,
) -> int:
    faults, notes = chosen_faults(names)
    for note in notes:
        print(f"compat detect: {note}", file=sys.stderr)
    if not faults:
        print("compat detect: no fault to run", file=sys.stderr)
        return 2
    groups: dict[tuple[str, str], list[Fault]] = {}
    for fault in faults:
        groups.setdefault((fault.family, fault.base), []).append(fault)
    groups = dict(sorted(groups.items(), key=lambda item: FAMILIES.index(item[0][0])))
    rows: dict[tuple[str, str], Row] = {}
    for (family, base), members in groups.items():
        rows[(family, base)] = Row(None, base, family)
        rows.update({(family, f.name): Row(f, f.name, family) for f in members})
    all_seeds = list(range(first_seed, first_seed + seeds))
    print(
        f"compat detect: {len(faults)} fault(s) in {len(groups)} family run(s) x {seeds} seed(s) "
        f"({first_seed}..{all_seeds[-1]}), {jobs} at a time ...",
        file=sys.stderr,
    )
    start = time.perf_counter()
    with (
        tempfile.TemporaryDirectory(prefix="compat-detect-") as scratch,
        ThreadPoolExecutor(max_workers=jobs) as pool,
    ):
        futures = {
            pool.submit(
                run_family,
                family,
                base,
                members,
                seed,
                Path(scratch) / f"{family}-{base}-{seed}",
                extra or [],
            ): (family, base, members)
            for seed in all_seeds
            for (family, base), members in groups.items()
        }
        for future, (family, base, members) in futures.items():
            judge(rows, family, base, members, future.result())
    seconds = time.perf_counter() - start
    print(render(list(rows.values()), seeds, seconds))
    faulty = [r for r in rows.values() if r.fault is not None and not r.fault.control]
    controls = [r for r in rows.values() if r.fault is None or r.fault.control]
    ok = all(r.caught == seeds for r in faulty) and all(
        r.divergences == 0 and not r.problems for r in controls
    )
    return 0 if ok else 1


def render(rows: list[Row], seeds: int, seconds: float) -> str:
    lines = []
    for r in rows:
        if r.fault is None or r.fault.control:
            caught = (
                (f"{r.divergences} divergences" + (" (good)" if not r.divergences else ""))
                if r.judged
                else "-"
            )
            lines.append(
                [
                    r.family,
                    f"{r.name} (control)" if r.fault is None else f"{r.name} (control: correct, differs)",
                    caught,
                    "-",
                    common(r.specs) or (r.problems[0] if r.problems else "-"),
                    ", ".join(sorted(r.kinds)) or "-",
                ]
            )
        else:
            median = statistics.median(r.examples) if r.examples else "-"
            lines.append(
                [
                    r.family,
                    r.name,
                    f"{r.caught}/{seeds}" + ("" if r.caught == seeds else " MISSED"),
                    f"{median:g}" if median != "-" else median,
                    common(r.specs) or (r.problems[0] if r.problems else "-"),
                    ", ".join(sorted(r.kinds)) or "-",
                ]
            )
    faulty = [r for r in rows if r.fault is not None and not r.fault.control]
    always = sum(r.caught == seeds for r in faulty)
    text = table(["family", "fault", "seeds caught", "median examples", "caught by", "as"], lines)
    rules = "\n".join(f"  {r.name}: {r.fault.rule}" for r in faulty)
    return (
        f"{text}\n\n{always} of {len(faulty)} faults caught under every one of {seeds} seed(s); "
        f"{seconds:.0f} s\n\nfaults:\n{rules}"
    )


def common(specs: Counter, shown: int = 1) -> str:
    """The specs that caught it most often (over the seeds), the first ``shown``."""
    names = [name for name, _ in specs.most_common()]
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" (+{more} more)" if more > 0 else "")
