"""Calls that can kill the process run in a child process.

Some framework bugs abort the interpreter (a failed C++ CHECK) instead of
raising, and do so only some of the time. Run in a test worker, such a call
takes the worker and every later example with it, and the crash is lost. An
adapter names the calls it knows to be dangerous (``Adapter.isolate``); they
run here, in a child interpreter kept per adapter (starting a framework costs
seconds), a few times over, and the result is the first failure seen: an
abort becomes an error of category ``crash`` (and a new child is started for
the next call), a call that does not return in time one of category ``timeout``.
"""

from __future__ import annotations

import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
from typing import Any

from compat.adapters import Adapter
from compat.core.outcome import Outcome

ATTEMPTS = 5  # the known crashes are intermittent: one call in a few aborts
TIMEOUT = 120  # seconds per call, the child's framework import included


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


class Isolation:
    """Child interpreters, one per adapter, that run the calls which can kill their
    process; a child that died is replaced at the next call (starting a framework costs
    seconds, so a child serves every call of its adapter)."""

    def __init__(self, timeout: float = TIMEOUT) -> None:
        self.timeout = timeout
        self.children: dict[str, tuple[subprocess.Popen, Any]] = {}  # adapter spec -> child, file of its stderr
        self.outcomes: dict[tuple[str, bytes], Outcome] = {}  # a repeated call (shrinking) is not run again

    def run(self, adapter: Adapter, op: str, args: tuple, kwargs: dict | None, device: str | None) -> Outcome:
        request = pickle.dumps((op, args, sorted((kwargs or {}).items()), device))
        key = (adapter.spec, request)
        if key not in self.outcomes:
            self.outcomes[key] = self.call(adapter.spec, request)
        return self.outcomes[key]

    def call(self, spec: str, request: bytes) -> Outcome:
        if spec not in self.children or self.children[spec][0].poll() is not None:
            errors = tempfile.TemporaryFile()  # a file: a pipe nobody reads could fill up and block the child
            self.children[spec] = subprocess.Popen([sys.executable, "-m", "compat.harness.isolation", spec],
                                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors), errors
        child, errors = self.children[spec]
        try:
            send(child.stdin, request)
            reply = receive(child.stdout, self.timeout)
        except (BrokenPipeError, EOFError):
            child.wait()
            errors.seek(0)
            stderr = errors.read().decode(errors="replace")
            return Outcome(error=Crash(death_notice(child.returncode, stderr)), error_category="crash")
        except TimeoutError:
            child.kill()
            child.wait()
            return Outcome(error=Timeout(f"no result after {self.timeout:g} s"), error_category="timeout")
        return pickle.loads(reply)


def send(stream, payload: bytes) -> None:
    stream.write(struct.pack("<Q", len(payload)) + payload)
    stream.flush()


def receive(stream, timeout: float | None = None) -> bytes:
    if timeout is not None and not select.select([stream], [], [], timeout)[0]:
        raise TimeoutError
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError
    size = struct.unpack("<Q", header)[0]
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError
    return payload


def death_notice(returncode: int, stderr: str) -> str:
    """'killed by SIGABRT: Check failed: !PyErr_Occurred()' from a child's exit."""
    how = f"killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exit status {returncode}"
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("Extension modules")]
    cause = next((line for line in lines if "Check failed" in line or "Fatal" in line), lines[-1] if lines else "")
    return f"{how}: {cause[-200:]}" if cause else how


def child(spec: str) -> None:
    """Serve calls for one adapter until stdin closes."""
    from compat.adapters import load_adapter
    from compat.harness.isolation import ChildError, receive, send  # this module runs as __main__; use the importable one

    from compat.devices import DeviceBuildError

    adapter = load_adapter(spec)
    try:
        if adapter.plugin is not None:
            adapter.plugin.prepare()  # a device under test must exist here too (cached build)
    except DeviceBuildError:
        pass  # then only the default device is used
    while True:
        try:
            op, args, kwargs, device = pickle.loads(receive(sys.stdin.buffer))
        except EOFError:
            return
        for _ in range(ATTEMPTS):
            outcome = adapter.call(op, args, dict(kwargs), device)
            if outcome.raised:
                break
        if outcome.raised:  # framework exceptions need not pickle; keep what a record shows
            error = outcome.error
            outcome.error = ChildError(f"{type(error).__module__}.{type(error).__qualname__}", str(error))
        send(sys.stdout.buffer, pickle.dumps(outcome))


if __name__ == "__main__":
    child(sys.argv[1])
