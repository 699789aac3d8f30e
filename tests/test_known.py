"""Registry examples: a record's example turns back into the case it was (so it can
be replayed), every run replays them first, and an entry whose examples no longer
diverge is reported as fixed in that version."""

from __future__ import annotations

import json
import re

import ml_dtypes
import numpy as np
import pytest

from compat.core.case import Case
from compat.core.parse import ParseError, case_from_source
from compat.core.programs import Node, Program
from compat.core.source import backend_array
from compat.results import records, registry
from tests.helpers import output, run, run_pytest

NAN_WITH_PAYLOAD = np.array([0x7FC00001, 0xFFC00000], dtype=np.uint32).view(np.float32)
X = np.arange(6, dtype=np.float32).reshape(2, 3)
SQUARE_SUM = Program(
    Node("sum", (Node("multiply", (Node("input"), Node("const"))),), kwargs=(("axis", 0),)),
    inputs=(X,),
    constants=(np.float32(2) * np.ones((2, 3), np.float32),),
)
PICK = Program(
    Node("getitem", (Node("tanh", (Node("input"),)),), params=((slice(None, None, -1), 1),)), inputs=(X,)
)
# a program that indexes with an integer array: the array is a value inside the program's source
TAKE_ROWS = Program(
    Node(
        "add",
        (
            Node("getitem", (Node("input"),), params=((0, slice(0, 0)),)),
            Node("getitem", (Node("input"),), params=(np.array([0], dtype=np.int64),)),
        ),
    ),
    inputs=(X,),
)

CASES = [
    Case("add", (np.array([2], dtype=np.int8), 1000)),
    Case("add", (2.5, np.array(3, dtype=ml_dtypes.bfloat16))),
    Case("multiply", (np.array([1 + 2j], dtype=np.complex64), complex(float("inf"), -0.0))),
    Case("maximum", (NAN_WITH_PAYLOAD, np.float32(-0.0) * np.ones(2, np.float32))),
    Case("sum", (X,), {"axis": (0, 1), "keepdims": True, "dtype": "float64"}),
    Case("asarray", ([2**63, 1],)),
    Case("asarray", (np.array([-0.0, 1e-45], dtype=np.float32),), exact=True),
    Case("getitem", (X, (Ellipsis, None, slice(2, None, -2)))),
    Case("getitem", (X, (1, (0, 0, 1), backend_array([0, 1, 1])))),
    Case("getitem", (X, np.array([True, False]))),
    Case("set_at", (X, (slice(None), [0, 2]), np.float32(7))),
    Case("grad", (X,), program=SQUARE_SUM),
    Case("jacobian", (X,), program=PICK),
    Case("jacobian", (X,), program=TAKE_ROWS),
    Case("hvp", (X, np.ones_like(X)), program=SQUARE_SUM),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.call()[:40])
def test_an_example_turns_back_into_its_case(case):
    """Source -> case -> source gives the same text, and the same signature inputs."""
    example = json.loads(json.dumps(case.example()))  # as a record or the registry holds it
    again = case_from_source(example["call"], example["inputs"], example.get("exact", False))
    assert again.example() == example
    assert again.input_tags() == case.input_tags()
    assert again.op == case.op and again.exact == case.exact
    for mine, theirs in zip(again.args, case.args):
        if isinstance(theirs, np.ndarray):
            assert type(mine) is type(theirs) and mine.dtype == theirs.dtype
            assert mine.tobytes() == theirs.tobytes()  # bit for bit: payloads and signed zeros
    if case.program is not None:
        assert again.program.root == case.program.root
        assert len(again.program.inputs) == len(case.program.inputs)


@pytest.mark.parametrize(
    "call, inputs, problem",
    [
        ("nosuchop(x0)", {"x0": "np.array(1)"}, "not an operation"),
        ("add(x0, x1)", {"x0": "np.array(1)"}, "x1"),
        ("add(x0,", {"x0": "np.array(1)"}, "not a Python expression"),
        ("__import__('os')", {}, "not an operation"),
        ("np.add(x0, x0)", {"x0": "np.array(1)"}, "not a call of an operation"),
        ("add(x0, open('/etc/passwd'))", {"x0": "np.array(1)"}, "open"),
        ("grad(f, x0)", {"x0": "np.array(1.0)"}, "needs its function"),
    ],
)
def test_a_malformed_example_is_a_one_line_error(call, inputs, problem):
    with pytest.raises(ParseError, match=problem) as raised:
        case_from_source(call, inputs)
    assert "\n" not in str(raised.value)


def test_the_registry_checks_its_examples(tmp_path):
    path = tmp_path / "registry.toml"
    path.write_text(
        ENTRY.format(backend="x", example='call = "add(x0, x1)"\n[known.examples.inputs]\nx0 = "np.array(1)"')
    )
    with pytest.raises(registry.RegistryError, match=r"entry 1 \('planted'\): example 1: .*x1"):
        registry.load(path)


ENTRY = """
[[known]]
id = "planted"
backend = "{backend}"
family = "promotion"
op = "add"
kind = "dtype"
inputs = "int8,uint8"
differs = "int8 with uint8 gives int8"
reason = "planted by tests/test_known.py"
[[known.examples]]
family = "promotion"
{example}
"""
STILL_DIVERGES = """call = "add(x0, x1)"
[known.examples.inputs]
x0 = "np.array([1, 2], dtype=np.int8)"
x1 = "np.array([3, 4], dtype=np.uint8)\""""
NO_LONGER_DIVERGES = """call = "add(x0, x1)"
[known.examples.inputs]
x0 = "np.array([1, 2], dtype=np.int16)"
x1 = "np.array([3, 4], dtype=np.uint8)\""""
OUTSIDE_THE_CATEGORY = """call = "add(x0, x1)"
[known.examples.inputs]
x0 = "np.array([True], dtype=np.bool)"
x1 = "np.array([False], dtype=np.bool)\""""


def test_replays_reproduce_what_still_holds_and_report_what_is_fixed(tmp_path):
    """A broken adapter's real divergence is reproduced by its example (a known divergence);
    an entry whose example no longer diverges is reported fixed in the adapter's version."""
    broken = "compat.adapters.broken:Int8Uint8PromotesToInt8"
    path = tmp_path / "registry.toml"
    path.write_text(
        ENTRY.format(backend="broken_int8_uint8", example=STILL_DIVERGES)
        + ENTRY.format(backend="broken_int8_uint8", example=NO_LONGER_DIVERGES).replace(
            '"planted"', '"fixed-one"'
        )
    )
    results = tmp_path / "results"
    process = run_pytest(
        [
            "compat/specs/known.py",
            "--backends",
            "numpy",
            "--adapter",
            broken,
            "-p",
            "no:xdist",
            "--compat-registry=none",
            f"--compat-registry={path}",
            "-rxs",
        ],
        tmp_path,
        results,
    )
    assert process.returncode == 0, output(process)
    # the replay that reproduced a known divergence is xfailed, naming the entry
    assert re.search(
        r"^XFAIL compat/specs/known.py::\S+ - known divergences: planted$", process.stdout, re.M
    ), output(process)
    assert "fixed-one: fixed in broken_int8_uint8" in process.stdout, output(process)
    assert "planted: fixed" not in process.stdout, output(process)

    report = run(
        ["-m", "compat", "report", str(results), "--format", "json", "--registry=none", f"--registry={path}"],
        tmp_path,
    )
    assert report.returncode == 0, output(report)
    fixed = json.loads(report.stdout)["fixed"]
    assert [(f["id"], f["backend"]) for f in fixed] == [("fixed-one", "broken_int8_uint8")]

    dashboard = run(
        [
            "-m",
            "compat",
            "dashboard",
            "--results",
            str(results),
            "--store",
            str(tmp_path / "store.sqlite"),
            "-o",
            str(tmp_path / "site"),
        ],
        tmp_path,
    )
    assert dashboard.returncode == 0, output(dashboard)
    versions = (tmp_path / "site" / "versions.html").read_text()
    fixed_section = versions[versions.index("Fixed: registry entries") :]
    assert "fixed-one" in fixed_section and "planted" not in fixed_section


def test_a_replay_the_row_does_not_judge_is_not_a_fix(tmp_path):
    """A namespace row need not support a call outside the standard's dtype category (add of bools):
    its refusal is counted, not judged, so the replay of an example that shows it is unjudged, and
    its entry is not reported fixed (it was, before: every run listed such entries as fixed); an
    example that the row judges and that diverges no more is."""
    strict = "array-api:array_api_strict"
    path = tmp_path / "registry.toml"
    path.write_text(
        ENTRY.format(backend=strict, example=OUTSIDE_THE_CATEGORY)
        .replace('"planted"', '"outside-the-category"')
        .replace('inputs = "int8,uint8"', 'inputs = "bool,bool"')
        + ENTRY.format(backend=strict, example=NO_LONGER_DIVERGES).replace('"planted"', '"fixed-one"')
    )
    results = tmp_path / "results"
    process = run_pytest(
        [
            "compat/specs/known.py",
            "--backends",
            strict,
            "-p",
            "no:xdist",
            "--compat-registry=none",
            f"--compat-registry={path}",
        ],
        tmp_path,
        results,
    )
    assert process.returncode == 0, output(process)
    statuses = {r.known: r.status for run in records.load(results).runs.values() for r in run.replays}
    assert statuses == {"outside-the-category": "unjudged", "fixed-one": "fixed"}, statuses
    report = run(
        ["-m", "compat", "report", str(results), "--format", "json", "--registry=none", f"--registry={path}"],
        tmp_path,
    )
    assert report.returncode == 0, output(report)
    assert [f["id"] for f in json.loads(report.stdout)["fixed"]] == ["fixed-one"]


@pytest.mark.parametrize("config", [{}, {"mode": "xla"}])
def test_a_stub_is_an_entry_that_matches_its_record_and_only_its_mode(tmp_path, config):
    """``python -m compat known add`` writes an entry as narrow as the record: the same
    backend, family, operation, signature and reference, and the execution mode it came from."""
    from compat.results import entries, records
    from tests.helpers import divergence_record

    record = divergence_record()
    record["backend"] = {**record["backend"], "config": config}
    record["reference"] = "mode:eager" if config else "numpy"
    typed = records.from_json(record)
    path = tmp_path / "registry.toml"
    path.write_text(
        entries.entry_stub(typed).replace(
            "TODO: a public URL (documentation, issue), or remove this line", "https://example.org"
        )
    )
    stubbed = registry.load(path)
    fields = {
        "family": typed.family,
        "op": typed.op,
        "kind": typed.kind,
        **typed.signature,
        "device": "",
        "reference": typed.reference,
    }
    assert stubbed.match(typed.backend, fields) is stubbed.entries[0]
    if config:  # an eager entry holds in every mode; a mode's entry in that mode only
        other = records.Backend(typed.backend.name, typed.backend.id, typed.backend.version, {"mode": "jit"})
        assert stubbed.match(other, fields) is None


def test_an_example_whose_producer_is_not_installed_is_not_replayed(monkeypatch):
    """An interchange example imports an array that another backend made (TensorFlow's, found in a
    run that had it): where that backend is not installed the example cannot be built, so it is
    not replayed (before, making its reproducer raised BackendMissing and failed the known spec)."""
    from compat.adapters.tensorflow import TensorflowAdapter
    from compat.harness.checker import producers_installed

    entries = registry.load(registry.DEFAULT).entries
    (example,) = next(e for e in entries if e.id == "tensorflow-dlpack-export-refuses-dl-device").examples
    monkeypatch.setattr(TensorflowAdapter, "requires", "tensorflow")
    assert producers_installed(example.case()) == TensorflowAdapter.is_available()
    monkeypatch.setattr(TensorflowAdapter, "requires", "no_such_module_for_this_test")
    assert not producers_installed(example.case())
    assert producers_installed(
        case_from_source("add(x0, x1)", {"x0": "np.int8(1)", "x1": "np.int8(2)"}, True)
    )
    # a namespace row's array, named as --backends names it (a wrapper's example, replayed on its framework)
    wrapped = {"x0": "exported('array-api:array_api_compat.numpy', np.array([1.0], dtype=np.float32))"}
    assert producers_installed(case_from_source("from_dlpack(x0)", wrapped))


def test_a_replay_tells_shadowed_from_overridden_and_fixed(tmp_path):
    """What a replay of an entry's example says of the entry, from what it showed (each divergence's
    fields and the entry that matched it first): another entry of its level first hides it (shadowed:
    the registry to mend); an entry of the row's mode, or one naming the wrapper a framework's entry
    reaches through, describes how that row differs (overridden); an entry that matches nothing the
    replay showed no longer holds there (fixed)."""
    from compat.harness.checker import replay_status
    from compat.results.records import Backend
    from tests.test_registry import entry, load

    add = '"promotion"', '"add"'
    known = load(
        tmp_path,
        entry("eager", family=add[0], op=add[1]),
        entry("same-level", family=add[0], op=add[1]),
        entry("jit", family=add[0], op=add[1], config='{ mode = "jit" }'),
        entry("wrapper", backend="array-api:array_api_compat.*", family=add[0], op=add[1]),
    )
    entries, eager = known.by_id(), known.by_id()["eager"]
    fields = {
        "family": "promotion",
        "op": "add",
        "kind": "dtype",
        "inputs": "int8,uint8",
        "reference": "numpy",
    }
    jax = Backend("jax", "jax[x64]", "0.10.2", {"x64": True})
    jit = Backend("jax", "jax[x64]", "0.10.2", {"x64": True, "mode": "jit"})
    wrapper = Backend(
        "array-api:array_api_compat.jax", "array-api:array_api_compat.jax", "1.12", {}, wraps=jax
    )
    assert replay_status(eager, [(fields, "eager")], entries, jax) == ("reproduced", [])
    assert replay_status(eager, [(fields, "same-level")], entries, jax) == ("shadowed", ["same-level"])
    assert replay_status(eager, [(fields, "jit")], entries, jit) == ("overridden", ["jit"])
    assert replay_status(eager, [(fields, "wrapper")], entries, wrapper) == ("overridden", ["wrapper"])
    # a shadowing among them is the registry's to mend, whatever else overrides
    both = [(fields, "jit"), ({**fields, "inputs": "int16,uint8"}, "same-level")]
    assert replay_status(eager, both, entries, jit) == ("shadowed", ["jit", "same-level"])
    other = {**fields, "op": "multiply"}  # what the eager entry does not match: its divergence is gone here
    assert replay_status(eager, [(other, None)], entries, jax) == ("fixed", [])
    assert replay_status(entries["jit"], [(fields, "eager")], entries, jit) == ("shadowed", ["eager"])


def test_a_shadowed_example_fails_the_known_spec(tmp_path):
    """Two entries of one level for one divergence: the replay of the second one's example is matched
    by the first, which the known spec reports as the registry's to mend."""
    path = tmp_path / "registry.toml"
    path.write_text(
        ENTRY.format(backend="broken_int8_uint8", example=STILL_DIVERGES).replace('"planted"', '"first-one"')
        + ENTRY.format(backend="broken_int8_uint8", example=STILL_DIVERGES)
    )
    process = run_pytest(
        [
            "compat/specs/known.py",
            "--backends",
            "numpy",
            "--adapter",
            "compat.adapters.broken:Int8Uint8PromotesToInt8",
            "-p",
            "no:xdist",
            "--compat-registry=none",
            f"--compat-registry={path}",
        ],
        tmp_path,
        tmp_path / "results",
    )
    assert process.returncode == 1, output(process)
    assert "registry: the example of planted is matched by first-one first" in process.stdout, output(process)


def test_an_example_that_moves_to_a_device_the_row_has_not_does_not_replay_there():
    """A registry example of from_dlpack_onto(x, 'cpu:0') (torch's name for its CPU) cannot be replayed
    on a namespace that names it 'cpu': there it would raise for the name and read as fixed."""
    from compat.adapters import load_adapter
    from compat.harness.checker import Checker, Session, replayable_case

    example = registry.Example(
        "interchange",
        "from_dlpack_onto(x0, 'cpu:0')",
        {"x0": "exported('numpy', np.array([1, 2], dtype=np.uint8))"},
    )
    numpy = load_adapter("numpy")
    session = Session(numpy, registry.Registry())
    on = {
        s: Checker(load_adapter(s), "interchange", "spec", session)
        for s in ("torch", "array-api:array_api_compat.torch")
    }
    assert replayable_case(example, on["torch"]) is not None
    assert replayable_case(example, on["array-api:array_api_compat.torch"]) is None
