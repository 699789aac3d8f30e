"""The call in flight: what a test process is doing right now, readable after it died.

Before every framework call the checker writes the case it is about to run (pickled),
the spec and the start time into a small memory-mapped file of its process (a few
microseconds: a memcpy, no system call); after the call it marks the file idle. If
the process dies in the call (an abort, a segfault, ``os._exit``), the page cache
still holds the note, and whoever supervises the process (the xdist controller, or
compat's supervisor without xdist) learns which spec and which case killed it. A process that
ends itself because a call left its device unusable says so in its note (``DEVICE_LOST``). A
``Watchdog`` thread in the supervisor reads the notes of the processes it watches:
a call that runs past the per-call limit, or a process whose memory grows past its
limit, is killed, and the note says why (``timeout``, ``memory``).
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import signal
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path

IDLE, IN_CALL, TIMED_OUT, OUT_OF_MEMORY, DEVICE_LOST = 0, 1, 2, 3, 4
HEADER = struct.Struct(
    "<IIQQQQI"
)  # state, pid, sequence, start (monotonic ns), limit (ns), memory limit, payload length
SIZE = 1 << 20  # a case larger than this is noted without its arguments
SPEC_FIELD = 4096  # the spec's node id, after the header


@dataclass
class InFlight:
    """What a note said when it was read."""

    state: int
    pid: int
    spec: str
    started: int  # monotonic ns
    payload: bytes

    @property
    def cause(self) -> str:
        return {IN_CALL: "crash", TIMED_OUT: "timeout", OUT_OF_MEMORY: "memory", DEVICE_LOST: "device"}.get(
            self.state, ""
        )

    def case(self):
        """(case, adapter selector, device) of the call in flight, or None."""
        noted = self.noted()
        return noted[:3] if noted else None

    @property
    def why(self) -> str:
        """What the process said of its end in the note (a device it lost), or ""."""
        noted = self.noted()
        return noted[3] if noted and len(noted) > 3 else ""

    def noted(self) -> tuple | None:
        try:
            return pickle.loads(self.payload) if self.payload else None
        except Exception:  # a note cut short, or a class that no longer unpickles
            return None


class Note:
    """The writer's side, in the test process."""

    def __init__(self, path: Path, call_limit: float, memory_limit: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        with open(path, "wb") as file:
            file.truncate(SIZE)
        self.file = open(path, "r+b")
        self.map = mmap.mmap(self.file.fileno(), SIZE)
        self.limit = int(call_limit * 1e9)
        self.memory_limit = memory_limit
        self.sequence = 0
        self.spec = ""
        self.write(IDLE, b"")

    def write(self, state: int, payload: bytes, started: int = 0) -> None:
        self.sequence += 1
        self.map[HEADER.size + SPEC_FIELD : HEADER.size + SPEC_FIELD + len(payload)] = payload
        self.map[: HEADER.size] = HEADER.pack(
            state, os.getpid(), self.sequence, started, self.limit, self.memory_limit, len(payload)
        )

    def running(self, spec: str) -> None:
        """The spec (pytest node id) the process runs from now on."""
        self.spec = spec
        encoded = spec.encode()[: SPEC_FIELD - 1]
        self.map[HEADER.size : HEADER.size + SPEC_FIELD] = encoded + b"\0" * (SPEC_FIELD - len(encoded))

    def begin(self, case, adapter_selector: str, device: str | None) -> None:
        self.write(IN_CALL, self.payload(case, adapter_selector, device), time.monotonic_ns())

    def lost(self, case, adapter_selector: str, device: str | None, why: str) -> None:
        """The call of ``case`` left its device unusable (``why``): the process ends itself next,
        and its supervisor files the spec's casualty from this note."""
        self.write(DEVICE_LOST, self.payload(case, adapter_selector, device, why))

    @staticmethod
    def payload(*noted) -> bytes:
        try:
            payload = pickle.dumps(noted, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an argument that does not pickle: the spec is still known
            return b""
        return payload if len(payload) <= SIZE - HEADER.size - SPEC_FIELD else b""

    def end(self) -> None:
        self.map[:4] = struct.pack("<I", IDLE)

    def close(self) -> None:
        self.map.close()
        self.file.close()


def read(path: Path) -> InFlight | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < HEADER.size + SPEC_FIELD:
        return None
    state, pid, _, started, _, _, length = HEADER.unpack_from(data)
    spec = data[HEADER.size : HEADER.size + SPEC_FIELD].split(b"\0", 1)[0].decode(errors="replace")
    payload = data[HEADER.size + SPEC_FIELD : HEADER.size + SPEC_FIELD + length]
    return InFlight(state, pid, spec, started, payload)


def resident_bytes(pid: int) -> int:
    """The resident memory of a process (Linux), 0 if unknown."""
    try:
        with open(f"/proc/{pid}/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class Watchdog(threading.Thread):
    """Kills a process of the run whose call in flight outlives its limit, or whose
    resident memory outgrows its limit, after saying why in its note."""

    def __init__(self, run_directory: Path, interval: float = 0.25) -> None:
        super().__init__(name="compat-watchdog", daemon=True)
        self.run_directory = run_directory
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.interval):
            for path in self.run_directory.glob("inflight-*.note"):
                self.check(path)

    def check(self, path: Path) -> None:
        try:
            with open(path, "r+b") as file, mmap.mmap(file.fileno(), SIZE) as shared:
                state, pid, sequence, started, limit, memory_limit, _ = HEADER.unpack_from(shared)
                if state != IN_CALL:
                    return
                if limit and time.monotonic_ns() - started > limit:
                    why = TIMED_OUT
                elif memory_limit and resident_bytes(pid) > memory_limit:
                    why = OUT_OF_MEMORY
                else:
                    return
                if HEADER.unpack_from(shared)[2] != sequence:  # the call ended meanwhile
                    return
                shared[:4] = struct.pack("<I", why)
                kill(pid)
        except (OSError, ValueError):
            pass

    def stop(self) -> None:
        self.stopping.set()


def kill(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
