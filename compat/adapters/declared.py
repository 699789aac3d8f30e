"""What an adapter declares and raises, shared by the Adapter (base.py) and its parts: an operation
it has not (``unsupported(reason)``), the errors of an adapter that cannot be loaded or used."""

from __future__ import annotations

from dataclasses import dataclass


class AdapterError(Exception):
    """An adapter could not be found, loaded or used (one-line message for users)."""


class BackendMissing(AdapterError):
    """The backend's framework is not installed: a skip, not an error."""

    def __init__(self, message: str, backend: str):
        super().__init__(message)
        self.backend = backend


@dataclass(frozen=True)
class Unsupported:
    """An operation an adapter declares it does not have, and why."""

    reason: str


def unsupported(reason: str) -> Unsupported:
    return Unsupported(reason)


class UnsupportedOperation(Exception):
    """Raised when a declared-unsupported operation is called anyway."""
