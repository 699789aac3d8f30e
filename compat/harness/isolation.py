"""Calls that can kill the process run in a child process.

Some framework bugs abort the interpreter (a failed C++ CHECK) instead of
raising, and do so only some of the time. Run in a test worker, such a call
takes the worker and every later example with it. An adapter names the calls it
knows to be dangerous (``Adapter.isolate``), and a spec that killed its process once
runs again with every backend call here (``compat.harness.casualties``): in a child
interpreter kept per adapter (starting a framework costs seconds), a few times over,
and the result is the first failure seen. An abort becomes an error of category
``crash`` (and a new child is started for the next call), and so does a call that left its
device unusable (``DeviceLost``: a CUDA device-side assert); a call that does not return
within the per-call limit, one of category ``timeout``; a child whose resident memory
outgrows its limit is killed, a ``crash`` that says so.
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any

from compat.adapters import Adapter
from compat.core.outcome import Outcome
from compat.harness.inflight import resident_bytes

ATTEMPTS = 5  # the known crashes are intermittent: one call in a few aborts
CALL_LIMIT = 60.0  # seconds a call may take (--compat-call-limit)
HUNG_AGAIN = 3.0  # seconds an operation that hung once in a spec may take in its later calls
START_LIMIT = 300.0  # seconds a child may take to start (a framework import, a plug-in build)
MEMORY_LIMIT = 8 << 30  # resident bytes a process may grow to within a call (--compat-memory-limit)
FILE_LIMIT = 1024  # open files of a child


class Crash(Exception):
    """The call killed its process."""


class Timeout(Exception):
    """The call did not return in time."""


class DeviceLost(Exception):
    """The call left its device unusable: it raised, and the device's probe (``Adapter.probe``)
    failed after it. Every later call of the process would fail: it is a crash."""


def lost(adapter: Adapter, outcome: Outcome, device: str | None) -> Outcome:
    """``outcome`` of a call on ``device``, or, where it raised and the device no longer computes
    after it, a ``crash`` that says both."""
    if not outcome.raised or outcome.error_category in ("crash", "timeout", "unsupported"):
        return outcome
    probe = adapter.placement.probe(device)
    if probe is None:
        return outcome
    error = outcome.error
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    name = getattr(error, "type_name", type(error).__qualname__).rpartition(".")[2]
    where = device or adapter.reference_device
    return Outcome(
        error=DeviceLost(f"{name}: {message}; {where} unusable after it ({probe})"), error_category="crash"
    )


def is_lost(outcome: Outcome) -> bool:
    """Whether the outcome is a DeviceLost crash (here or in a child process, by its type's name)."""
    error = outcome.error
    return isinstance(error, DeviceLost) or getattr(error, "type_name", "").endswith(".DeviceLost")


class ChildError(Exception):
    """An exception raised in the child process, by its original type name."""

    def __init__(self, type_name: str, message: str) -> None:
        super().__init__(message)
        self.type_name = type_name

    def __reduce__(self):
        return ChildError, (self.type_name, str(self))


class Isolation:
    """Child interpreters, one per adapter, that run the calls which can kill their
    process; a child that died is replaced at the next call."""

    def __init__(self, call_limit: float = CALL_LIMIT, memory_limit: int = MEMORY_LIMIT) -> None:
        self.call_limit, self.memory_limit = call_limit, memory_limit
        self.children: dict[
            tuple[str, bool], tuple[subprocess.Popen, Any]
        ] = {}  # (adapter selector, with its plug-in) -> child, file of its stderr
        self.outcomes: dict[tuple[str, bytes], Outcome] = {}  # a repeated call (shrinking) is not run again

    def run(
        self,
        adapter: Adapter,
        case,
        device: str | None,
        fault: tuple = (None, 0),
        mode: str = "eager",
        limit: float | None = None,
    ) -> Outcome:
        """``case`` (compat.core.case.Case) on ``adapter`` in its child, in execution ``mode``,
        with the plug-in ``fault`` (name, seed) switched on there as it is here, within
        ``limit`` seconds (default: the per-call limit)."""
        # a plug-in kept apart from the accelerators is not loaded where they compute: torch's
        # PrivateUse1 device, once loaded, is torch's accelerator, and a CUDA backward beside it fails
        which = (adapter.selector, adapter.plugin is None or not adapter.plugin.kept_apart_from(device))
        request = pickle.dumps((case, device, fault, mode))
        key = (*which, request)
        if key not in self.outcomes:
            self.outcomes[key] = self.call(which, request, limit or self.call_limit)
            if is_lost(self.outcomes[key]) and which in self.children:
                child, errors = self.children.pop(which)  # the next call starts a new child
                child.kill()
                child.wait()
                errors.close()
        return self.outcomes[key]

    def call(self, which: tuple[str, bool], request: bytes, limit: float) -> Outcome:
        if which not in self.children or self.children[which][0].poll() is not None:
            errors = tempfile.TemporaryFile()  # a file: a pipe nobody reads could fill up and block the child
            selector, with_plugin = which
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "compat.harness.isolation",
                    selector,
                    *(["--plugin"] if with_plugin else []),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                preexec_fn=limit_files,
            )
            self.children[which] = child, errors
            ready = self.answer(child, errors, START_LIMIT)
            if isinstance(ready, Outcome):
                return ready
        child, errors = self.children[which]
        since = os.fstat(errors.fileno()).st_size  # what the child prints from here on is the call's
        try:
            send(child.stdin, request)
        except BrokenPipeError:
            return self.death(child, errors, since)
        reply = self.answer(child, errors, limit, since)
        return reply if isinstance(reply, Outcome) else pickle.loads(reply)

    def answer(self, child: subprocess.Popen, errors, limit: float, since: int = 0) -> bytes | Outcome:
        """The child's next message, or the outcome of its death, its silence past
        ``limit`` seconds, or its memory past the memory limit. Its stderr from byte
        ``since`` on says why it died (not the framework's start-up logs before)."""
        failure = self.wait(child, errors, limit, since)
        if failure is not None:
            return failure
        try:
            return receive(child.stdout)
        except EOFError:
            return self.death(child, errors, since)

    def wait(self, child: subprocess.Popen, errors, limit: float, since: int) -> Outcome | None:
        """None once the child's output is readable (a message, or the end of a child that died)."""
        deadline = time.monotonic() + limit
        while not select.select([child.stdout], [], [], 0.25)[0]:
            if child.poll() is not None:
                return self.death(child, errors, since)
            if resident_bytes(child.pid) > self.memory_limit:
                child.kill()
                child.wait()
                return Outcome(
                    error=Crash(f"killed by compat: resident memory above {self.memory_limit / 2**30:g} GiB"),
                    error_category="crash",
                )
            if time.monotonic() > deadline:
                child.kill()
                child.wait()
                return Outcome(error=Timeout(f"no result after {limit:g} s"), error_category="timeout")
        return None

    @staticmethod
    def death(child: subprocess.Popen, errors, since: int) -> Outcome:
        child.wait()
        errors.seek(since)
        stderr = errors.read().decode(errors="replace")
        return Outcome(error=Crash(death_notice(child.returncode, stderr)), error_category="crash")


def limit_files() -> None:
    """In the child, before it starts: a runaway of open files fails there, not here."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = min(FILE_LIMIT, hard) if hard != resource.RLIM_INFINITY else FILE_LIMIT
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, limit), limit))


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
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not line.startswith("Extension modules")
    ]
    cause = next(
        (line for line in lines if "Check failed" in line or "Fatal" in line), lines[-1] if lines else ""
    )
    return f"{how}: {cause[-200:]}" if cause else how


def child(selector: str, with_plugin: bool) -> None:
    """Serve calls for one adapter until stdin closes; ``with_plugin``: this child loads the
    adapter's plug-in (and switches its faults as asked), unless it serves an accelerator the
    plug-in is kept apart from (``PluginDevices.apart_from_accelerators``)."""
    from compat.adapters import load_adapter
    from compat.devices import DeviceBuildError
    from compat.harness.isolation import (  # this module runs as __main__; use the importable one
        ChildError,
        lost,
        receive,
        send,
    )

    adapter = load_adapter(selector)
    plugin = adapter.plugin if with_plugin else None
    try:
        if plugin is not None:
            plugin.prepare()  # the device under test must exist here too (cached build)
    except DeviceBuildError:
        pass  # then only the default device is used
    send(sys.stdout.buffer, b"ready")
    fault = (None, 0)
    while True:
        try:
            case, device, wanted, mode = pickle.loads(receive(sys.stdin.buffer))
        except EOFError:  # the harness is done with this child: end it without tearing the framework down
            sys.stderr.flush()
            os._exit(0)
        if wanted != fault and plugin is not None and plugin.faults:
            plugin.set_fault(*wanted)
            fault = wanted
        for _ in range(ATTEMPTS):
            args = case.args if case.program is None else (case.program.bind(adapter, device), *case.args)
            outcome = adapter.call(
                case.op, args, case.kwargs, device, **({"mode": mode} if mode != "eager" else {})
            )
            if outcome.raised:
                break
        outcome = lost(adapter, outcome, device)  # a crash where the call left its device unusable
        if outcome.raised:  # framework exceptions need not pickle; keep what a record shows
            error = outcome.error
            outcome.error = ChildError(f"{type(error).__module__}.{type(error).__qualname__}", str(error))
        send(sys.stdout.buffer, pickle.dumps(outcome))


if __name__ == "__main__":
    child(sys.argv[1], "--plugin" in sys.argv[2:])
