"""Calls of the frameworks for one checker: in this process, noted as the call in flight for
whoever watches it, or isolated in a child process; and their time, for the benchmark."""

from __future__ import annotations

import functools
import time

from compat.adapters import Adapter
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.harness.casualties import Casualty
from compat.harness.isolation import HUNG_AGAIN, is_lost, lost
from compat.harness.supervision import end_lost_process


class Runner:
    """Runs cases on adapters for one checker (``session``: what every checker shares)."""

    def __init__(self, session, fault: str | None = None, casualty: Casualty | None = None):
        self.session = session
        self.fault = fault  # the plug-in fault switched on for this param (selftest)
        # a spec that killed its process before runs again with every backend call in a child process
        self.casualty = casualty
        self.hung: set[tuple[str, str]] = set()  # (adapter, operation) that hung in a child: less time now
        self.seconds = 0.0  # wall time in the @timed methods, framework calls included (for the benchmark)
        self.framework_seconds = 0.0  # inside adapter calls
        self.framework_checking = 0.0  # of which inside the @timed methods (compat's own time is the rest)
        self.timing = False  # inside a @timed method (one nested in another counts once)

    def call(self, adapter: Adapter, case: Case, device: str | None = None, mode: str = "eager") -> Outcome:
        """One framework call: in this process, noted as the call in flight, or in a
        child process where it can kill its process: calls the adapter knows to be
        dangerous (``Adapter.isolate``), and every call of a spec that killed its
        process before (its casualty is being re-run). The child's time counts too.
        A call here that raised and left its device unusable (``Adapter.probe``) ends the
        process: its supervisor runs the spec again with its calls isolated, where that call
        is a crash, and the rest in a new process (``supervision.end_lost_process``)."""
        start = time.perf_counter()
        try:
            isolated = self.casualty is not None and adapter is not self.session.reference
            on = {"device": device} if device else {}  # (an adapter's isolate may take no device)
            if isolated or adapter.isolate(case.op, case.args, mode, **on):
                return self.isolated(adapter, case, device, mode)
            args = case.args if case.program is None else (case.program.bind(adapter, device), *case.args)
            note = self.session.note
            if note is not None:
                note.begin(case, adapter.selector, device)
            try:
                # eager as the protocol had it before modes (adapters that override call keep working)
                outcome = adapter.call(
                    case.op, args, case.kwargs, device, **({"mode": mode} if mode != "eager" else {})
                )
            finally:
                if note is not None:
                    note.end()
            checked = lost(adapter, outcome, device)
            if is_lost(checked) and note is not None:  # nothing more is judged in this process
                end_lost_process(note, case, adapter.selector, device, str(checked.error))
            return checked
        finally:
            spent = time.perf_counter() - start
            self.framework_seconds += spent
            self.framework_checking += spent if self.timing else 0.0

    def isolated(self, adapter: Adapter, case: Case, device: str | None, mode: str) -> Outcome:
        """The call in a child process; an operation that hung there before gets less time."""
        isolation = self.session.isolation
        hung = (adapter.selector, case.op) in self.hung
        outcome = isolation.run(
            adapter,
            case,
            device,
            (self.fault, self.session.seed),
            mode,
            limit=min(HUNG_AGAIN, isolation.call_limit) if hung else None,
        )
        if outcome.error_category == "timeout":
            self.hung.add((adapter.selector, case.op))
        return outcome


def timed(method):
    """Adds the method's wall time, framework calls included, to its object's ``runner.seconds``."""

    @functools.wraps(method)
    def timed_method(self, *args, **kwargs):
        runner = self.runner
        if runner.timing:
            return method(self, *args, **kwargs)
        runner.timing, start = True, time.perf_counter()
        try:
            return method(self, *args, **kwargs)
        finally:
            runner.timing = False
            runner.seconds += time.perf_counter() - start

    return timed_method
