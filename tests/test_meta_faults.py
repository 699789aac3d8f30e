"""Meta-tests: the specs catch every deliberately broken adapter of ``compat.adapters.broken.FAULTS``.

Each fault declares where it must show (its ``catch``: the spec, the operation, the kind of
divergence). Registered through the public path ``--adapter compat.adapters.broken:Name``,
each runs on its spec (narrowed as it says) beside the others of its child run, in strict
mode with the shipped registry (which must not hide these bugs), and must be recorded there
as a new divergence of its op and kind, named by the failing run, with a reproducer that shows
it and prints what the record says each side gave. The faults share three child runs (one per
way they run) and their reproducers one interpreter per run. And NumPy checked against itself
gives no divergence at all.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from compat.adapters import broken
from compat.adapters.broken import FAULTS
from compat.core import dtypes, ops
from compat.judge import oracle
from compat.results import records, registry
from compat.specs import FAMILIES
from tests.helpers import REPO, Jobs, json_of, output, run, run_pytest, side_by_side

pytestmark = [pytest.mark.xdist_group("meta-faults"), pytest.mark.slow]  # one worker: its runs start once

# child run -> the families of its faults, and what else it needs. All run under the detection
# benchmark's profile (python -m compat detect): unshrunk, a fault shows once per spec param and
# signature (shrinking, e.g. a random program against finite differences, was most of a run)
OWN_RUNS = {
    # torch's own autodiff, on every device: the default one suffices
    "gradients": (("gradients",), ["--device", "none", "-p", "no:xdist"]),
    # torch on compat's reference apu device only
    "placement": (("placement",), ["--only-devices"]),
}
RUNS = {
    # the NumPy-based faults: every other family that has one (a new family's faults join it by themselves);
    # default modes, all examples: a rule broken only when traced
    "numpy": (
        tuple(f for f in FAMILIES if f not in OWN_RUNS and any(fault.family == f for fault in FAULTS)),
        ["--modes", "default", "--mode-examples", "1"],
    ),
    **OWN_RUNS,
}
SEEDS = (1, 2)  # of NumPy against itself


def run_of(fault) -> str:
    return next(name for name, (families, _) in RUNS.items() if fault.family in families)


def caught(records_: list[dict], fault) -> list[dict]:
    """The fault's records of its declared spec, op and kind."""
    catch = fault.catch
    return [
        r
        for r in records_
        if r["backend"]["name"] == fault.name
        and r["spec"].split("::")[1].split("[")[0] == catch.spec
        and (r["op"], r["kind"]) == (catch.op, catch.kind)
    ]


def reproduce(found: list[dict], tmp) -> dict[str, tuple[dict, str]]:
    """Per fault, its simplest caught record and what that record's reproducer printed: all of
    them run in one interpreter (each starts a framework: seconds), each with its own namespace."""
    # the shortest reproducer of each fault wins: it is set last
    simplest = {r["backend"]["name"]: r for r in sorted(found, key=lambda r: -len(r["reproducer"]))}
    chosen = {name: record["reproducer"] for name, record in simplest.items()}
    driver = (
        "import contextlib, io, json, sys, traceback\n"
        "shown = {}\n"
        "for name, source in json.load(open(sys.argv[1])).items():\n"
        "    out = io.StringIO()\n"
        "    with contextlib.redirect_stdout(out):\n"
        "        try:\n"
        "            exec(compile(source, name, 'exec'), {'__name__': '__main__'})\n"
        "        except BaseException:\n"
        "            print('FAILED', traceback.format_exc())\n"
        "    shown[name] = out.getvalue()\n"
        "print(json.dumps(shown))\n"
    )
    (tmp / "reproducers.json").write_text(json.dumps(chosen))
    process = run(["-c", driver, str(tmp / "reproducers.json")], tmp)
    assert process.returncode == 0, output(process)
    shown = json.loads(process.stdout.splitlines()[-1])
    return {name: (record, shown[name]) for name, record in simplest.items()}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each child run: its exit status and output, its divergence records, and per fault what
    its reproducer printed."""
    tmp = tmp_path_factory.mktemp("meta")

    def faults_run(name):
        families, options = RUNS[name]
        faults = [f for f in FAULTS if f.family in families and f.is_available()]
        where = tmp / name
        process = run_pytest(  # strict mode
            [
                *(f"compat/specs/{family}.py" for family in families),
                "-q",
                "--hypothesis-seed",
                "0",
                "--hypothesis-profile",
                "detect",
                *options,
                *side_by_side({f.__name__: (f.name, narrowed(f)) for f in faults}),
            ],
            where,
            shipped_registry=True,
        )
        loaded = records.load(where / "results")
        assert loaded.problems == [], loaded.problems
        found = [r for typed in loaded.runs.values() for r in json_of(typed.divergences)]
        shown = reproduce([r for f in faults for r in caught(found, f)], where)
        return process, found, shown

    def numpy_run(seed):
        where = tmp / f"numpy-{seed}"
        args = ["-q", "--backends", "numpy", "--compat-mode", "report", "--hypothesis-seed", str(seed)]
        return where, run_pytest(["compat/specs/promotion.py", "compat/specs/broadcasting.py", *args], where)

    jobs = Jobs(
        {
            **{name: lambda name=name: faults_run(name) for name in RUNS},
            **{seed: lambda seed=seed: numpy_run(seed) for seed in SEEDS},
        }
    )
    yield jobs
    jobs.close()


def narrowed(fault) -> str:
    catch = fault.catch
    return f"{catch.spec} and ({catch.narrow})" if catch.narrow else catch.spec


def test_every_fault_declares_where_it_is_caught():
    for fault in FAULTS:
        catch = fault.catch
        source = (REPO / "compat" / "specs" / f"{fault.family}.py").read_text()
        # a spec of its own, or one a family's module makes (every_form's)
        assert f"def {catch.spec}(" in source or f"\n{catch.spec} = " in source, (fault.__name__, catch)
        assert catch.op in ops.OPS and catch.kind in registry.KINDS, (fault.__name__, catch)


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.__name__)
def test_fault_is_caught_by_its_declared_spec_op_and_kind(runs, fault):
    if not fault.is_available():
        pytest.skip(f"needs {fault.requires}")
    process, found, reproduced = runs[run_of(fault)]
    text = output(process)
    mine = [r for r in found if r["backend"]["name"] == fault.name]
    assert caught(found, fault), f"{fault.catch} not among {[(r['spec'], r['op'], r['kind']) for r in mine]}"
    for record in mine:  # the shipped registry hides none of them
        if record["status"] in ("standard", "departs"):
            continue  # judged by the standard where NumPy departs from it: reported, never failed
        assert record["family"] == fault.family and record["status"] == "new" and record["known"] is None
        assert record["backend"]["adapter"] == f"{fault.__module__}:{fault.__qualname__}"
    # strict mode: the run fails, naming it
    assert process.returncode == 1 and "Traceback" not in text, text
    assert re.search(
        rf"{fault.name}\S*(?: vs \S+)? \S+ \[{fault.catch.kind}\] {fault.catch.op}\(", process.stdout
    ), text
    # its reproducer shows the reference and the fault disagreeing, as its record says they do
    record, shown = reproduced[fault.name]
    lines = [line.split(": ", 1) for line in shown.splitlines() if ": " in line]
    assert "FAILED" not in shown and len({value for _, value in lines}) > 1, shown
    (_, reference), *_, (_, result) = lines  # the reference's line first, the fault's last
    assert agrees(reference, record["expected"]), (reference, record["expected"], shown)
    assert agrees(result, record["actual"]), (result, record["actual"], shown)


def agrees(printed: str, outcome: dict) -> bool:
    """Whether a reproducer's printed outcome is the recorded one (compat.core.outcome.to_json):
    the same error type when raised, else the same dtype, shape (where printed) and values.
    A line is the reproducer's show() (``dtype tolist()``) or compat's describe()
    (``dtype[shape] [flat values, ... (N values)]``); a record keeps the first 64 values."""
    raised = re.match(r"raised (\w+)", printed)
    if "error" in outcome or raised:
        return bool(raised) and "error" in outcome and outcome["error"]["type"].endswith("." + raised[1])
    if "values" not in outcome or printed.startswith(("(", "tuple ")):
        # several results (a gradient per input, in the framework's rounded repr) or no values:
        # only that it did not raise can be compared
        return True
    dtype, shape, values = re.fullmatch(r"(?:torch\.)?(\w+)(?:\[([\d, ]*)\])? (.*)", printed).groups()
    elided = re.search(r", \.\.\. \((\d+) values\)\]$", values)
    printed_values = [number(v) for v in NUMBER.findall(values[: elided.start() if elided else None])]
    recorded = [number(v) for v in np.ravel(outcome["values"]).tolist()]  # a complex value: [re, im]
    per_value = 2 if "complex" in dtype else 1
    size = int(elided[1]) if elided else len(printed_values) // per_value
    common = min(len(printed_values), len(recorded))
    return (
        dtype == outcome["dtype"]
        and shape in (None, ", ".join(map(str, outcome["shape"])))
        and size == math.prod(outcome["shape"])
        and all(alike(p, r, dtype) for p, r in zip(printed_values[:common], recorded[:common]))
    )


def alike(printed: str, recorded: str, dtype: str) -> bool:
    """The same value; a float's within the oracle's ULPs: a record keeps NumPy's math functions
    computed in wider precision and rounded once (compat.judge.accurate), the reproducer prints
    NumPy's own result, which its libm may round otherwise (SVML's atan2 on AVX-512 machines)."""
    if printed == recorded or dtype not in ("float16", "bfloat16", "float32", "float64"):
        return printed == recorded
    a, b = float(printed), float(recorded)
    if a == 0 or b == 0:  # a zero's sign is no rounding
        return False
    spacing = float(np.spacing(np.abs(np.asarray(b, dtype=dtypes.to_numpy(dtype)))))
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= oracle.ACCURACY_ULPS * spacing


NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|nan|inf)|True|False")


def number(value) -> str:
    """A printed or recorded value as one text: NaN, infinities and -0.0 included."""
    return repr(float({"True": 1, "False": 0}.get(value, value)))


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_against_numpy_has_no_divergence(runs, seed):
    where, process = runs[seed]
    assert process.returncode == 0, output(process)
    loaded = records.load(where / "results")
    assert loaded.problems == []
    (run_,) = loaded.runs.values()
    assert json_of(run_.divergences) == [], [r["detail"] for r in json_of(run_.divergences)]
    assert str(run_.meta["hypothesis"]["seed"]) == str(seed)
    assert {r["family"] for r in json_of(run_.checks)} == {"promotion", "broadcasting"}
    assert sum(sum(r["cases"].values()) for r in json_of(run_.checks)) > 1000


# -- what a fault's records show besides where it was caught ---------------------------------


def records_of(runs, fault) -> list[dict]:
    _, found, _ = runs[run_of(fault)]
    return [r for r in found if r["backend"]["name"] == fault.name]


def test_int8_with_uint8_shows_as_int8_where_numpy_gives_int16(runs):
    found = caught(records_of(runs, broken.Int8Uint8PromotesToInt8), broken.Int8Uint8PromotesToInt8)
    assert {r["signature"]["inputs"] for r in found} == {"int8,uint8", "uint8,int8"}
    assert {(r["signature"]["expected"], r["signature"]["actual"]) for r in found} == {("int16", "int8")}


def test_float32_slightly_off_shows_in_every_pair_numpy_promotes_to_float32(runs):
    found = caught(records_of(runs, broken.Float32SlightlyOff), broken.Float32SlightlyOff)
    # the grid's pairs: add's dtypes (the standard's category), but bfloat16 (NumPy has none of its own)
    names = [n for n in dtypes.CATEGORIES[ops.get("add").takes] if n != "bfloat16"]
    to_float32 = {f"{a},{b}" for a in names for b in names if np.result_type(a, b) == np.float32}
    assert to_float32 <= {r["signature"]["inputs"] for r in found}
    assert all("ULP" in r["detail"] for r in found)


def test_multiply_rounding_toward_zero_is_one_ulp_off(runs):
    for record in records_of(runs, broken.MultiplyRoundsTowardZero):
        dtype = dtypes.to_numpy(record["expected"]["dtype"])
        expected = np.array(record["expected"]["values"], dtype=np.float64).astype(dtype)
        actual = np.array(record["actual"]["values"], dtype=np.float64).astype(dtype)
        off = expected != actual
        assert off.any() and np.array_equal(actual[off], np.nextafter(expected[off], np.zeros((), dtype)))


def test_clamped_index_shows_numpy_s_index_error(runs):
    for record in records_of(runs, broken.OutOfBoundsIndicesClamped):
        assert (record["signature"]["expected"], record["signature"]["actual"]) == ("index", "ok")
        assert record["expected"]["error"]["type"] == "builtins.IndexError"


def test_planted_tanh_gradient_is_caught_on_a_program_with_tanh(runs):
    found = caught(records_of(runs, broken.TanhGradientOffByOnePercent), broken.TanhGradientOffByOnePercent)
    assert any("np.tanh" in r["example"]["inputs"]["f"] for r in found), [r["example"] for r in found]
    assert {r["reference"] for r in found} <= {"numpy-fd"}
