"""What a backend is compared with. A ``Reference`` gives its outcome of a case; its ``role``
says which steps judge a backend against it (compat.judge.steps). The harness provides one
of each role (compat.harness.references): NumPy, numpy-fd, a gradient reference framework,
the backend on its reference device, the backend in eager mode, the backend's own answer,
the standard's stated result."""

from __future__ import annotations

from enum import Enum
from typing import Protocol

from compat.core.case import Case
from compat.core.outcome import Outcome


class Role(Enum):
    SEMANTIC = "NumPy, the semantic reference"
    FINITE_DIFFERENCES = "numpy-fd: derivatives by finite differences, each with its tolerance"
    FRAMEWORK = "another framework's derivatives (the gradient reference)"
    DEVICE = "the same backend on its reference device"
    MODE = "the same backend in eager mode"
    STANDARD = "the result the standard states (its special cases)"
    SIGNATURE = "the standard's signature: a call whose every argument it admits has a result, not an error"
    PROMISE = "the answer the backend promises (an adapter fact: the order of -0 and +0 in maximum)"
    ITSELF = (
        "the same backend's own answer to the question, asked another way (its add's dtype for result_type)"
    )


class Reference(Protocol):
    role: Role

    @property
    def id(self) -> str:
        """As records name it: numpy, numpy-fd, torch, device:CPU:0, mode:eager, itself:add."""
        ...

    def outcome(self, case: Case) -> Outcome:
        """What the reference gives for ``case`` (a crash or hang included, as an Outcome)."""
        ...
