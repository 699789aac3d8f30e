"""The oracle: compares a backend's Outcome with the reference Outcome.

Rules, in order:
- error parity: one side raised and the other did not, or both raised but in
  different categories -> ``error`` (``crash`` or ``timeout`` when the backend's
  call killed its process or hung, see ``compat.harness.isolation``); both raised in
  the same category -> agree, unless NumPy and the standard agree on the exception's class
  there (compat.core.errortypes: IndexError, ValueError, TypeError) and the backend's is
  another -> ``error`` with the class names as signature ("IndexError" -> "RuntimeError");
- several results (parts) are compared one by one, an object's fields (finfo's) by name;
- the dtype must be equal (a dtype alone, result_type's answer, too) -> ``dtype``;
- the shape must be equal -> ``shape`` (values are not compared then);
- integers and bools must be equal; floats are judged in ULPs of the result, by
  the operation's ``Bound`` (``bound()``): an operation that IEEE 754 rounds
  correctly (compat.core.ops: ``correctly_rounded``) must give the reference's
  bits; an accumulation may differ by what the order of its terms can change
  (n * eps * sum of |terms|, not a share of |result|). That bound is for rounding,
  not for range: a partial result that overflows in the backend's order or accumulator
  where NumPy's result is finite (NumPy's float16 reductions accumulate in float32 and
  round once; a float16 accumulator passes 65504 and gives inf, or inf * 0 = NaN) is not
  accepted: the result is representable, so it is a ``value`` divergence (finite ->
  inf), to be registered per backend where known; a function whose accuracy
  math libraries publish by that accuracy (compat.core.ops: PUBLISHED_ULPS, per
  dtype), any other operation by ``ACCURACY_ULPS`` (both against a reference
  computed in wider precision and rounded once, see compat.judge.accurate). A ULP is the gap between neighbouring
  floats of the less precise of the two dtypes at the expected value (the
  smallest subnormal's at and near zero), so tiny results are judged as
  strictly as large ones; complex results by their modulus (normwise, the
  accepted standard). Where either side is not finite, each component must
  match, NaN matching NaN and infinities matching by sign -> ``value``. A real
  zero's sign must match too (``-0 -> +0``, "sign of zero") wherever it is fixed
  (``Op.zero_sign_fixed``: IEEE 754's rules, the standard's special cases, copies,
  rounding, negative, abs, copysign); where an accumulation's order decides it, or the
  standard leaves it open (maximum and minimum of -0 and +0, unique's representative),
  -0.0 equals 0.0 as in IEEE comparison. A complex result's zeros are judged by
  modulus like its other values (complex arithmetic's zero signs depend on the
  algorithm; the standard's complex special cases fix some). ``Exactness.BITS`` (for
  copies, which must be bit-exact) compares bit patterns instead;
  ``Exactness.COMPUTED`` (a device against its reference device, a mode against eager) too, except
  that any NaN matches any NaN: IEEE 754 leaves the payload of a computed NaN open.

Each mismatch carries a shrink-stable signature (``expected``/``actual``: a
dtype, an error category, or the class of the first differing value) used to
deduplicate and to match the known-divergence registry, and a human detail.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from compat.core import dtypes, errortypes, ops
from compat.core.outcome import Outcome, repr_scalar

ACCURACY_ULPS = 4  # other operations that are not correctly rounded: the math libraries' usual bound


@dataclass(frozen=True)
class Bound:
    """The error a float result may have, per element: ``ulps`` ULPs of the expected
    value (``published``'s for a dtype it names), plus ``eps * terms`` (an accumulation:
    n times the sum of |terms|)."""

    ulps: float
    terms: np.ndarray | float = 0.0
    rule: str = ""
    published: tuple[tuple[str, float], ...] = ()  # (dtype, ULPs) where a function's accuracy is published
    signed_zeros: bool = False  # -0.0 and +0.0 differ in a real result (Op.zero_sign_fixed)

    def ulps_for(self, dtype: str) -> float:
        return dict(self.published).get(dtype, self.ulps)


EXACT = Bound(0, rule="correctly rounded: the reference's value")
# the modulus of a complex number, hypot(re, im): IEEE 754 does not require it correctly rounded,
# and NumPy's own is not (its SIMD loop gives |1.5+1j| = 1.8027756377319948, 0.6 ULP off, where
# the correctly rounded 1.8027756377319946 is libm's hypot and torch's): within 1 ULP
MODULUS = Bound(1, rule="1 ULP (a complex modulus)")
APPROXIMATE = Bound(ACCURACY_ULPS, rule=f"{ACCURACY_ULPS} ULP")
# a program (a gradient) compounds the rounding of its operations, and its sums may cancel:
# relative to its result the error has no bound, so it also gets ACCURACY_ULPS eps absolute
PROGRAM = Bound(ACCURACY_ULPS, ACCURACY_ULPS, f"{ACCURACY_ULPS} ULP + {ACCURACY_ULPS} eps (a program)")


def bound(op: str, args: tuple = (), kwargs: dict | None = None) -> Bound:
    """How closely ``op(*args, **kwargs)`` must match the reference (see the module's rules)."""
    allowed = rounding_bound(op, args, kwargs)
    return replace(allowed, signed_zeros=True) if ops.get(op).zero_sign_fixed else allowed


def rounding_bound(op: str, args: tuple, kwargs: dict | None) -> Bound:
    declared = ops.get(op)
    if declared.correctly_rounded:
        if (declared.computes or op) in ("abs", "__abs__") and any(np.iscomplexobj(a) for a in args):
            return MODULUS  # abs is exact for real numbers only
        return EXACT
    if declared.accumulates and declared.terms is not None and args:
        wide = [np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64) for a in args]
        try:
            with np.errstate(
                all="ignore"
            ):  # 0 * inf in a product of magnitudes is NaN: no bound, judged as special
                magnitude, count = declared.terms(
                    *wide, **{k: v for k, v in (kwargs or {}).items() if k != "dtype"}
                )
        except (ValueError, TypeError, IndexError):  # arguments NumPy refuses: no values to bound
            return APPROXIMATE
        per_term = 1.0 if declared.accuracy is None else declared.accuracy  # a user's declared ULPs
        return Bound(
            per_term,
            count * np.asarray(magnitude),
            f"{per_term:g} ULP + {count}*eps*sum(|terms|) ({count} terms)",
        )
    if declared.accuracy is not None:  # a user's own function: the accuracy its author declares
        return Bound(declared.accuracy, rule=f"{declared.accuracy:g} ULP, as declared")
    if declared.ulps is not None:
        published = tuple(
            (d, ulps) for d in dtypes.REAL_FLOAT if (ulps := ops.published_ulps(op, d)) is not None
        )
        return Bound(ACCURACY_ULPS, rule=f"{op}'s published accuracy", published=published)
    return APPROXIMATE


class Exactness(Enum):
    """How values are compared: within the ``Bound``, or bit for bit (see the module's rules)."""

    WITHIN_BOUND = "within the bound"
    BITS = "bit for bit"  # NaN payloads included: a copy keeps them
    COMPUTED = "bit for bit, any NaN matching any NaN"  # IEEE 754 leaves a computed NaN's payload open


@dataclass(frozen=True)
class Mismatch:
    kind: str  # dtype | shape | value | error | crash | timeout
    expected: str
    actual: str
    detail: str
    part: int | None = None  # which result, for calls that return several (gradients of x0, x1, ...)
    within: str = ""  # the clause of the device's contract that allows it (compat.core.contracts)


def compare(
    expected: Outcome,
    actual: Outcome,
    allowed: Bound = APPROXIMATE,
    exactness: Exactness = Exactness.WITHIN_BOUND,
) -> list[Mismatch]:
    if expected.raised or actual.raised:
        return compare_errors(expected, actual)
    if expected.parts is not None or actual.parts is not None:
        return compare_parts(expected, actual, allowed, exactness)
    found = []
    if expected.dtype != actual.dtype:
        found.append(
            Mismatch(
                "dtype",
                str(expected.dtype),
                str(actual.dtype),
                f"dtype {actual.dtype}, expected {expected.dtype}",
            )
        )
    if expected.shape != actual.shape:
        found.append(Mismatch("shape", "shape", "shape", f"shape {actual.shape}, expected {expected.shape}"))
        return found
    if expected.values is not None and actual.values is not None:
        if exactness is not Exactness.WITHIN_BOUND:
            value = compare_bits(expected.values, actual.values, nan_payloads=exactness is Exactness.BITS)
        else:
            value = compare_values(expected.values, actual.values, allowed, expected.tolerance)
        if value:
            found.append(value)
    return found


def without_values(outcome: Outcome) -> Outcome:
    """The outcome as far as an operation whose values are unspecified (``empty``) fixes it:
    its dtype, shape and device (every part's, for a call that returns several)."""
    parts = None if outcome.parts is None else [without_values(p) for p in outcome.parts]
    return replace(outcome, values=None, parts=parts)


def compare_parts(expected: Outcome, actual: Outcome, allowed: Bound, exactness: Exactness) -> list[Mismatch]:
    """Several results (one gradient per input), compared one by one; an object's fields (finfo's
    ``names``) each by its name, which their signatures carry (``eps: finite``)."""
    want = expected.parts if expected.parts is not None else [expected]  # none at all is a result too
    got = actual.parts if actual.parts is not None else [actual]
    if len(want) != len(got):
        return [Mismatch("shape", "shape", "shape", f"{len(got)} results, expected {len(want)}")]
    found = []
    for part, (e, a) in enumerate(zip(want, got)):
        name = expected.names[part] if expected.names else None
        found += [
            replace(m, part=part, detail=f"result {part}: {m.detail}")
            if name is None
            else replace(
                m,
                part=part,
                detail=f"{name}: {m.detail}",
                expected=f"{name}: {m.expected}",
                actual=f"{name}: {m.actual}",
            )
            for m in compare(e, a, allowed, exactness)
        ]
    return found


def compare_errors(expected: Outcome, actual: Outcome) -> list[Mismatch]:
    """Both raised: their categories must agree, unless the two errors are of one class (or the
    backend's is a class NumPy's derives from): categories read from two messages then differ by
    wording only (ValueError on both sides, one message naming a shape, the other a value). One
    raised: an ``error`` divergence."""
    want, got = expected.category, actual.category
    if want == got or (
        expected.error is not None
        and actual.error is not None
        and got not in ("crash", "timeout", "unsupported")
        and errortypes.same_class(expected.error, actual.error)
    ):
        return error_type_mismatch(expected, actual)
    kind = got if got in ("crash", "timeout") else "error"
    return [Mismatch(kind, want, got, f"{actual.describe()}; expected {expected.describe()}")]


def error_type_mismatch(expected: Outcome, actual: Outcome) -> list[Mismatch]:
    """Both raised in one category: where NumPy and the standard agree on the exception's class
    (compat.core.errortypes), the backend's must be it or a subclass."""
    wanted = errortypes.expected_type(expected.category, expected.error)
    if wanted is None or actual.error is None or errortypes.conforms(actual.error, wanted):
        return []
    got = errortypes.error_name(actual.error)
    return [Mismatch("error", wanted.__name__, got, f"{actual.describe()}; expected {expected.describe()}")]


def compare_values(
    expected: np.ndarray,
    actual: np.ndarray,
    allowed: Bound = APPROXIMATE,
    tolerance: np.ndarray | None = None,
    only: np.ndarray | None = None,
) -> Mismatch | None:
    """``tolerance``, where given, is the allowed absolute error per element
    (gradients: set from the finite-difference error and the dtype's precision); ``only``,
    where given, the elements to judge (the others are explained by something else)."""
    bad, how = judged(expected, actual, allowed, tolerance, only)
    return value_mismatch(expected, actual, bad, how) if bad.any() else None


def differing(expected: np.ndarray, actual: np.ndarray, allowed: Bound = APPROXIMATE) -> np.ndarray:
    """Which elements compare_values finds beyond ``allowed`` (a boolean mask)."""
    return judged(expected, actual, allowed, None)[0]


def judged(
    expected: np.ndarray,
    actual: np.ndarray,
    allowed: Bound,
    tolerance: np.ndarray | None,
    only: np.ndarray | None = None,
) -> tuple[np.ndarray, str]:
    """The elements beyond the bound (of ``only``, where given), and how they were judged (the
    mismatch's detail, over those elements)."""
    only = np.ones(np.shape(expected), dtype=bool) if only is None else only
    kinds = {expected.dtype.kind, actual.dtype.kind}
    if kinds <= set("biu"):
        return np.asarray(expected.astype(object) != actual.astype(object), dtype=bool) & only, "exact"
    if "c" in kinds and allowed.ulps == 0:
        allowed = APPROXIMATE  # IEEE 754 rounds each real operation; a complex product or quotient is several
    coarse, fine = least_precise(expected.dtype, actual.dtype), most_precise(expected.dtype, actual.dtype)
    e = expected.astype(np.complex128 if "c" in kinds else np.float64)
    a = actual.astype(e.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(e) & np.isfinite(a)  # complex: both components finite
        error = np.where(finite, np.abs(a - e), 0.0)  # complex: the modulus of the difference
        unit = dtypes.ulp(np.where(finite, e, 0.0), coarse)
        if tolerance is not None:
            limit = np.broadcast_to(tolerance, e.shape)
        else:
            # two dtypes: each side rounds its own, so half a ULP of the finer one is the other's share
            limit = allowed.ulps_for(coarse) * unit + dtypes.eps(coarse) * np.asarray(allowed.terms)
            if fine != coarse:
                limit = limit + 0.5 * unit + 0.5 * dtypes.ulp(np.where(finite, e, 0.0), fine)

        def part_agrees(pe: np.ndarray, pa: np.ndarray) -> np.ndarray:
            # a finite component beside an infinite or NaN one (inf + pi/4 j) gets its own ULPs
            close = pe == pa
            if tolerance is None:
                part_unit = dtypes.ulp(np.where(np.isfinite(pe), pe, 0.0), coarse)
                part_limit = allowed.ulps_for(coarse) * part_unit
                if fine != coarse:
                    part_limit = (
                        part_limit
                        + 0.5 * part_unit
                        + 0.5 * dtypes.ulp(np.where(np.isfinite(pe), pe, 0.0), fine)
                    )
                close = close | (np.abs(pa - pe) <= part_limit)
            return same_special(pe, pa) | (np.isfinite(pe) & close)

        special = part_agrees(np.real(e), np.real(a))
        if e.dtype.kind == "c":
            special &= part_agrees(np.imag(e), np.imag(a))
        bad = np.asarray(np.where(finite, error > limit, ~special), dtype=bool) & only
        if allowed.signed_zeros and tolerance is None and "c" not in kinds:
            bad |= zero_signs_differ(e, a) & only
        error = np.where(only, error, 0.0)
        ulp_distance = np.where(finite & only, error / unit, 0.0)
    stated = f"{allowed.rule}, {allowed.ulps_for(coarse):g} ULP" if allowed.published else allowed.rule
    rule = (
        f"{stated}, ULPs of {coarse}"
        if tolerance is None
        else f"up to {np.max(tolerance, initial=0.0):.3g} (finite-difference error and {coarse} precision)"
    )
    return (
        bad,
        f"max abs error {error.max(initial=0.0):.3g}, max {ulp_distance.max(initial=0.0):.3g} ULP; allowed {rule}",
    )


def ulp_errors(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Distance of each real float result from the reference in ULPs of the less precise
    dtype at the expected value; 0 where both agree on a special value, inf where only
    one side is finite or they disagree on one."""
    coarse = least_precise(expected.dtype, actual.dtype)
    e, a = expected.astype(np.float64), actual.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(e) & np.isfinite(a)
        distance = np.abs(a - e) / dtypes.ulp(np.where(finite, e, 0.0), coarse)
        agree = same_special(e, a)
    return np.where(finite, distance, np.where(agree, 0.0, np.inf))


def flushed(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Where a real float result is zero and the reference is a subnormal of the result dtype
    (flush-to-zero, a property of the device or compiler, not of the function's accuracy)."""
    return (
        (actual == 0)
        & (expected != 0)
        & (dtypes.flushed(expected, least_precise(expected.dtype, actual.dtype)) == 0)
    )


def compare_bits(expected: np.ndarray, actual: np.ndarray, nan_payloads: bool = True) -> Mismatch | None:
    """Bit-for-bit equality (same dtype and shape assumed): -0.0, NaN payloads and
    all; without ``nan_payloads``, a NaN matches any NaN."""
    if expected.dtype != actual.dtype:
        return compare_values(expected, actual, EXACT)
    as_bytes = np.dtype(f"V{expected.dtype.itemsize}")
    bad = np.asarray(expected.view(as_bytes) != actual.view(as_bytes), dtype=bool).reshape(expected.shape)
    if not nan_payloads and expected.dtype.kind in "fcV":  # V: ml_dtypes' bfloat16
        wide = np.complex128 if expected.dtype.kind == "c" else np.float64
        bad &= ~(np.isnan(expected.astype(wide)) & np.isnan(actual.astype(wide)))
    return value_mismatch(expected, actual, bad, "bit-exact") if bad.any() else None


def zero_signs_differ(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Where both are zeros of opposite signs."""
    return (expected == 0) & (actual == 0) & (np.signbit(expected) != np.signbit(actual))


def same_special(pe: np.ndarray, pa: np.ndarray) -> np.ndarray:
    """NaN matches NaN; infinities match infinities of the same sign."""
    return (np.isnan(pe) & np.isnan(pa)) | (np.isinf(pe) & np.isinf(pa) & (np.sign(pe) == np.sign(pa)))


def least_precise(*dtype_list) -> str:
    return max(floats_of(dtype_list), key=dtypes.eps)


def most_precise(*dtype_list) -> str:
    return min(floats_of(dtype_list), key=dtypes.eps)


def floats_of(dtype_list) -> list[str]:
    return [np.dtype(d).name for d in dtype_list if np.dtype(d).name in dtypes.FLOATING]


def value_class(value) -> str:
    """Shrink-stable class of a value: nan, +inf, -inf, +0, -0 or finite."""
    if np.iscomplexobj(value):
        return "complex-" + "/".join(value_class(p) for p in (np.real(value), np.imag(value)))
    if value.dtype.kind in "biu":
        return "finite"
    v = float(value)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "+inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if np.signbit(v) else "+0"
    return "finite"


def value_mismatch(expected: np.ndarray, actual: np.ndarray, bad: np.ndarray, how: str) -> Mismatch:
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    want, got = expected[index], actual[index]
    where = f"index {index}" if index else "the 0-d result"
    if {value_class(want), value_class(got)} == {"+0", "-0"}:
        how = f"sign of zero; {how}"
    detail = (
        f"{int(bad.sum())} of {bad.size} values differ ({how}); "
        f"first at {where}: expected {repr_scalar(want)}, got {repr_scalar(got)}"
    )
    return Mismatch("value", value_class(want), value_class(got), detail)
