"""Calls that can kill the process run in a child process.

Some framework bugs abort the interpreter (a failed C++ CHECK) instead of
raising, and do so only some of the time. Run in a test worker, such a call
takes the worker and every later example with it, and the crash is lost. An
adapter names the calls it knows to be dangerous (``Adapter.isolate``); they
run here, in a fresh interpreter, a few times over, and the result is the
first failure seen: an abort becomes an error of category ``crash``, a call
that does not return in time one of category ``timeout``.
"""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
from functools import cache

from compat.adapters import Adapter, Outcome

ATTEMPTS = 5  # the known crashes are intermittent: one call in a few aborts
TIMEOUT = 120  # seconds, framework import included


class Crash(Exception):
    """The call killed its process."""


class Timeout(Exception):
    """The call did not return in time."""


class ChildError(Exception):
    """An exception raised in the child process, by its original type name."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name

    def __reduce__(self):
        return ChildError, (self.type_name, str(self))


def run(adapter: Adapter, op: str, args: tuple, kwargs: dict | None, device: str | None) -> Outcome:
    key = pickle.dumps((adapter.spec, op, args, sorted((kwargs or {}).items()), device))
    return _run(key)


@cache
def _run(key: bytes) -> Outcome:
    try:
        child = subprocess.run([sys.executable, "-m", "compat.isolation"], input=key, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return Outcome(error=Timeout(f"no result after {TIMEOUT} s"), error_category="timeout")
    if child.returncode == 0:
        return pickle.loads(child.stdout)
    return Outcome(error=Crash(death_notice(child.returncode, child.stderr.decode(errors="replace"))), error_category="crash")


def death_notice(returncode: int, stderr: str) -> str:
    """'killed by SIGABRT: Check failed: !PyErr_Occurred()' from a child's exit."""
    how = f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit status {returncode}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("Extension modules")]
    cause = next((line for line in lines if "Check failed" in line or "Fatal" in line), lines[-1] if lines else "")
    return f"{how}: {cause[-200:]}" if cause else how


def child() -> None:
    from compat.adapters import load_adapter
    from compat.isolation import ChildError  # this module runs as __main__; pickle the importable class

    spec, op, args, kwargs, device = pickle.loads(sys.stdin.buffer.read())
    adapter = load_adapter(spec)
    for _ in range(ATTEMPTS):
        outcome = adapter.call(op, args, dict(kwargs), device)
        if outcome.raised:
            break
    if outcome.raised:  # framework exceptions need not pickle; keep what a record shows
        error = outcome.error
        outcome.error = ChildError(f"{type(error).__module__}.{type(error).__qualname__}", str(error))
    sys.stdout.buffer.write(pickle.dumps(outcome))


if __name__ == "__main__":
    child()
