"""What a wrapper changes, settled by replay. A wrapper's row checks a share of the examples its
framework's row checks, and the two rows do not draw alike (their dtypes differ), so a divergence
one row showed and the other did not (compat.results.wrapper_table.changes) may only be one the
other row did not draw. At the end of a run with a wrapper row beside its framework's, each such
divergence's minimal examples are replayed on the row that lacks it, as the registry's examples are
replayed (the same checker, reference and judgement): where it diverges alike, both rows have it and
the wrapper changes nothing; where it does not, the change is settled by replay.

The controller runs this module in a child process (``settle``), so that a backend that crashes
or hangs on a replayed example takes only the child: its records go to the run's
``records-cross-replay.jsonl`` as a spec's do, under the spec name ``CROSS_REPLAY``."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from compat import adapters
from compat.core.parse import ParseError
from compat.harness.checker import Checker, Session, replayable_case
from compat.results import records, registry, wrapper_table

CROSS_REPLAY = wrapper_table.CROSS_REPLAY
# "off" in the environment: no cross-replay (compat detect's runs measure faults, not wrappers)
SWITCH = "COMPAT_CROSS_REPLAY"
TIMEOUT = 300  # seconds for all the replays of a run: a few hundred examples of milliseconds each
ROUNDS = 3  # replays of what replays showed


def pending(run: records.Run) -> dict[tuple[str, str], list[registry.Example]]:
    """(row lacking a signature, family) -> the minimal examples, from the row that shows it, to replay there."""
    shown: defaultdict[tuple[str, tuple], list[records.Divergence]] = defaultdict(list)
    for divergence in filter(wrapper_table.from_numpy_here, run.divergences):
        shown[(divergence.backend.id, wrapper_table.signature(divergence))].append(divergence)
    found: defaultdict[tuple[str, str], dict[str, registry.Example]] = defaultdict(dict)
    for change in wrapper_table.changes(run):
        have = change.shown_on
        lack = change.wrapper if have == change.wrapped else change.wrapped
        key = (change.family, change.op, change.kind, change.entry)
        for divergence in shown[(have, key)]:
            if wrapper_table.replayable(divergence):
                # an array the showing row made and exported (interchange) is the other row's own there
                inputs = {
                    name: text.replace(f"exported({have!r},", f"exported({lack!r},")
                    for name, text in divergence.example["inputs"].items()
                }
                example = registry.Example(
                    divergence.family,
                    divergence.example["call"],
                    inputs,
                    bool(divergence.example.get("exact", False)),
                    against=divergence.example.get("against", ""),
                )
                found[(lack, change.family)][repr(example)] = example
    return {key: list(examples.values()) for key, examples in found.items()}


def replay(run_directory: Path, registries: Sequence[Path]) -> None:
    """Replay every pending example of the run in ``run_directory`` and write the records; again
    for what those replays showed (a wrapper's answer to its framework's example may be a divergence
    of its own, to replay on the framework's row), until nothing is pending (at most ``ROUNDS``)."""
    run = records.load(run_directory, validate=False).latest()
    if run is None:
        return
    session = Session(adapters.load_adapter("numpy"), registry.load(*registries))
    writer = None
    done: set[tuple[str, str, str]] = set()
    for _ in range(ROUNDS):
        todo = {
            (row, family): fresh
            for (row, family), examples in sorted(pending(run).items())
            if (fresh := [e for e in examples if (row, family, repr(e)) not in done])
        }
        for (row, family), examples in todo.items():
            done.update((row, family, repr(e)) for e in examples)
            for record in replayed_on(row, family, examples, session, run.run_id):
                writer = writer or records.RecordWriter(run_directory, CROSS_REPLAY)
                writer.write(record)
                run.add(record)
    if writer is not None:
        writer.close()


def replayed_on(
    row: str, family: str, examples: list[registry.Example], session: Session, run_id: str
) -> list:
    """The records of ``examples`` replayed on ``row`` as a spec of ``family`` (none where this process
    cannot build the row again: a broken adapter of compat detect's; its changes stay unconfirmed)."""
    try:
        adapter = adapters.load_adapter(row)
    except (adapters.AdapterError, adapters.BackendMissing):
        return []
    checker = Checker(adapter, family, CROSS_REPLAY, session)
    for example in examples:
        try:
            case = replayable_case(example, checker)
        except ParseError:
            continue
        if case is not None:
            checker.replay(case, example.question())
    common = dict(
        run_id=run_id,
        worker=CROSS_REPLAY,
        family=family,
        spec=CROSS_REPLAY,
        backend=checker.backend_info,
        device=None,
        reference=session.reference.name,
    )
    return [
        *checker.ledger.records([], common, []),
        records.Checks(**common, cases=dict(checker.ledger.cases)),
    ]


def after_run(run_directory: Path, registries: Sequence[Path], backends: list[dict]) -> tuple[list[str], int]:
    """The controller's step at the end of a run whose rows include a wrapper and its framework
    (``backends``: the run description's): the lines to print, and how many new divergences the
    replays found (a strict run fails on them, as on a spec's)."""
    rows = {b["id"] for b in backends}
    if os.environ.get(SWITCH) == "off" or not any((b.get("wraps") or {}).get("id") in rows for b in backends):
        return [], 0
    if not any(run_directory.glob("records-*.jsonl")):  # no spec ran (harness tests only, --collect-only)
        return [], 0
    failed = settle(run_directory, registries)
    path = run_directory / f"records-{CROSS_REPLAY}.jsonl"
    lines = [failed] if failed else []
    found = [records.parse(line)[0] for _, line in records.iter_lines(path)] if path.exists() else []
    new = [r for r in found if isinstance(r, records.Divergence) and r.status == "new"]
    if new:
        lines.append(
            f"compat: replayed on the other row of a wrapper and its framework, {len(new)} example(s) showed a "
            f"new divergence (spec {CROSS_REPLAY} in the summary above)"
        )
    return lines, len(new)


def settle(run_directory: Path, registries: Sequence[Path]) -> str | None:
    """Run the replays in a child process; a line to say so if they did not finish (the table then
    says unconfirmed where it cannot say more)."""
    command = [sys.executable, "-m", __name__, str(run_directory)]
    command += [f"--registry={path}" for path in registries]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        why = f"did not finish in {TIMEOUT} s"
    else:
        if done.returncode == 0:
            return None
        why = f"failed (exit {done.returncode}: {(done.stderr.strip().splitlines() or ['no output'])[-1]})"
    return f"compat: the wrappers' cross-replay {why}: what it did not replay stays unconfirmed"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_directory", type=Path)
    parser.add_argument("--registry", type=Path, action="append", default=[])
    arguments = parser.parse_args(argv)
    replay(arguments.run_directory, arguments.registry)


if __name__ == "__main__":
    main()
