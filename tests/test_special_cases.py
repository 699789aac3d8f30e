"""The standard's special cases as data (compat/core/special-cases.toml): every clause of the
standard is there, each parses or says why not, and the operand values compat draws for a
clause meet its condition, judged here by an evaluation of the vocabulary of its own."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compat.core import special_cases
from compat.core.special_cases import CASES, Case, inputs
from tests.helpers import REPO

STUB = "src/array_api_stubs/_2025_12/elementwise_functions.py"
# a clone of data-apis/array-api (a bare one will do): the data is checked against the standard's text
MIRROR = Path(os.environ.get("ARRAY_API_REPO", "") or "/nonexistent")
CLAUSES = 470  # grep -c "^    - If" of the stub

# clauses the vocabulary does not express, each with its reason
UNPARSED = {
    "add": "the complex example states one component of the result",
    "clip": "conditions on min and max, or behaviour left unspecified",
}


def _stub() -> str | None:
    if not MIRROR.exists() or shutil.which("git") is None:
        return None
    shown = subprocess.run(
        ["git", "-C", str(MIRROR), "show", f"HEAD:{STUB}"], capture_output=True, text=True, check=False
    )
    return shown.stdout if shown.returncode == 0 else None


def test_every_clause_of_the_standard_is_a_case():
    assert len(CASES) == CLAUSES
    text = _stub()
    if text is None:
        pytest.skip("ARRAY_API_REPO (a clone of data-apis/array-api) is not set")
    clauses = [line.strip()[2:] for line in text.splitlines() if line.startswith("    - If ")]
    assert len(clauses) == CLAUSES
    for clause, case in zip(clauses, CASES, strict=True):
        assert case.clause.startswith(clause), (clause, case.clause)


def test_the_data_is_what_the_tool_writes(tmp_path):
    text = _stub()
    if text is None:
        pytest.skip("ARRAY_API_REPO (a clone of data-apis/array-api) is not set")
    (tmp_path / "stub.py").write_text(text)
    out = tmp_path / "cases.toml"
    subprocess.run(
        [sys.executable, str(REPO / "tools" / "special_cases.py"), str(tmp_path / "stub.py"), str(out)],
        check=True,
    )
    assert out.read_text() == special_cases.DATA.read_text()


def test_every_case_of_a_table_function_parses_or_is_listed():
    for case in CASES:
        assert case.standard == "2025.12" and case.section.startswith(
            f"elementwise_functions.py, {case.function}"
        )
        if case.op is None:
            continue
        assert (case.unparsed is None) == (case.result is not None), case.clause
        if case.unparsed:
            assert UNPARSED.get(case.function), (case.function, case.clause, case.unparsed)
        else:
            assert case.when, case.clause


# An evaluation of the vocabulary written apart from the sample values: each condition is
# checked on the arrays that inputs() returns.
def _atom(atom: str, v: np.ndarray, others: dict[str, np.ndarray]) -> np.ndarray:
    finite = np.isfinite(v)
    if m := re.fullmatch(r"(<|>|!=) (-?\d+)", atom):
        k = float(m.group(2))
        return {"<": v < k, ">": v > k, "!=": v != k}[m.group(1)]
    if atom.startswith("!"):
        return ~_atom(atom[1:], v, others)
    if atom.startswith("abs "):
        return _atom(atom[4:].replace("= ", ""), np.abs(v), others)
    if m := re.fullmatch(r"signbit ([01])", atom):
        return np.signbit(v) == (m.group(1) == "1")
    if atom == "= -x1":
        return v == -others["x1"]
    zero, inf = v == 0, np.isinf(v)
    integer = finite & (np.floor(v) == v)
    with np.errstate(invalid="ignore"):
        odd = integer & (np.abs(np.fmod(v, 2)) == 1)
        half = finite & (v - np.floor(v) == 0.5)
    return {
        "NaN": np.isnan(v),
        "+0": zero & ~np.signbit(v),
        "-0": zero & np.signbit(v),
        "±0": zero,
        "+infinity": inf & (v > 0),
        "-infinity": inf & (v < 0),
        "±infinity": inf,
        "1": v == 1,
        "-1": v == -1,
        "finite": finite,
        "nonzero": ~np.isnan(v) & ~zero,
        "integer": integer,
        "odd integer": odd,
        "half integer": half,
        "any": np.ones(v.shape, bool),
    }[atom]


def _holds(condition: str, v: np.ndarray, others: dict[str, np.ndarray]) -> np.ndarray:
    if " | " in condition:
        return np.logical_or.reduce([_holds(part, v, others) for part in condition.split(" | ")])
    return np.logical_and.reduce([_atom(part, v, others) for part in condition.split(" & ")])


def _operands(case: Case, args: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    if case.operands.startswith("real"):
        return dict(zip(special_cases.OPERAND_NAMES[case.operands], args, strict=True))
    parts = [p for z in args for p in (z.real, z.imag)]
    return dict(zip("abcd", parts, strict=False))


def meets(case: Case, args: tuple[np.ndarray, ...]) -> np.ndarray:
    """Elementwise: do ``args`` meet the case's condition?"""
    values = _operands(case, args)
    ok = np.ones(args[0].shape, bool)
    for key, condition in case.when.items():
        if key == "x1,x2":
            x1, x2 = values["x1"], values["x2"]
            ok &= {
                "same sign": np.signbit(x1) == np.signbit(x2),
                "different sign": np.signbit(x1) != np.signbit(x2),
                "==": x1 == x2,
                "!=": x1 != x2,
            }[condition]
        else:
            ok &= np.logical_or.reduce([_holds(condition, values[k], values) for k in key.split("|")])
    return ok


PARSED = [case for case in CASES if not case.unparsed]


@pytest.mark.parametrize("case", PARSED, ids=lambda c: c.function)
def test_inputs_meet_the_condition(case):
    for dtype in case.dtypes:
        args = inputs(case, dtype)
        assert all(a.dtype == np.dtype(dtype) and a.size >= 1 for a in args)
        met = meets(case, args)
        assert met.all(), (case.clause, dtype, [a[~met] for a in args])


def test_a_broken_generator_is_caught(monkeypatch):
    samples = special_cases._samples

    def broken(dtype):  # "< 0" now draws a positive value
        return samples(dtype) | {"< 0": [-1.5, 2.0]}

    monkeypatch.setattr(special_cases, "_samples", broken)
    case = next(c for c in PARSED if c.when == {"x": "< 0"})
    assert not meets(case, inputs(case, "float64")).all()


def test_expected_keeps_signed_zeros_and_nan():
    minus_zero = next(c for c in PARSED if c.function == "ceil" and c.when == {"x": "-0"})
    want = special_cases.expected(minus_zero, inputs(minus_zero, "float32"))
    assert want is not None and want.dtype == np.float32 and np.signbit(want).all() and (want == 0).all()
    nan = next(c for c in PARSED if c.function == "sqrt" and c.result == "NaN")
    got = special_cases.expected(nan, inputs(nan, "float64"))
    assert got is not None and np.isnan(got).all()
    assert not special_cases.agrees(minus_zero, np.zeros(want.shape, np.float32), want).any()


def test_numpy_departures_name_their_clause():
    found, checked = special_cases.departures()
    print(f"\n{checked} (case, dtype) checks, {len(found)} NumPy departures")
    assert checked > 600 and found
    assert {d.case.op for d in found} >= {"floor_divide"}  # floor_divide(+inf, 2.0) is NaN in NumPy
    for d in found:
        assert d.case.clause and d.case.section and d.args[0].size >= 1
        assert not special_cases.agrees(d.case, d.got, d.want).any()


def test_inputs_meet_no_earlier_clause_with_another_result():
    # the standard's lists are ordered: a value an earlier clause covers is judged by that
    # clause, so where both state a value they must agree on it (ceil's "integer-valued" and "+0")
    clash = []
    for i, case in enumerate(PARSED):
        earlier = [e for e in PARSED[:i] if e.function == case.function and e.operands == case.operands]
        for dtype in case.dtypes:
            args = inputs(case, dtype)
            want = special_cases.expected(case, args)
            for e in earlier:
                met = meets(e, args)
                if not met.any():
                    continue
                before = special_cases.expected(e, args)
                sign_only = (e.result or "").startswith("sign ")  # a sign rule holds beside a value
                if want is None or before is None:
                    consistent = sign_only or (want is None and before is None)
                else:
                    consistent = bool(special_cases.agrees(case, before[met], want[met]).all())
                if not consistent:
                    clash.append((case.clause, e.clause, dtype))
    assert not clash, clash[:5]
