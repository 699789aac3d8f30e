"""compat.judge.factorizations: a factorization whose result is not unique is judged by what it must
satisfy. A correct result that differs from NumPy's (eigenvectors negated, the columns of equal
eigenvalues swapped, Q's column with R's row negated, singular vectors times a phase) gives no
divergence; a broken one gives one that names the property it violates."""

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.adapters.broken import DetBatchReversed, FactorsTheOtherWay, QrRowSignFlipped
from compat.core.case import Case
from compat.judge import Role, judge

NUMPY = load_adapter("numpy")
RNG = np.random.default_rng(7)


class NumPy:
    role = Role.SEMANTIC
    id = "numpy"

    def outcome(self, case):
        return NUMPY.call(case.op, case.args, case.kwargs)


def judged(adapter, op, *args, **kwargs):
    case = Case(op, args, kwargs)
    verdict = judge(NumPy(), case, adapter.call(op, args, kwargs), lambda *cell: None)
    return {(m.kind, m.expected, m.actual) for m in verdict.mismatches}


def last(outcome):
    return outcome.values if outcome.parts is None else outcome.parts[-1].values


def repeated(dtype):
    """A Hermitian matrix with a repeated eigenvalue: its eigenvectors there are any basis."""
    q = np.linalg.qr(
        RNG.standard_normal((3, 3)) + (1j * RNG.standard_normal((3, 3)) if dtype[0] == "c" else 0)
    )[0]
    h = (q * np.array([1.0, 1.0, 3.0])) @ np.conj(q.T)
    return ((h + np.conj(h.T)) / 2).astype(dtype)


CASES = [
    ("eigh", (repeated("float64"),), {}),
    ("eigh", (repeated("complex64"),), {}),
    ("eig", (RNG.standard_normal((2, 3, 3)),), {}),
    ("eigvals", (RNG.standard_normal((3, 3)).astype(np.float32),), {}),
    ("svd", (RNG.standard_normal((4, 2)),), {"full_matrices": True}),
    ("svd", ((RNG.standard_normal((2, 3)) + 1j).astype(np.complex128),), {"full_matrices": False}),
    ("qr", (RNG.standard_normal((3, 2)),), {"mode": "complete"}),
]


@pytest.mark.parametrize(
    ("op", "args", "kwargs"), CASES, ids=[f"{op}-{i}" for i, (op, _, _) in enumerate(CASES)]
)
def test_a_correct_result_that_differs_is_not_reported(op, args, kwargs):
    other = FactorsTheOtherWay()
    assert not np.allclose(
        last(other.call(op, args, kwargs)), last(NUMPY.call(op, args, kwargs))
    )  # it differs
    assert judged(other, op, *args, **kwargs) == set()


def test_a_broken_factor_names_the_property():
    x = RNG.standard_normal((3, 3))
    assert judged(QrRowSignFlipped(), "qr", x) == {("value", "reconstruction", "violated")}


def test_the_bound_states_the_measured_error():
    case = Case("qr", (RNG.standard_normal((3, 3)),), {})
    verdict = judge(NumPy(), case, QrRowSignFlipped().call("qr", case.args, {}), lambda *cell: None)
    (mismatch,) = verdict.mismatches
    assert "||A - Q R|| / (n eps ||A||) = " in mismatch.detail and "allowed 30" in mismatch.detail


def test_a_unique_result_is_compared_with_numpy():
    x = RNG.standard_normal((3, 2, 2))
    assert judged(DetBatchReversed(), "det", x) == {("value", "finite", "finite")}
    assert judged(NUMPY, "det", x) == set()


def test_a_control_is_no_fault():
    """detect runs a control only when named, and counts its divergences against it."""
    from compat.adapters.broken import CONTROLS, FAULTS
    from compat.harness.detect import fault_of

    assert all(getattr(c, "control", False) and c not in FAULTS for c in CONTROLS)
    assert fault_of(FactorsTheOtherWay.name).control
    assert not fault_of(QrRowSignFlipped.name).control
