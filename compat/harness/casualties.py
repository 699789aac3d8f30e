"""Specs that killed their test process, and their second chance.

When a test process dies in a spec (the backend aborted, segfaulted, called
``os._exit``, hung past the per-call limit or ran away with memory, or a call left its device
unusable and the process ended itself: ``compat.harness.runner``), its supervisor —
the xdist controller, or compat's supervisor of a run without xdist — files a
casualty: the spec, the cause, and the call in flight from the process's note
(``compat.harness.inflight``). The spec then runs once more, in another process, with
every backend call in a child process: the case that killed the process is replayed
first, and becomes a ``crash`` or ``timeout`` divergence with its reproducer; Hypothesis
may then shrink it safely. A spec that dies a second time is not run again.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path

from compat.harness.inflight import IDLE, InFlight

FOLDER = "casualties"


@dataclass
class Casualty:
    spec: str  # pytest node id
    cause: str  # crash, timeout, memory or device (a call left its device unusable: the process ended itself)
    message: str  # how the process ended, for people
    case: object = None  # compat.core.case.Case of the call in flight, if the process was in one
    adapter: str = ""  # the adapter selector that ran it (load_adapter reads it)
    attempts: int = 1  # runs of the spec that died

    @property
    def category(self) -> str:
        """The error category the re-run's outcome gets: a runaway allocation is a crash."""
        return "timeout" if self.cause == "timeout" else "crash"


def path_of(run_directory: Path, spec: str) -> Path:
    return run_directory / FOLDER / (hashlib.sha1(spec.encode()).hexdigest()[:20] + ".pickle")


def file(run_directory: Path, spec: str, how: str, note: InFlight | None) -> Casualty:
    """File (or count again) the casualty of ``spec``, from its process's last note."""
    previous = find(run_directory, spec)
    case, adapter, cause = None, "", "crash"
    if note is not None and note.state != IDLE:
        cause, how = note.cause, note.why or how  # a process that ended itself says why (a device lost)
        noted = note.case() if note.spec == spec else None
        if noted is not None:
            case, adapter, _device = noted
    casualty = Casualty(spec, cause, how, case, adapter, attempts=previous.attempts + 1 if previous else 1)
    target = path_of(run_directory, spec)
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.with_suffix(".tmp")
    scratch.write_bytes(pickle.dumps(casualty))
    scratch.replace(target)
    return casualty


def find(run_directory: Path, spec: str) -> Casualty | None:
    try:
        return pickle.loads(path_of(run_directory, spec).read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        return None


def every(run_directory: Path) -> list[Casualty]:
    found = []
    for path in sorted((run_directory / FOLDER).glob("*.pickle")):
        try:
            found.append(pickle.loads(path.read_bytes()))
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
            continue
    return found


def summary(run_directory: Path) -> str:
    """One line per casualty for the terminal summary (empty if none)."""
    found = every(run_directory)
    if not found:
        return ""
    lines = [
        f"casualties: {len(found)} spec(s) killed their test process; each ran again with its calls isolated"
    ]
    for casualty in found:
        again = " (died again: not run a third time)" if casualty.attempts > 1 else ""
        lines.append(f"  {casualty.spec}: {casualty.cause}, {casualty.message}{again}")
    return "\n".join(lines)
