"""The cases of numerics' float conversion tables (compat.specs.numerics): arrays of values each
dtype holds exactly, per pair of float dtypes the ties, overflow, special values and results below
the normal range of a narrowing conversion, and the extremes of a widening one."""

import numpy as np

from compat.core import dtypes


def exactly(name: str, values) -> np.ndarray:
    """``values`` (Python numbers, each exactly representable in ``name``) as an array of ``name``."""
    if name in dtypes.INTEGER or name == "bool":
        return np.array(values, dtype=object).astype(dtypes.to_numpy(name))
    array = np.array(values, dtype=np.float64)
    converted = array.astype(dtypes.to_numpy(name))
    assert np.array_equal(converted.astype(np.float64), array, equal_nan=True), (name, values)
    return converted


def gap(value: float, name: str) -> float:
    """The spacing of ``name`` floats in the binade of ``value``."""
    return float(dtypes.ulp(np.float64(value), name))


def narrowing_cases(source: str, target: str) -> dict[str, tuple[np.ndarray, str, bool]]:
    """float ``source`` -> narrower ``target``: each case one array (label -> (x, dtype, bit for bit)).
    The frameworks convert float64 to float16 and bfloat16 through float32, so the values
    beside the ties are ones float32 keeps; values float32 rounds onto a tie are a case of
    their own (NumPy rounds float64 to float16 once, and to bfloat16 through float32)."""
    info, one = dtypes.finfo(target), dtypes.eps(target)
    big, tiny, least = float(info.max), float(info.smallest_normal), float(info.smallest_subnormal)
    via = source if target == "float32" else "float32"

    def step(v):  # the gap of the values beside v (in float32 where the frameworks go through it)
        return gap(v, via)

    top = big + gap(big, target) / 2  # the tie between the largest float and the next power of two: inf
    cases = {
        "ties, overflow and special values": (
            [
                1 + one / 2,
                1 + 3 * one / 2,
                1 + one / 2 + step(1),
                1 + one / 2 - step(1),
                -(2 - one / 4),
                big,
                -big,
                top,
                -top,
                top - step(big),
                float(dtypes.finfo(source).max),
                np.nan,
                np.inf,
                -np.inf,
                -0.0,
                -least / 4,
            ],
            True,
        ),
        "results below the normal range": (
            [
                tiny / 2,
                least,
                least / 2,
                3 * least / 2,
                least / 2 + step(least / 2),
                tiny - least / 2,
                least / 4,
                -(tiny / 2 + least),
            ],
            False,
        ),
    }
    if source == "float64" and via == "float32":

        def nudge(v):  # lost in float32, which rounds v - nudge and v + nudge onto the tie v
            return gap(v, target) / 2**30

        above, below = [1 + one / 2, least / 2, 2**10 * (1 + one / 2)], [1 + 3 * one / 2, 3 * least / 2, top]
        cases["ties float32 rounds onto"] = (
            [t + nudge(t) for t in above]
            + [t - nudge(t) for t in below]
            + [-(1 + one / 2 + nudge(1)), -(top - nudge(top))],
            False,
        )
    return {
        f"{source} -> {target}: {label}": (exactly(source, values), target, exact)
        for label, (values, exact) in cases.items()
    }


def widening_case(source: str, target: str) -> dict[str, tuple[np.ndarray, str, bool]]:
    """float ``source`` -> wider ``target``: exact, the source's subnormals and extremes too."""
    info = dtypes.finfo(source)
    big, tiny, least = float(info.max), float(info.smallest_normal), float(info.smallest_subnormal)
    values = [least, -least, tiny / 2, big, -big, np.nan, -np.inf, -0.0]
    return {f"{source} -> {target}: exact": (exactly(source, values), target, False)}
