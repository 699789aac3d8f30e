"""compat.results.registry: loading, matching, and one-line errors for malformed files."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from compat.core import ops
from compat.results import registry
from compat.results.records import Backend
from compat.results.registry import RegistryError

SHIPPED = registry.DEFAULT

JAX_X32 = Backend("jax", "jax[x32]", "0.4.35", {"x64": False})
JAX_X64 = Backend("jax", "jax[x64]", "0.4.35", {"x64": True})
TORCH = Backend("torch", "torch", "2.5.1+cpu", {})
OLD_TORCH = Backend("torch", "torch", "2.3.0", {})


def divergence(**fields) -> dict:
    base = {
        "family": "promotion",
        "op": "add",
        "kind": "dtype",
        "inputs": "int8,uint8",
        "expected": "int16",
        "actual": "int8",
        "device": "",
        "reference": "numpy",
    }
    return {**base, **fields}


def write(tmp_path: Path, text: str, name: str = "registry.toml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def entry(id: str = "e1", backend: str = "jax", kind: str = "dtype", **extra: str) -> str:
    kind = kind if kind.startswith("[") else f'"{kind}"'  # a TOML list is passed as is
    lines = [
        "[[known]]",
        f'id = "{id}"',
        f'backend = "{backend}"',
        f"kind = {kind}",
        'differs = "something differs"',
        'reason = "because"',
    ]
    lines += [f"{k} = {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n\n"


def load(tmp_path: Path, *entries: str) -> registry.Registry:
    return registry.load(write(tmp_path, "".join(entries)))


# -- loading ---------------------------------------------------------------------


def test_load_a_valid_registry(tmp_path):
    path = write(
        tmp_path,
        """
        # accepted differences
        [[known]]
        id = "jax-x32-no-int64"
        backend = "jax[x32]"
        kind = "dtype"
        family = "promotion"
        op = ["add", "sub*"]
        inputs = "int64,*"
        expected = "int64"
        actual = "int32"
        config = { x64 = false }
        versions = ">=0.4"
        differs = "int64 inputs give int32"
        reason = "JAX without x64 has no 64-bit types"
        source = "https://jax.readthedocs.io/en/latest/notebooks/Common_Gotchas_in_JAX.html"

        [[known]]
        id = "torch-uint64"
        backend = "torch"
        kind = "error"
        differs = "uint64 arithmetic raises"
        reason = "limited uint64 support"
    """,
    )
    loaded = registry.load(path)
    assert loaded.path == path
    assert [e.id for e in loaded.entries] == ["jax-x32-no-int64", "torch-uint64"]
    first = loaded.entries[0]
    assert (first.backend, first.versions) == ("jax[x32]", ">=0.4")
    assert first.config == {"x64": False}
    assert first.reason == "JAX without x64 has no 64-bit types"
    assert first.source.startswith("https://")
    assert first.patterns["op"] == ("add", "sub*", *ops.operator_forms("add"))  # its forms, from the table
    assert first.patterns["inputs"] == ("int64,*",)
    assert set(first.patterns) == {"family", "op", "inputs", "expected", "actual"}
    assert loaded.entries[1].patterns == {}
    assert set(loaded.by_id()) == {"jax-x32-no-int64", "torch-uint64"}


def test_no_registry_and_empty_registry_match_nothing(tmp_path):
    assert registry.load(None).entries == []
    empty = registry.load(write(tmp_path, "# nothing yet\n"))
    assert empty.entries == []
    assert empty.match(JAX_X32, divergence()) is None


# -- matching --------------------------------------------------------------------


def test_backend_name_matches_every_config_but_an_id_only_its_own(tmp_path):
    by_name = load(tmp_path, entry("any-jax", backend="jax"))
    assert by_name.match(JAX_X32, divergence()).id == "any-jax"
    assert by_name.match(JAX_X64, divergence()).id == "any-jax"
    assert by_name.match(TORCH, divergence()) is None
    by_id = load(tmp_path, entry("x32-only", backend="jax[x32]"))
    assert by_id.match(JAX_X32, divergence()).id == "x32-only"
    assert by_id.match(JAX_X64, divergence()) is None


def test_config_must_be_a_subset_of_the_backend_config(tmp_path):
    known = load(tmp_path, entry("no-x64", backend="jax", config="{ x64 = false }"))
    assert known.match(JAX_X32, divergence()).id == "no-x64"
    assert known.match(JAX_X64, divergence()) is None
    assert known.match(replace(JAX_X32, config={"x64": False, "other": 1}), divergence()).id == "no-x64"
    assert known.match(replace(JAX_X32, config={}), divergence()) is None


def test_versions_specifier(tmp_path):
    known = load(tmp_path, entry("new-torch", backend="torch", versions='">=2.4,<3"'))
    assert known.match(TORCH, divergence()).id == "new-torch"  # 2.5.1+cpu: the local label is ignored
    assert known.match(OLD_TORCH, divergence()) is None
    assert known.match(replace(TORCH, version="3.0.0"), divergence()) is None


def test_cpu_features_the_host_must_have_or_lack(tmp_path, monkeypatch):
    """What the instruction set decides (a float64 -> float16 conversion with or without
    AVX512-FP16) is known on the machines that have, or lack, the feature."""
    monkeypatch.setattr(registry, "host_cpu_features", lambda: frozenset({"sse2", "avx512_fp16"}))
    has = load(tmp_path, entry("has", cpu='"avx512_fp16"'))
    lacks = load(tmp_path, entry("lacks", cpu='["sse2", "!avx512_fp16"]'))
    assert has.match(JAX_X32, divergence()).id == "has"
    assert lacks.match(JAX_X32, divergence()) is None
    monkeypatch.setattr(registry, "host_cpu_features", lambda: frozenset({"sse2"}))
    assert has.match(JAX_X32, divergence()) is None
    assert lacks.match(JAX_X32, divergence()).id == "lacks"


def test_kind_must_be_equal(tmp_path):
    known = load(tmp_path, entry("dtype-only", kind="dtype"))
    assert known.match(JAX_X32, divergence(kind="dtype")) is not None
    assert known.match(JAX_X32, divergence(kind="value")) is None


def test_kind_may_be_a_list(tmp_path):
    known = load(tmp_path, entry("two-kinds", kind='["dtype", "value"]'))
    assert known.match(JAX_X32, divergence(kind="dtype")).id == "two-kinds"
    assert known.match(JAX_X32, divergence(kind="value")).id == "two-kinds"
    assert known.match(JAX_X32, divergence(kind="error")) is None


def test_backend_glob(tmp_path):
    anyone = load(tmp_path, entry("anyone", backend="*"))
    for backend in (JAX_X32, JAX_X64, TORCH, Backend("thirdparty", "thirdparty", "1.0", {})):
        assert anyone.match(backend, divergence()).id == "anyone"
    j_only = load(tmp_path, entry("j-only", backend="j*"))
    assert j_only.match(JAX_X64, divergence()).id == "j-only"
    assert j_only.match(TORCH, divergence()) is None


def test_glob_patterns(tmp_path):
    known = load(tmp_path, entry("int8-left", inputs='"int8,*"', actual='"int?"'))
    assert known.match(JAX_X32, divergence(inputs="int8,uint8", actual="int8")).id == "int8-left"
    assert known.match(JAX_X32, divergence(inputs="int8,py:int", actual="int8")).id == "int8-left"
    assert known.match(JAX_X32, divergence(inputs="uint8,int8", actual="int8")) is None
    assert known.match(JAX_X32, divergence(inputs="int8,uint8", actual="int16")) is None


def test_a_glob_that_starts_with_an_exclamation_mark_excludes(tmp_path):
    known = load(
        tmp_path, entry("int-no-uint64", inputs='["int*,*", "!*uint64*"]', op='["add", "!__radd__"]')
    )
    assert known.match(JAX_X32, divergence(inputs="int8,uint8")).id == "int-no-uint64"
    assert known.match(JAX_X32, divergence(inputs="int8,uint64")) is None  # included, and excluded
    assert known.match(JAX_X32, divergence(inputs="uint8,int8")) is None  # not included
    assert known.match(JAX_X32, divergence(family="operators", op="__add__")).id == "int-no-uint64"
    assert known.match(JAX_X32, divergence(family="operators", op="__radd__")) is None
    only_out = load(tmp_path, entry("no-bool", inputs='"!*bool*"'))  # every value but those it excludes
    assert only_out.match(JAX_X32, divergence(inputs="int8,uint8")).id == "no-bool"
    assert only_out.match(JAX_X32, divergence(inputs="bool,uint8")) is None
    with pytest.raises(RegistryError, match="'inputs' must be a glob or a list of globs"):
        load(tmp_path, entry("bare", inputs='["int8", "!"]'))


def test_list_of_globs_matches_any(tmp_path):
    known = load(tmp_path, entry("some-ops", op='["add", "sub*", "*_divide"]'))
    for op in ("add", "subtract", "true_divide", "floor_divide"):
        assert known.match(JAX_X32, divergence(op=op)).id == "some-ops", op
    for op in ("multiply", "addition", "divide"):
        assert known.match(JAX_X32, divergence(op=op)) is None, op


def test_every_pattern_must_match(tmp_path):
    known = load(
        tmp_path, entry("narrow", family='"promotion"', op='"add"', expected='"int16"', reference='"numpy"')
    )
    assert known.match(JAX_X32, divergence()).id == "narrow"
    assert known.match(JAX_X32, divergence(family="broadcasting")) is None
    assert known.match(JAX_X32, divergence(expected="int32")) is None
    assert known.match(JAX_X32, divergence(reference="device:gpu")) is None


def test_the_matching_order_is_derived_not_written(tmp_path):
    """A device's entry before a mode's, before a config's, before the backend's own; at one level
    the entries that name their operations before one that says why it is broad; not the files'
    order."""
    general = entry("general", family='"promotion"', op='"add"')
    broad = entry("broad", broad='"every operation"')
    configured = entry("configured", family='"promotion"', op='"add"', config="{ x64 = false }")
    moded = entry("moded", family='"promotion"', op='"add"', config='{ mode = "jit" }')
    on_device = entry("on-device", family='"promotion"', op='"add"', device='"gpu:*"')
    known = load(tmp_path, broad, general, configured, moded, on_device)
    assert [e.id for e in known.entries] == ["on-device", "moded", "configured", "general", "broad"]
    jit_on_gpu = replace(JAX_X32, config={"x64": False, "mode": "jit"})
    assert known.match(jit_on_gpu, divergence(device="gpu:0")).id == "on-device"
    assert known.match(jit_on_gpu, divergence()).id == "moded"
    assert known.match(JAX_X32, divergence()).id == "configured"
    assert known.match(JAX_X64, divergence()).id == "general"
    assert known.match(JAX_X64, divergence(op="multiply")).id == "broad"
    assert [e.id for e in known.matching(JAX_X64, divergence())] == ["general", "broad"]


def test_an_entry_of_a_function_covers_its_operator_forms(tmp_path):
    known = load(tmp_path, entry("fd", family='["promotion", "operators"]', op='"floor_divide"'))
    for op in ("floor_divide", "__floordiv__", "__rfloordiv__", "__ifloordiv__"):
        assert known.match(JAX_X32, divergence(family="operators", op=op)) is not None, op
    assert known.match(JAX_X32, divergence(family="operators", op="__truediv__")) is None
    alone = load(tmp_path, entry("fd", family='"operators"', op='"floor_divide"', forms="false"))
    assert alone.match(JAX_X32, divergence(family="operators", op="__floordiv__")) is None


def test_raises_names_the_error_class_not_a_release_message(tmp_path):
    known = load(
        tmp_path, entry("refused", kind="error", family='"promotion"', op='"add"', raises='"*Error"')
    )
    assert known.match(JAX_X32, divergence(kind="error", raises="RuntimeError")) is not None
    assert known.match(JAX_X32, divergence(kind="error", raises="")) is None  # it did not raise
    typed = load(
        tmp_path, entry("typed", kind="error", family='"promotion"', op='"add"', raises='"TypeError"')
    )
    assert typed.match(JAX_X32, divergence(kind="error", raises="ValueError")) is None


def test_since_and_fixed_in_are_a_version_range(tmp_path):
    known = load(
        tmp_path, entry("ranged", family='"promotion"', op='"add"', since='"0.4.30"', fixed_in='"0.5"')
    )
    assert known.match(JAX_X32, divergence()) is not None  # 0.4.35
    assert known.match(replace(JAX_X32, version="0.5.0"), divergence()) is None
    assert known.match(replace(JAX_X32, version="0.4.29"), divergence()) is None
    assert "not both" in load_error(tmp_path, entry("x", versions='">=1"', since='"1"'))


def test_numpy_is_a_version_range_of_the_reference(tmp_path, monkeypatch):
    """A difference that NumPy makes or loses holds for the NumPy releases the entry names,
    whatever the backend's version (NumPy 2.5's eig returns complex eigenvalues for real ones)."""
    known = load(tmp_path, entry("numpys", family='"promotion"', op='"add"', numpy='"<2.5"'))
    monkeypatch.setattr(registry, "numpy_version", lambda: "2.4.6")
    assert known.match(JAX_X32, divergence()) is not None
    monkeypatch.setattr(registry, "numpy_version", lambda: "2.5.5")
    assert known.match(JAX_X32, divergence()) is None
    assert "not a version specifier" in load_error(tmp_path, entry("x", numpy='"two"'))


def test_a_folder_of_files_is_one_registry_and_a_user_adds_to_it(tmp_path):
    (tmp_path / "mine").mkdir()
    write(tmp_path, entry("a", family='"promotion"', op='"add"'), "mine/a.toml")
    write(tmp_path, entry("b", family='"promotion"', op='"multiply"'), "mine/sub/b.toml")
    write(tmp_path, entry("c", family='"promotion"', op='"subtract"'), "extra.toml")
    known = registry.load(tmp_path / "mine", tmp_path / "extra.toml")
    assert sorted(e.id for e in known.entries) == ["a", "b", "c"]
    assert registry.chosen(["mine"]) == [registry.DEFAULT, Path("mine")]
    assert registry.chosen(["none", "mine"]) == [Path("mine")]
    write(tmp_path, entry("a", family='"promotion"', op='"add"'), "again.toml")
    with pytest.raises(RegistryError, match="duplicate id 'a'"):
        registry.load(tmp_path / "mine", tmp_path / "again.toml")


# -- malformed registries ------------------------------------------------------------


def load_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(RegistryError) as raised:
        registry.load(write(tmp_path, text))
    message = str(raised.value)
    assert message.strip() and "\n" not in message, repr(message)
    assert "registry.toml" in message
    return message


def test_bad_toml(tmp_path):
    message = load_error(tmp_path, entry("fine") + '[[known]]\nid = "broken\nbackend = torch\n')
    assert "TOML" in message


def test_missing_reason(tmp_path):
    text = entry("good") + entry("no-reason").replace('reason = "because"\n', "")
    message = load_error(tmp_path, text)
    assert "no-reason" in message and "entry 2" in message and "reason" in message


def test_empty_reason_counts_as_missing(tmp_path):
    message = load_error(tmp_path, entry("empty-reason").replace('reason = "because"', 'reason = ""'))
    assert "empty-reason" in message and "reason" in message


def test_unknown_field(tmp_path):
    message = load_error(tmp_path, entry("typo", opp='"add"'))
    assert "typo" in message and "opp" in message


@pytest.mark.parametrize("kind", ["dtypes", '["dtype", "values"]', "[]"])
def test_bad_kind(tmp_path, kind):
    message = load_error(tmp_path, entry("bad-kind", kind=kind))
    assert "bad-kind" in message and "kind" in message
    if "s" in kind:
        assert ("values" if "values" in kind else "dtypes") in message


def test_duplicate_id(tmp_path):
    message = load_error(tmp_path, entry("twice") + entry("other") + entry("twice", backend="torch"))
    assert "twice" in message and "entry 3" in message and "duplicate" in message


@pytest.mark.parametrize("versions", ["2.4", "latest", "=>2.4", ">=two"])
def test_bad_versions_specifier(tmp_path, versions):
    message = load_error(tmp_path, entry("bad-versions", backend="torch", versions=f'"{versions}"'))
    assert "bad-versions" in message and versions in message


@pytest.mark.parametrize(
    "field, value",
    [
        ("op", "[]"),
        ("op", "3"),
        ("inputs", '["int8", 3]'),
        ("config", '"x64"'),
        ("reason", "42"),
        ("broad", "true"),
        ("cpu", '"avx 512"'),
        ("cpu", "[1]"),
    ],
)
def test_badly_typed_fields(tmp_path, field, value):
    message = load_error(
        tmp_path,
        entry("bad-type", **{field: value}).replace('reason = "because"\n', "")
        if field == "reason"
        else entry("bad-type", **{field: value}),
    )
    assert "bad-type" in message and field in message


def test_broad_says_why_an_entry_names_no_family_or_operation(tmp_path):
    known = load(
        tmp_path, entry("config-wide", broad='"every operation: the configuration decides"'), entry("narrow")
    )
    assert {e.id: e.broad for e in known.entries} == {
        "config-wide": "every operation: the configuration decides",
        "narrow": "",
    }
    message = load_error(tmp_path, entry("empty-broad", broad='"  "'))
    assert "empty-broad" in message and "broad" in message


def test_entries_outside_known(tmp_path):
    message = load_error(tmp_path, entry("ok") + '[[knwon]]\nid = "x"\n')
    assert "knwon" in message


def test_missing_file(tmp_path):
    with pytest.raises(RegistryError) as raised:
        registry.load(tmp_path / "nope.toml")
    assert "nope.toml" in str(raised.value) and "\n" not in str(raised.value)


# -- the shipped registry ------------------------------------------------------------


def test_shipped_registry_loads_and_explains_every_entry():
    if not SHIPPED.exists():
        pytest.skip(f"{SHIPPED} does not exist yet")
    loaded = registry.load(SHIPPED)
    assert loaded.entries, "the shipped registry has no entries"
    for known in loaded.entries:
        assert known.reason.strip(), f"{known.id}: empty reason"
        assert known.differs.strip(), f"{known.id}: empty 'differs'"
    assert len({e.id for e in loaded.entries}) == len(loaded.entries)


def test_a_config_value_may_be_a_list_of_admitted_values(tmp_path):
    reg = registry.load(write(tmp_path, entry(backend="torch", config='{ mode = ["compile", "lazy"] }')))
    for mode, matched in (("compile", True), ("lazy", True), ("inductor", False), (None, False)):
        backend = replace(TORCH, config={"mode": mode} if mode else {})
        assert (reg.match(backend, divergence()) is not None) is matched, mode


def test_an_eager_entry_never_explains_how_a_mode_differs_from_eager(tmp_path):
    """An entry without a mode matches a mode row's divergences from NumPy (the backend's eager
    behaviour shows in every mode), but not its divergences from eager: only a mode's entry can."""
    reg = registry.load(
        write(
            tmp_path,
            entry(backend="torch", id="eager")
            + entry(backend="torch", id="compiled", config='{ mode = "compile" }'),
        )
    )
    compiled = replace(TORCH, config={"mode": "compile"})
    assert reg.match(compiled, divergence()).id == "compiled"  # the more specific first
    assert reg.match(compiled, divergence(reference="mode:eager")).id == "compiled"
    assert reg.match(TORCH, divergence(reference="mode:eager")) is None
    eager_alone = registry.load(write(tmp_path, entry(backend="torch", id="eager"), "eager.toml"))
    assert eager_alone.match(compiled, divergence()).id == "eager"  # the mode's divergence from NumPy
    assert eager_alone.match(compiled, divergence(reference="mode:eager")) is None


# a namespace that wraps torch (array_api_compat.torch): torch's entries apply to it, under torch's
# version and config; its own name's entries too; another framework's not
WRAPPER = Backend(
    "array-api:array_api_compat.torch", "array-api:array_api_compat.torch", "1.16.0", {}, wraps=TORCH
)


def test_a_wrapper_matches_the_entries_of_the_framework_it_wraps(tmp_path):
    reg = load(
        tmp_path,
        entry("torch-new", "torch", versions='">=2.4"', op='"add"'),
        entry("torch-old", "torch", versions='"<2.4"', op='"multiply"'),
        entry("torch-f64", "torch", config='{ default_dtype = "float64" }', op='"subtract"'),
        entry("numpy-one", "numpy", op='"divide"'),
        entry("own", "array-api:array_api_compat.*", op='"less"'),
    )
    assert reg.match(WRAPPER, divergence()).id == "torch-new"  # torch 2.5.1, not the wrapper's 1.16.0
    assert reg.match(replace(WRAPPER, wraps=OLD_TORCH), divergence(op="multiply")).id == "torch-old"
    assert reg.match(WRAPPER, divergence(op="multiply")) is None
    assert reg.match(WRAPPER, divergence(op="subtract")) is None  # torch's default config, not float64
    assert reg.match(WRAPPER, divergence(op="divide")) is None
    assert reg.match(WRAPPER, divergence(op="less")).id == "own"
    assert reg.match(replace(WRAPPER, wraps=None), divergence()) is None  # nothing wrapped: its own only


def test_an_example_of_the_wrapped_framework_replays_on_the_wrapper(tmp_path):
    example = registry.Example("promotion", "add(x0, x1)", {}, backends=("torch",))
    assert example.replays_on(WRAPPER, None) and example.replays_on(TORCH, None)
    assert not example.replays_on(replace(WRAPPER, wraps=JAX_X64), None)
    assert not registry.Example("promotion", "add(x0, x1)", {}, backends=("torch[x]",)).replays_on(
        WRAPPER, None
    )
