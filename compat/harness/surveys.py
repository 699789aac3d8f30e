"""Survey cells: what a backend does, as text for a survey table (where there is no single
right answer, or to measure rather than judge). A spec asks ``xp.survey`` for one and passes it
to ``xp.observe``."""

from __future__ import annotations

import numpy as np

from compat.core import ops
from compat.core.case import Case
from compat.core.outcome import repr_scalar
from compat.core.programs import Program
from compat.harness.runner import timed
from compat.judge import oracle

PACKET = 16  # elements: more than a SIMD register holds of any dtype (AVX-512: 16 float32)


class Surveys:
    """The survey cells of one checker's row (compat.harness.checker.Checker: its backend,
    device, mode and runner; its NumPy reference; its ``check`` for an excess to judge)."""

    def __init__(self, checker) -> None:
        self.checker, self.runner = checker, checker.runner
        self.backend, self.device, self.mode = checker.backend, checker.device, checker.mode

    def call(self, case: Case):
        """The backend's outcome of ``case`` on the row's device and in its mode."""
        return self.runner.call(self.backend, case, self.device, self.mode)

    @timed
    def gradient_of(self, program: Program, shown: int = 0) -> str:
        """The backend's gradient of ``program`` with respect to input ``shown``, as text (surveys)."""
        outcome = self.call(Case("grad", program.inputs, program=program))
        if not outcome.raised and outcome.parts is not None:
            outcome = outcome.parts[shown]
        if outcome.raised:
            return f"raises {type(outcome.error).__name__}"
        return outcome.describe()

    @timed
    def accuracy_of(self, op: str, *args) -> str:
        """The backend's largest error on ``op(*args)`` (elementwise, real float result) in
        ULPs of the reference computed in wider precision, and where: a survey cell. Results
        flushed to zero where the reference is subnormal are counted apart (flush-to-zero is
        judged as such by the specs). Beyond the function's published accuracy
        (compat.core.ops.PUBLISHED_ULPS) the worst input is checked as a case of its own, so
        that the excess is judged, recorded and registered like any divergence."""
        case = Case(op, args)
        expected = self.checker.numpy.outcome(case)
        actual = self.call(case)
        if actual.raised or actual.values is None or actual.shape != expected.shape:
            return actual.describe() if actual.raised else f"shape {actual.shape}"
        if (
            actual.dtype != expected.dtype
        ):  # the promotion specs judge the dtype; ULPs of another dtype mean nothing
            return f"{actual.dtype} result, expected {expected.dtype}"
        flushed = oracle.flushed(expected.values, actual.values)
        errors = np.where(flushed, 0.0, oracle.ulp_errors(expected.values, actual.values))
        note = f"; {int(flushed.sum())} subnormal results flushed to zero" if flushed.any() else ""
        worst = int(np.argmax(errors))
        if errors[worst] == 0:
            return f"0 ULP (all {errors.size} inputs){note}"
        published = ops.published_ulps(op, str(expected.dtype))
        if published is not None and errors[worst] > published:
            self.judge_accuracy(op, args, worst, published)
        where = ", ".join(repr_scalar(np.asarray(a).reshape(-1)[worst]) for a in args)
        return f"{errors[worst]:.3g} ULP at {op}({where}){note}"

    def judge_accuracy(self, op: str, args: tuple, worst: int, published: float) -> None:
        """Check the worst input alone (a minimal example); where the backend computes a lone
        element differently (a vectorized kernel's scalar tail), a packet's worth of copies of
        it; failing that, the whole grid."""
        for copies in (1, PACKET):
            inputs = tuple(np.repeat(np.asarray(a).reshape(-1)[worst : worst + 1], copies) for a in args)
            actual = self.checker.check(op, *inputs)
            expected = self.checker.numpy.outcome(Case(op, inputs))
            if (
                not actual.raised
                and actual.values is not None
                and actual.dtype == expected.dtype
                and oracle.ulp_errors(expected.values, actual.values).max() > published
            ):
                return
        self.checker.check(op, *args)

    @timed
    def bits_of(self, op: str, *args, **kwargs) -> str:
        """The bits of the first element of the backend's ``op(*args, **kwargs)``, in hex with
        its dtype (surveys of NaN payloads); what it raised instead."""
        outcome = self.call(Case(op, args, kwargs))
        if outcome.raised or outcome.values is None or not np.asarray(outcome.values).size:
            return outcome.describe()
        value = np.asarray(outcome.values).reshape(-1)[:1]
        return f"{outcome.dtype} 0x{int(value.view(f'u{value.itemsize}')[0]):0{2 * value.itemsize}x}"

    @timed
    def under_policy(self, policy: str, op: str, *args) -> str:
        """``op(*args)`` under one of the backend's mixed-precision policies, as text (a survey
        cell): the result's dtype and how far it moved from the backend's own full-precision
        result (the largest difference relative to the largest magnitude, normwise)."""
        case = Case(op, args)
        full = self.call(case)
        try:
            with self.backend.policy(policy):
                low = self.call(case)
        except Exception as error:  # the policy itself could not be set: what the survey shows
            message = str(error).strip().splitlines()[0] if str(error).strip() else ""
            return f"policy unavailable: {type(error).__name__}: {message}"
        if full.raised or low.raised or low.values is None:
            return low.describe() if low.raised or full.raised else f"{low.dtype}"
        wide = np.complex128 if np.iscomplexobj(full.values) else np.float64
        reference, moved = np.asarray(full.values, wide), np.asarray(low.values, wide)
        scale = float(np.max(np.abs(reference), initial=0.0))
        error = float(np.max(np.abs(moved - reference), initial=0.0)) / (scale or 1.0)
        return f"{low.dtype}, " + (
            "the full-precision result" if error == 0 else f"{error:.2g} from full precision"
        )

    @timed
    def outcome_of(self, op: str, *args, **kwargs) -> str:
        """What the backend's ``op(*args, **kwargs)`` gives, as text (surveys of what NumPy leaves open)."""
        return self.call(Case(op, args, kwargs)).describe()

    @timed
    def across_devices(self, op: str, x: np.ndarray, y: np.ndarray) -> str:
        """What ``op(x, y)`` does with x on the device under test and y on the
        reference device, run under the device under test: raises, or where the result lands."""
        backend, reference = self.backend, self.checker.on_reference_device.device
        try:
            with backend.context(), backend.placement.scope(self.device):
                result = backend.function(op)(
                    backend.values.from_numpy(x, self.device), backend.values.from_numpy(y, reference)
                )
                return f"result on {backend.placement.device_of(result)}"
        except Exception as error:  # the behaviour being surveyed
            return f"raises {type(error).__name__}"
