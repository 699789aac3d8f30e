"""The Array API standard's elementwise special cases as data (special-cases.toml), with
operand values that meet each clause and the result the standard states for them.

special-cases.toml is generated from the standard's text by tools/special_cases.py: one
``[[case]]`` per ``- If`` clause of elementwise_functions.py (2025.12), with ``function``,
``standard``, ``section``, ``clause`` (verbatim), ``operands`` and, where the vocabulary
below expresses it, ``when`` and ``result``; else ``unparsed`` says why.

Vocabulary of ``when`` (operand -> condition):
  operands  ``x`` (unary), ``x1``/``x2`` (binary), ``a``/``b`` = real/imag of ``x`` (complex
            unary), ``a``/``b``/``c``/``d`` = real/imag of ``x1``/``x2`` (complex binary);
            ``"p|q"`` (or ``"a|b|c|d"``): at least one of them meets the condition;
            ``"x1,x2"``: a relation between the two: ``"same sign"``, ``"different sign"``,
            ``"=="``, ``"!="``.
  values    ``NaN``, ``+0``, ``-0``, ``±0`` (either zero), ``+infinity``, ``-infinity``,
            ``±infinity``, ``1``, ``-1``
  order     ``< k``, ``> k``, ``!= k`` (k a number; ``!= k`` holds for NaN), ``abs < 1``,
            ``abs > 1``, ``abs = 1`` (of the operand's magnitude)
  kinds     ``finite``, ``nonzero`` (a number other than zero), ``integer`` (finite and
            integer-valued), ``odd integer``, ``half integer`` (halfway between two
            integers), ``signbit 0``/``signbit 1``, ``any`` (any value, NaN included),
            ``= -x1`` (x2 is the negation of x1)
  joined    ``A & B`` (both), ``A | B`` (either), ``!A`` (not)
Vocabulary of ``result``:
  a value   ``NaN``, ``+0``, ``-0``, ``0`` (a zero of either sign), ``+infinity``,
            ``-infinity``, ``1``, ``-1``, ``True``, ``False``, ``NaN & signbit k``
  an operand ``x``, ``x1``, ``x2``, ``-x1``, ``abs(x1)``, ``-abs(x1)``, ``abs(x2)``,
            ``abs(a)``, ``abs(b)``
  ``~+pi/2`` an implementation-dependent approximation to the constant (no value checked)
  ``sign +``/``sign -`` only the result's sign is stated (no value checked)
  ``infinity, sign of x1*x2`` an infinity whose sign is the product of the operands' signs
  ``even integer nearest x`` (round's ties)
  complex   ``RE S IM j``: RE a signed value (``+0``, ``±infinity``, ``+pi/2``, ``NaN``, ...),
            S the sign of the imaginary part (``+``, ``-``, ``±`` unspecified), IM its
            magnitude (``0``, ``infinity``, ``NaN``, ``pi/4``, ...); ``±`` marks a sign the
            standard leaves unspecified; or ``+infinity * cis(b)``, ``+0 * cis(b)`` (``- 1.0``).
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from compat.core import ops

DATA = Path(__file__).with_name("special-cases.toml")
OPERAND_NAMES = {
    "real unary": ("x",),
    "real binary": ("x1", "x2"),
    "complex unary": ("a", "b"),
    "complex binary": ("a", "b", "c", "d"),
}
DTYPES = {"real": ("float32", "float64"), "complex": ("complex64", "complex128")}
DEFAULT = (1.5, -2.5)  # an operand the clause does not name


@dataclass(frozen=True)
class Case:
    function: str  # the standard's name
    standard: str
    section: str
    clause: str
    operands: str
    when: dict[str, str] = field(default_factory=dict)
    result: str | None = None
    unparsed: str | None = None

    @property
    def op(self) -> str | None:
        """compat's table name for the function, or None where the table lacks it."""
        return TABLE_NAMES.get(self.function)

    @property
    def dtypes(self) -> tuple[str, ...]:
        return DTYPES[self.operands.split()[0]]


TABLE_NAMES = {op.standard_name: op.name for op in ops.TABLE}


def load(path: Path = DATA) -> list[Case]:
    with path.open("rb") as f:
        return [Case(**entry) for entry in tomllib.load(f)["case"]]


CASES: list[Case] = load()


def _samples(dtype: str) -> dict[str, list[float]]:
    """Values of each condition of the vocabulary that occurs on one operand. Orderings sample
    finite values, and ``finite`` nonzero ones: zeros and infinities have clauses of their own
    that come first in the standard's lists. The smallest value is the smallest normal one: a
    subnormal operand measures a backend's flush to zero (TensorFlow's and XLA's CPU kernels,
    registered in other families), not the clause, and would bury each clause's divergence."""
    f = np.finfo(dtype)
    tiny, big = float(f.smallest_normal), float(f.max)
    odd = float(2 ** (f.nmant + 1) - 1)  # the largest odd integer of the format
    nan = float("nan")
    inf = float("inf")
    return {
        "NaN": [nan],
        "+0": [0.0],
        "-0": [-0.0],
        "±0": [0.0, -0.0],
        "+infinity": [inf],
        "-infinity": [-inf],
        "±infinity": [inf, -inf],
        "1": [1.0],
        "-1": [-1.0],
        "< 0": [-1.5, -tiny, -big],
        "> 0": [1.5, tiny, big],
        "< 0 & finite": [-1.5, -tiny, -big],
        "> 0 & finite": [1.5, tiny, big],
        "< 1": [0.5, 0.0, -1.5, -big],
        "< -1": [-1.5, -big],
        "> 1": [1.5, big],
        "abs < 1": [0.5, -0.5, tiny, 0.0],
        "abs > 1": [1.5, -1.5, big, -big],
        "abs = 1": [1.0, -1.0],
        "finite": [1.5, -2.5, tiny, big],
        "nonzero & finite": [1.5, -2.5, tiny, -big],
        "nonzero": [1.5, -2.5],
        "finite | NaN": [1.5, -2.5, nan],
        # "any value": infinities left out, as an earlier clause has them (sqrt: b = +infinity)
        "any": [1.5, -2.5, 0.0, nan],
        "!NaN": [1.5, -2.5, -0.0, inf, -inf],
        "!= 0": [1.5, -2.5, inf, nan],
        "!= 1": [1.5, -2.5, 0.0, nan],
        "integer": [1.0, -3.0, odd, -big],
        "finite & !integer": [1.5, -0.5, tiny],
        "> 0 & odd integer": [1.0, 3.0, odd],
        "< 0 & odd integer": [-1.0, -3.0, -odd],
        "> 0 & !odd integer": [2.0, 0.5, big, tiny],
        "< 0 & !odd integer": [-2.0, -0.5, -big],
        "half integer": [0.5, 2.5, -1.5, -0.5],
        "NaN & signbit 1": [-abs(nan)],
        "NaN & signbit 0": [abs(nan)],
    }


def _pairs(relation: str, dtype: str) -> list[tuple[float, float]]:
    """(x1, x2) pairs of a relation between the operands; each pair also meets the
    single-operand conditions the standard joins to that relation."""
    f = np.finfo(dtype)
    tiny, big = float(f.smallest_normal), float(f.max)  # normal: see _samples
    return {
        "same sign": [(1.5, 2.5), (-1.5, -2.5), (tiny, big)],
        "different sign": [(1.5, -2.5), (-1.5, 2.5), (-tiny, big)],
        "==": [(1.5, 1.5), (-big, -big), (0.0, -0.0)],
        "!=": [(1.5, 2.5), (-big, big)],
        "= -x1": [(1.5, -1.5), (-big, big), (tiny, -tiny)],
    }[relation]


def _rows(case: Case, dtype: str) -> list[dict[str, float]]:
    names = OPERAND_NAMES[case.operands]
    samples = _samples(dtype)
    choices: dict[str, list[float]] = {n: list(DEFAULT) for n in names}
    pairs = None
    either: tuple[list[str], list[float]] | None = None
    for key, condition in case.when.items():
        if key == "x1,x2" or condition == "= -x1":
            pairs = _pairs(condition, dtype)
        elif "|" in key:
            either = (key.split("|"), samples[condition])
        else:
            choices[key] = samples[condition]
    rows = [dict(zip(names, values, strict=True)) for values in itertools.product(*choices.values())]
    if pairs is not None:
        rows = [{**row, "x1": p, "x2": q} for row in rows[:1] for p, q in pairs]
    if either is not None:
        keys, values = either
        rows = [
            {**row, **{k: (v if k in chosen else DEFAULT[0]) for k in keys}}
            for row in rows[:1]
            for chosen in [*([k] for k in keys), keys]
            for v in values
        ]
    return rows


def inputs(case: Case, dtype: str) -> tuple[np.ndarray, ...]:
    """Operand arrays (one element per sample) that meet the case's condition."""
    rows = _rows(case, dtype)
    if case.operands.startswith("real"):
        return tuple(np.array([row[n] for row in rows], dtype=dtype) for n in OPERAND_NAMES[case.operands])
    out = []
    for re_name, im_name in (("a", "b"), ("c", "d"))[: len(OPERAND_NAMES[case.operands]) // 2]:
        z = np.zeros(len(rows), dtype=dtype)
        z.real = [row[re_name] for row in rows]  # assigned apart: signed zeros and NaN stay
        z.imag = [row[im_name] for row in rows]
        out.append(z)
    return tuple(out)


# operands a clause does not name but the function takes: clip's bounds (its clauses are on x)
BOUNDS = {"clip": (-1.0, 1.0)}


def clauses_of(op: str, dtype: str) -> list[Case]:
    """The parsed clauses of compat's operation ``op`` in ``dtype``'s kind (real or complex)."""
    kind = "complex" if dtype.startswith("complex") else "real"
    return [c for c in CASES if c.op == op and c.unparsed is None and c.operands.startswith(kind)]


def operands(op: str, dtype: str) -> tuple[tuple[np.ndarray, ...], list[Case]]:
    """Every clause of ``op`` in ``dtype``'s kind, its operands one after the other (one call
    checks them all), and the clause each element meets."""
    parts = [(inputs(case, dtype), case) for case in clauses_of(op, dtype)]
    args = tuple(np.concatenate(columns) for columns in zip(*(p for p, _ in parts), strict=True))
    per_element = [case for p, case in parts for _ in range(len(p[0]))]
    bounds = tuple(np.full(args[0].shape, b, dtype=dtype) for b in BOUNDS.get(op, ()))
    return args + bounds, per_element


def elementwise(args: tuple) -> tuple[np.ndarray, ...]:
    """The operands as arrays, element ``i`` of each for element ``i`` of the call: a Python scalar
    (the standard lets one stand for an array) as an array of the arrays' shape and dtype."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    if not arrays:
        return tuple(np.asarray(a) for a in args)
    shape, dtype = arrays[0].shape, arrays[0].dtype
    return tuple(a if isinstance(a, np.ndarray) else np.full(shape, a, dtype=dtype) for a in args)


def clauses_met(op: str, args: tuple) -> list[Case | None]:
    """The clause each element of ``args`` (operands as ``operands`` builds them, or a subset of
    them: a record's minimal example; a Python scalar standing for one of them) was built to meet,
    found by its bits: the first in the standard's order; None for an element no clause's operands
    hold."""
    args = elementwise(args)
    if not args or not isinstance(args[0], np.ndarray) or args[0].ndim != 1:
        return []
    full, per_element = operands(op, args[0].dtype.name)
    first: dict[tuple, Case] = {}
    for i, case in enumerate(per_element):
        first.setdefault(tuple(a[i].tobytes() for a in full), case)
    return [first.get(tuple(np.asarray(a)[i].tobytes() for a in args)) for i in range(len(args[0]))]


PI = {"pi": np.pi, "pi/2": np.pi / 2, "pi/4": np.pi / 4, "3pi/4": 3 * np.pi / 4}
PART = re.compile(r"^(NaN|[+-±]?(?:0|1|infinity|3?pi(?:/\d)?)) ([+-±]) (NaN|0|infinity|3?pi(?:/\d)?) j$")


def _value(token: str) -> float:
    sign = -1.0 if token.startswith("-") else 1.0
    magnitude = token.lstrip("+-±")
    if magnitude == "NaN":
        return float("nan")
    if magnitude == "infinity":
        return sign * float("inf")
    if magnitude in PI:
        return sign * PI[magnitude]
    return sign * float(magnitude)


def expected(case: Case, args: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The standard's result for ``args``, or None where it states an approximation or a
    sign only. Signs the standard leaves open are set but not compared (``agrees``)."""
    r = case.result
    if r is None or r.startswith(("~", "sign ")):
        return None
    if r in ("True", "False"):
        return np.full(args[0].shape, r == "True")
    real = args[0].real.dtype
    named = dict(zip(("x1", "x2"), args, strict=False)) | {"x": args[0]}
    if r in ("x", "x1", "x2"):
        return named[r].copy()
    if r == "-x1":
        return -args[0]
    if m := re.fullmatch(r"(-?)abs\((\w+)\)", r):
        source = (named | {"a": args[0].real, "b": args[0].imag})[m.group(2)]
        magnitude = np.abs(source).astype(real)
        return -magnitude if m.group(1) else magnitude
    if r == "infinity, sign of x1*x2":
        return np.where(np.signbit(args[0]) ^ np.signbit(args[1]), -np.inf, np.inf).astype(real)
    if m := re.fullmatch(r"NaN & signbit ([01])", r):
        return np.full(args[0].shape, -np.nan if m.group(1) == "1" else np.nan, dtype=real)
    if r == "even integer nearest x":
        low = np.floor(args[0])
        return np.copysign(np.where(np.fmod(low, 2) == 0, low, low + 1), args[0])  # -0.5 -> -0
    if m := re.fullmatch(r"([+-]0|\+infinity) \* cis\(b\)( - 1\.0)?", r):
        scale = _value(m.group(1))
        b = args[0].imag
        with np.errstate(invalid="ignore"):
            z = np.zeros(args[0].shape, dtype=args[0].dtype)
            z.real = scale * np.cos(b) - (1.0 if m.group(2) else 0.0)
            z.imag = scale * np.sin(b)
        return z
    if m := PART.match(r):
        re_token, sign, im_token = m.groups()
        z = np.zeros(args[0].shape, dtype=args[0].dtype)
        z.real = _value(re_token)
        z.imag = _value(("-" if sign == "-" else "+") + im_token)
        return z
    return np.full(args[0].shape, _value(r), dtype=real)


def _same(got: np.ndarray, want: np.ndarray, signed: bool, approx: bool) -> np.ndarray:
    got = got.astype(want.dtype) if got.dtype != want.dtype and got.dtype.kind == want.dtype.kind else got
    both_nan = np.isnan(got) & np.isnan(want)
    if not signed:  # a sign the standard leaves open: compare magnitudes
        got, want = np.abs(got), np.abs(want)
    close = np.isclose(got, want, rtol=8 * np.finfo(want.dtype).eps, atol=0) if approx else got == want
    if signed:
        close = close & (np.signbit(got) == np.signbit(want))
    return both_nan | close


def agrees(case: Case, got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: does ``got`` hold the standard's result ``want`` (NaN matches NaN; a signed
    zero or infinity matches only its sign, where the standard states it)?"""
    r = case.result or ""
    if want.dtype == bool:
        return np.asarray(got == want)
    if m := PART.match(r):
        re_token, sign, im_token = m.groups()
        got = np.asarray(got).astype(want.dtype)
        real = _same(got.real, want.real, not re_token.startswith("±"), "pi" in re_token)
        imag = _same(got.imag, want.imag, sign != "±", "pi" in im_token)
        return real & imag
    if want.dtype.kind == "c":
        return _same(np.asarray(got).real, want.real, True, True) & _same(
            np.asarray(got).imag, want.imag, True, True
        )
    signbit_nan = r.startswith("NaN & signbit")
    result = _same(np.asarray(got), want, r not in ("0", "NaN"), False)
    if signbit_nan:
        result = result & (np.signbit(got) == np.signbit(want))
    return result


def holds(case: Case, args: tuple[np.ndarray, ...], got: np.ndarray) -> np.ndarray | None:
    """Elementwise: does ``got`` hold what the standard states for ``args`` (which meet ``case``)?
    None where the clause states no value or sign to check (an approximation: ``~+pi/2``); where
    it states only a sign (multiply, divide), a NaN's sign is open."""
    want = expected(case, args)
    if want is not None:
        return agrees(case, got, want)
    sign = (case.result or "").removeprefix("sign ")
    if sign not in ("+", "-"):
        return None
    got = np.asarray(got)
    return np.isnan(got) | (np.signbit(got) == (sign == "-"))


def stated(
    clauses: list[Case], args: tuple[np.ndarray, ...], got: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The standard's result for each element (element ``i`` meets ``clauses[i]``; ``got``'s own
    where the clause states none, its sign flipped where it states only the other sign) and
    whether ``got`` holds it."""
    got = np.asarray(got)
    want, ok = got.copy(), np.ones(got.shape, dtype=bool)
    for case, where in by_clause(clauses):
        element = tuple(a[where] for a in args)
        held = holds(case, element, got[where])
        if held is None:
            continue
        ok[where] = held
        stated_value = expected(case, element)
        if stated_value is None:  # a sign only: got's magnitude with the stated sign
            stated_value = np.copysign(np.abs(got[where]), -1.0 if case.result == "sign -" else 1.0)
        want[where] = stated_value.astype(want.dtype) if want.dtype.kind != "b" else stated_value
    return want, ok


def by_clause(clauses: list[Case], only: np.ndarray | None = None) -> list[tuple[Case, np.ndarray]]:
    """The elements of each clause (of ``only``'s, where given), as index arrays, in the
    standard's order."""
    groups: dict[int, list[int]] = {}
    first: dict[int, Case] = {}
    for i, case in enumerate(clauses):
        if only is None or only[i]:
            groups.setdefault(id(case), []).append(i)
            first.setdefault(id(case), case)
    return [(first[k], np.array(v)) for k, v in groups.items()]


@dataclass(frozen=True)
class Departure:
    case: Case
    dtype: str
    args: tuple[np.ndarray, ...]
    got: np.ndarray
    want: np.ndarray


def departures(cases: list[Case] | None = None) -> tuple[list[Departure], int]:
    """Where NumPy's result for a case's inputs differs from the standard's, and how many
    (case, dtype) checks ran (cases of functions in compat's table with a stated value or sign)."""
    found, checked = [], 0
    for case in CASES if cases is None else cases:
        if case.op is None or case.unparsed or not hasattr(np, case.op):
            continue
        for dtype in case.dtypes:
            args = inputs(case, dtype)
            with np.errstate(all="ignore"):
                got = np.asarray(getattr(np, case.op)(*args))
            ok = holds(case, args, got)
            if ok is None:
                continue
            checked += 1
            if not np.all(ok):
                want, _ = stated([case] * len(got), args, got)
                bad = ~ok
                found.append(Departure(case, dtype, tuple(a[bad] for a in args), got[bad], want[bad]))
    return found, checked


def _show(values: np.ndarray) -> str:
    return "[" + ", ".join(str(v) for v in values.tolist()[:3]) + (", ..." if values.size > 3 else "") + "]"


def main() -> None:
    found, checked = departures()
    in_table = {c.function for c in CASES if c.op}
    print(
        f"{len(CASES)} clauses, {sum(not c.unparsed for c in CASES)} parsed, "
        f"{len(in_table)} functions in compat's table, {checked} (case, dtype) checks, "
        f"{len(found)} NumPy departures"
    )
    for d in found:
        print(f"\n{d.case.op} {d.dtype}: {d.case.clause.replace('``', '')}")
        print(
            f"  inputs {' '.join(_show(a) for a in d.args)}: NumPy {_show(d.got)}, standard {_show(d.want)}"
        )


if __name__ == "__main__":
    main()
