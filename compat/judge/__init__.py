"""The judge: whether a backend's outcome agrees with a reference's, framework-free (it
imports core only). One entry point, ``judge(reference, case, actual, note, ...)``, runs the
small ordered steps of the reference's role (compat.judge.steps); the references follow the
``Reference`` protocol (compat.judge.reference). The rest: the oracle's comparison and bounds
(oracle), what a factorization must satisfy (factorizations), NumPy's values in wider precision
(accurate), flush-to-zero (flush), the finite-difference tolerance of gradients (gradients), the
rules beyond comparison (rules)."""

from compat.judge.reference import Reference, Role
from compat.judge.steps import Verdict, judge

__all__ = ["Reference", "Role", "Verdict", "judge"]
