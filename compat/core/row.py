"""What a spec runs on, as one value: a backend with its config, in an execution mode, on a
device, with a plug-in fault switched on. Its text form, ``backend[config]~mode@device!fault``
(``jax[x64]~jit@cpu:1``, ``torch@apu:0!copy_truncate``; eager, the default device and no
fault are left out), is the xp fixture's pytest id, the row of reports and of the
dashboard's matrices and a record's ``where``; this module alone writes and reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

EAGER = "eager"  # the execution mode a row's text leaves out
TEXT = re.compile(
    r"(?P<backend>[^\[\]~@!]+)(?:\[(?P<config>[^\]]+)\])?(?:~(?P<mode>[^~@!]+))?"
    r"(?:@(?P<device>[^~@!]+))?(?:!(?P<fault>.+))?"
)
# a row on a device or in a mode, and no fault, as one parameter of a pytest node id: "[jax[x64]~jit@cpu:1-add]"
TARGET_IN_ID = re.compile(r"(?:@[A-Za-z]+:\d+|~[a-z]+)+(?=[-\]])")


@dataclass(frozen=True)
class Row:
    """A backend (adapter name and config label), execution mode, device (None: the
    backend's default) and fault (None: none); ``str(row)`` is its text, ``Row.parse`` reads it."""

    backend: str
    config: str = ""
    mode: str = EAGER
    device: str | None = None
    fault: str | None = None

    def __str__(self) -> str:
        return (
            self.backend_id
            + (f"~{self.mode}" if self.mode != EAGER else "")
            + (f"@{self.device}" if self.device else "")
            + (f"!{self.fault}" if self.fault else "")
        )

    @classmethod
    def parse(cls, text: str) -> Row:
        """The row ``text`` names; ValueError if it names none."""
        match = TEXT.fullmatch(text)
        if match is None:
            raise ValueError(f"not a row: {text!r}")
        found = match.groupdict()
        return cls(
            found["backend"], found["config"] or "", found["mode"] or EAGER, found["device"], found["fault"]
        )

    @classmethod
    def of(
        cls, backend_id: str, mode: str = EAGER, device: str | None = None, fault: str | None = None
    ) -> Row:
        """The row of an adapter's id ('jax[x64]') in ``mode``, on ``device``, with ``fault``."""
        return replace(cls.parse(backend_id), mode=mode, device=device, fault=fault)

    @property
    def backend_id(self) -> str:
        """The adapter's id: its name with its config, 'jax[x64]'."""
        return f"{self.backend}[{self.config}]" if self.config else self.backend


def untargeted(nodeid: str) -> str:
    """``nodeid`` with each row on a device or in a mode, and with no fault, as the row
    without them: the spec that runs on the backend's default device, eagerly."""
    return TARGET_IN_ID.sub("", nodeid)
