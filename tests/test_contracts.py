"""A device is judged by its contract (compat.core.contracts), not by its CPU's bits: a difference
a clause allows is marked with it (status contract), one beyond it stays a divergence."""

from __future__ import annotations

import numpy as np

from compat.adapters import load_adapter
from compat.core import contracts
from compat.core.case import Case
from compat.core.outcome import Outcome
from compat.harness.checker import Checker, Session
from compat.judge import Role, judge
from compat.judge.accurate import accurate
from compat.results.registry import load

NUMPY = load_adapter("numpy")
X = np.array([0.1, 0.7, 2.5], np.float32)


class CPU:
    """The backend on its reference device: here NumPy's own float32 results, bit for bit."""

    role = Role.DEVICE
    id = "device:cpu:0"

    def outcome(self, case):
        return NUMPY.call(case.op, case.args, case.kwargs)


def truth(case: Case) -> Outcome:
    return accurate(NUMPY, case, NUMPY.call(case.op, case.args, case.kwargs))


def off_by(outcome: Outcome, ulps: int) -> Outcome:
    """The outcome with its first value ``ulps`` floats away from the correctly rounded one."""
    values = outcome.values.copy()
    for _ in range(ulps):
        values[0] = np.nextafter(values[0], np.float32(np.inf))
    return Outcome(values=values, dtype=outcome.dtype, shape=outcome.shape)


def on_cuda(case: Case, actual: Outcome, contract=contracts.TORCH_CUDA):
    return judge(CPU(), case, actual, lambda *cell: None, contract=contract, truth_of=truth)


def test_cuda_math_within_its_published_ulps_is_within_the_contract():
    """CUDA's expf is within 2 ULP of the correctly rounded result: a GPU 2 ULP from it differs
    from the CPU's bits, as the contract allows; 3 ULP is beyond it."""
    case = Case("exp", (X,))
    (within,) = on_cuda(case, off_by(truth(case), 2)).mismatches
    assert (
        within.kind == "value"
        and "CUDA math library" in within.within
        and "exp of float32 within 2" in (within.within)
    ), within
    (beyond,) = on_cuda(case, off_by(truth(case), 3)).mismatches
    assert beyond.kind == "value" and not beyond.within, beyond
    (no_contract,) = on_cuda(case, off_by(truth(case), 1), contract=None).mismatches  # the CPU's bits
    assert not no_contract.within


def test_xla_gpu_power_is_judged_by_cudas_pow():
    """JAX's accuracy page lists no power; XLA's GPU backend calls libdevice's pow, within 2 ULP in
    float64: 3.0 ** True was 2.9999999999999996 on an H200 (jax 0.11.2), 3.0 on its CPU."""
    case = Case("power", (np.array([2.0, 3.0, 5.0]), np.array([True, True, True])))
    gpu = Outcome(values=np.array([2.0, 2.9999999999999996, 5.0]), dtype="float64", shape=(3,))
    (within,) = on_cuda(case, gpu, contract=contracts.XLA_GPU).mismatches
    assert "XLA's GPU power is CUDA's pow" in within.within, within
    (beyond,) = on_cuda(case, off_by_float64(gpu, 2), contract=contracts.XLA_GPU).mismatches
    assert not beyond.within, beyond


def off_by_float64(outcome: Outcome, ulps: int) -> Outcome:
    values = outcome.values.copy()
    for _ in range(ulps):
        values[1] = np.nextafter(values[1], -np.inf)
    return Outcome(values=values, dtype=outcome.dtype, shape=outcome.shape)


def test_a_clause_speaks_only_of_its_operations_dtypes_and_operands():
    """torch's division by a Python number (a multiplication by its reciprocal) may be 1 ULP off;
    division of two arrays is correctly rounded on CUDA, and must be."""
    by_number = Case("true_divide", (X, 7.0))
    (within,) = on_cuda(by_number, off_by(truth(by_number), 1)).mismatches
    assert "reciprocal" in within.within, within
    two_arrays = Case("true_divide", (X, np.full(3, 7.0, np.float32)))
    (beyond,) = on_cuda(two_arrays, off_by(truth(two_arrays), 1)).mismatches
    assert not beyond.within, beyond


def test_a_sign_of_zero_or_a_nan_is_no_matter_of_ulps():
    case = Case("sin", (np.array([0.0, 1.0], np.float32),))
    negative_zero = Outcome(values=np.array([-0.0, np.sin(np.float32(1.0))], np.float32), dtype="float32")
    negative_zero.shape = (2,)
    for mismatch in on_cuda(case, negative_zero).mismatches:
        assert not mismatch.within, mismatch


def test_subnormals_flushed_are_within_cupys_contract_and_not_torchs():
    """CuPy compiles its kernels with -ftz=true: a float32 subnormal result read as zero differs from
    NumPy by its contract; torch on CUDA keeps subnormals, and so must."""
    tiny = np.finfo(np.float32).smallest_subnormal
    case = Case("multiply", (np.array([tiny * 4], np.float32), np.float32(0.5)))
    zero = Outcome(values=np.array([0.0], np.float32), dtype="float32", shape=(1,))
    numpy = NumPyReference()
    (flushed,) = judge(numpy, case, zero, lambda *cell: None, contract=contracts.CUPY).mismatches
    assert (flushed.expected, flushed.actual) == ("subnormal", "flushed") and "-ftz=true" in flushed.within
    (kept,) = judge(numpy, case, zero, lambda *cell: None, contract=contracts.TORCH_CUDA).mismatches
    assert not kept.within


class NumPyReference:
    role = Role.SEMANTIC
    id = "numpy"

    def outcome(self, case):
        return truth(case)


def test_each_row_has_the_contract_of_its_device():
    assert contracts.of("torch", "cuda:0") is contracts.TORCH_CUDA
    assert contracts.of("jax", "gpu:0") is contracts.XLA_GPU
    assert contracts.of("cupy", "cuda:0") is contracts.CUPY
    assert contracts.of("torch", "cpu:0") is None and contracts.of("torch", None) is None


def test_a_difference_within_the_contract_is_a_record_of_its_own_status():
    """Through the checker: the record's status is contract, with the clause; never new."""
    session = Session(NUMPY, load(None))
    checker = Checker(load_adapter("tests.broken_adapters:TwoDeviceKinds"), "numerics", "spec", session)
    checker.contract = contracts.Contract(
        "a test device",
        (),
        (contracts.Clause("x / y within 2 ULP", "here", ("true_divide",), ("float32",), 2),),
    )
    case = Case("true_divide", (X, np.full(3, 7.0, np.float32)))  # IEEE 754 rounds it: NumPy's bits are due
    checker._judged(case, actual=off_by(truth(case), 1))
    (record,) = checker.ledger.records([], COMMON, [])
    assert (record.status, record.contract, record.known) == ("contract", "x / y within 2 ULP (here)", None)


COMMON = {
    "run_id": "run-1",
    "worker": "main",
    "family": "numerics",
    "spec": "spec",
    "backend": None,
    "device": None,
}


def test_a_dtype_the_backend_has_not_is_counted_once_per_case_not_checked():
    """array_api_strict has the standard's dtypes only: a case holding float16 (here inside the
    arrays concatenate joins) is not called, and counts as 'dtype float16' with the reason."""
    session = Session(NUMPY, load(None))
    strict = Checker(load_adapter("array-api:array_api_strict"), "manipulation", "spec", session)
    halves = (np.zeros(2, np.float16), np.ones(1, np.float32))
    strict.check("concatenate", halves)
    strict.check("add", np.ones(2, np.float16), np.ones(2, np.float16))
    strict.check("add", np.ones(2, np.float32), np.ones(2, np.float32))
    assert strict.ledger.unsupported == {
        "dtype float16": "array_api_strict has no dtype float16 (none in its dtypes(), no xp.float16)"
    }
    assert strict.ledger.unsupported_cases == {"dtype float16": 2}
    assert strict.ledger.cases == {"add": 1} and not strict.ledger.seen
