"""Registry entries as narrow as their evidence: a known entry hides every divergence
it matches, so one that names no family or operation hides the next real bug too.

Every shipped entry names its family and operations, or says in ``broad`` why it
cannot. And a real backend, in a config an entry covers, with a bug planted where a
broad entry of the past would have matched it, must have that bug reported as new.
"""

from __future__ import annotations

import json
import textwrap
import tomllib
from dataclasses import dataclass

import pytest

from compat.results import records, registry, report
from compat.results.records import Backend
from tests.helpers import SPECS, divergence_record, json_of, output, run_pytest
from tests.test_registry import SHIPPED, entry, write


def test_every_shipped_entry_names_family_and_operation_or_says_why_not():
    loaded = registry.load(SHIPPED)
    vague = []
    for known in loaded.entries:
        included = {
            name: [g for g in known.patterns.get(name, ()) if not g.startswith("!")]
            for name in ("family", "op")
        }
        named = all(globs and "*" not in globs for globs in included.values())
        if not named and not known.broad.strip():
            vague.append(known.id)
    assert not vague, f"entries without family and op, and without 'broad' saying why: {vague}"


def test_the_report_shows_why_an_entry_is_broad(tmp_path):
    known = registry.load(
        write(tmp_path, entry("config-wide", backend="numpy", broad='"the config decides"'))
    )
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "records-main.jsonl").write_text(
        json.dumps({**divergence_record(), "known": "config-wide", "status": "known"}) + "\n"
    )
    (run,) = records.load(tmp_path / "run").runs.values()
    assert "      broad: the config decides" in report.text_report(run, known).splitlines()


# -- planted bugs that the broad entries of the past hid ---------------------------------


@dataclass(frozen=True)
class Plant:
    adapter: str  # class in tests.broken_adapters, a real backend's adapter with one bug
    backend: Backend  # what its records say
    spec: str
    select: str  # -k
    op: str
    kind: str
    signature: dict  # signature fields of the planted divergence
    first_input: tuple[str, ...]  # dtypes of its first operand
    old_entry: str  # the broad entry as it was: it matched this divergence
    extra: tuple[str, ...] = ()


JAX_X32 = Backend("jax", "jax[x32]", "0", {"x64": False})
TORCH = Backend("torch", "torch", "0", {})

PLANTS = {
    # int64 + int64 gives int16 (JAX without x64 gives int32): the old entry took any
    # '*64' expected with any narrower actual, in every family and operation
    "jax-x32": Plant(
        "JaxX32Int64AsInt16[x32]",
        JAX_X32,
        "promotion.py",
        "binary_operation_on_every_pair_of_dtypes and add",
        "add",
        "dtype",
        {"inputs": "int64,int64", "expected": "int64", "actual": "int16"},
        ("int64",),
        """
        [[known]]
        id = "jax-x32-no-64-bit-types"
        backend = "jax"
        config = { x64 = false }
        kind = "dtype"
        expected = ["*64", "complex128"]
        actual = ["*32", "complex64", "*16", "*8", "bfloat16"]
        differs = "64-bit results come out as their 32-bit counterparts"
        reason = "JAX disables 64-bit types unless jax_enable_x64 is set"
        """,
    ),
    # indexing a uint16/uint32/uint64 tensor raises TypeError: the old entry took any
    # 'dtype' error with those dtypes among the inputs, in every family and operation
    "torch-uint": Plant(
        "TorchUnsignedGetitemRaises",
        TORCH,
        "indexing.py",
        "basic_indexing",
        "getitem",
        "error",
        {"expected": "ok", "actual": "dtype"},
        ("uint16", "uint32", "uint64"),
        """
        [[known]]
        id = "torch-limited-uint16-uint32-uint64"
        backend = "torch"
        kind = ["error"]
        inputs = ["*uint16*", "*uint32*", "*uint64*"]
        actual = "dtype"
        differs = "operations on uint16/uint32/uint64 tensors raise"
        reason = "PyTorch's unsigned types other than uint8 have limited support in eager mode"
        """,
        ("--hypothesis-profile", "detect", "--hypothesis-seed", "0"),
    ),
}


@pytest.mark.parametrize("key", list(PLANTS))
def test_a_bug_where_a_broad_entry_used_to_match_is_new(key, tmp_path):
    plant = PLANTS[key]
    pytest.importorskip(plant.backend.name)
    # report mode with the shipped registry: what a user's run would call known or new
    process = run_pytest(
        [
            str(SPECS / plant.spec),
            "-q",
            "-k",
            plant.select,
            "--adapter",
            f"tests.broken_adapters:{plant.adapter}",
            "--device",
            "none",
            "--compat-mode",
            "report",
            *plant.extra,
        ],
        tmp_path,
        shipped_registry=True,
    )
    assert process.returncode == 0, output(process)
    loaded = records.load(tmp_path / "results")
    assert loaded.problems == []
    (run,) = loaded.runs.values()
    planted = [
        r
        for r in json_of(run.divergences)
        if r["backend"]["id"] == plant.backend.id
        and r["op"] == plant.op
        and r["kind"] == plant.kind
        and all(r["signature"][k] == v for k, v in plant.signature.items())
        and r["signature"]["inputs"].split(",")[0] in plant.first_input
    ]
    assert planted, output(process)

    old = registry.Registry(
        [registry.parse_entry(tomllib.loads(textwrap.dedent(plant.old_entry))["known"][0], "old")]
    )
    for record in planted:
        fields = {
            "family": record["family"],
            "op": record["op"],
            "kind": record["kind"],
            **record["signature"],
            "device": record["device"] or "",
            "reference": record["reference"],
        }
        assert old.match(plant.backend, fields) is not None, f"the old entry would not have hidden {fields}"
        assert record["status"] == "new" and record["known"] is None, (
            f"{record['known']} hides a planted bug: {record['example']['call']} {record['signature']}"
        )
