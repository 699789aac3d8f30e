"""Any module that implements the Array API standard is a backend with no code of its own
(compat.adapters.namespace): named ``array-api:MODULE``, every operation of the table by the
standard's name, dtypes and devices from its inspection API, values through DLPack."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from compat.adapters import AdapterError, BackendMissing, load_adapter, resolve
from compat.adapters.namespace import PREFIX, NamespaceAdapter, device_name
from compat.core import dtypes, ops
from compat.core.case import Case
from compat.core.row import Row
from compat.core.source import exported
from compat.harness.checker import backend_info
from compat.harness.plan import EVERY_EXAMPLE, ON_A_SHARE, parse_device, select
from compat.harness.reproducer import reproducer
from compat.results import records, registry
from compat.specs import FAMILIES
from tests.helpers import SPECS, output, run_pytest

pytest.importorskip("array_api_strict")
STRICT = "array-api:array_api_strict"
WRAPS_NUMPY, WRAPS_TORCH = "array-api:array_api_compat.numpy", "array-api:array_api_compat.torch"

# array_api_strict with one function wrong: a namespace the specs must catch
SUBTRACTS = textwrap.dedent("""
    from array_api_strict import *
    from array_api_strict import __array_namespace_info__, fft, linalg


    def add(x1, x2, /):
        return subtract(x1, x2)
""")


@pytest.mark.parametrize(
    ("selector", "error", "words"),
    [
        ("array-api:array_api_compat.tourch", AdapterError, "array_api_compat has no module"),
        ("array-api:json.decoder.x", AdapterError, "json has no module"),
        ("array-api:", AdapterError, "name an Array API namespace module"),
        ("array-api:no_such_namespace_here", BackendMissing, "is not installed"),
    ],
)
def test_a_wrong_module_is_one_line_and_a_missing_one_a_skip(selector, error, words):
    with pytest.raises(error) as raised:
        resolve(selector)
    assert type(raised.value) is error and words in str(raised.value) and "\n" not in str(raised.value)


def test_a_module_that_is_not_a_namespace_stops_at_start_up(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPAT_CACHE_DIR", str(tmp_path))
    (adapter,) = resolve("array-api:json")
    with pytest.raises(AdapterError, match="array-api:json is not an Array API namespace"):
        adapter.check_operations()


def test_each_operation_is_the_standards_by_its_name_or_declared_with_a_reason():
    adapter = load_adapter(STRICT)
    assert adapter.target("power") == "xp.pow" and adapter.target("svd") == "xp.linalg.svd"
    assert adapter.target("concatenate") == "xp.concat" and adapter.target("fftfreq") == "xp.fft.fftfreq"
    assert adapter.target("__add__") is ops.get("__add__").python  # Python's syntax on the array
    for op in ("nansum", "set_at", "grad", "relu", "compiled_add"):
        assert adapter.unsupported(op), op
    assert adapter.unsupported("default_dtype") is None and adapter.unsupported("to_device") is None


@pytest.mark.parametrize("module", ["array_api_strict", "array_api_compat.numpy", "array_api_compat.torch"])
def test_every_mapping_resolves_in_the_named_namespaces(module, tmp_path, monkeypatch):
    pytest.importorskip(module)
    monkeypatch.setenv("COMPAT_CACHE_DIR", str(tmp_path))
    load_adapter(PREFIX + module).check_operations()


def test_keyword_only_arguments_go_by_name_and_values_round_trip_through_dlpack():
    adapter = load_adapter(STRICT)
    x = np.arange(6.0).reshape(2, 3)
    assert adapter.call("sum", (x, 1)).values.tolist() == [3.0, 12.0]  # sum(x, /, *, axis)
    assert adapter.call("take", (x, np.array([2, 0]), 1)).values.tolist() == [[2.0, 0.0], [5.0, 3.0]]
    for name in adapter.values.table:
        values = np.array([0, 1], dtype=name)
        assert (
            adapter.values.to_numpy(adapter.values.from_numpy(values, None)).tobytes() == values.tobytes()
        ), name
    refused = adapter.call("add", (x.astype(np.float16), x))
    assert refused.error_category == "dtype" and "no dtype float16" in str(refused.error)


def test_devices_are_the_namespaces_by_its_own_names():
    adapter = load_adapter(STRICT)
    assert adapter.reference_device == "CPU_DEVICE" and "device1" in adapter.placement.devices()
    moved = adapter.call("to_device", (np.arange(3.0), "device1"))
    assert moved.device == "device1" and moved.values.tolist() == [0.0, 1.0, 2.0]
    assert parse_device(f"{STRICT}:device1", [adapter]) == (STRICT, "device1")
    assert Row.parse(f"{STRICT}@device1") == Row(STRICT, device="device1")


def test_a_namespace_is_checked_on_its_devices_that_hold_data_and_a_wrapper_on_its_frameworks():
    """array_api_compat.torch lists torch's meta device (shapes, no data) and, once compat's lazy
    mode has started torch's lazy backend in the process, lazy:0: nothing can be imported onto the
    first, and the second is compat's own doing. Its row checks neither; strict's every device."""
    from compat.adapters.torch import start_lazy_backend

    start_lazy_backend()  # as the torch~lazy mode does in a test worker
    wrapper = load_adapter("array-api:array_api_compat.torch")
    listed = {str(d) for d in wrapper.info.devices()}
    assert {"meta", "lazy:0"} <= listed, listed
    checked = wrapper.placement.devices()
    assert "cpu" in checked and not {"meta", "lazy:0"} & set(checked), checked  # (apu:0 where it is loaded)
    strict = load_adapter(STRICT)
    assert strict.placement.devices() == [device_name(d) for d in strict.info.devices()]


def test_from_dlpack_onto_a_device_goes_by_the_namespaces_device_object():
    adapter = load_adapter(STRICT)
    imported = adapter.call("from_dlpack_onto", (exported("numpy", np.arange(3.0)), "device1"))
    assert imported.device == "device1" and imported.values.tolist() == [0.0, 1.0, 2.0], imported.describe()


def test_the_default_run_has_strict_on_every_example_and_the_wrappers_on_a_share_of_every_family():
    plan = select(None, [])
    chosen = {a.id: a for a in plan.adapters}
    assert EVERY_EXAMPLE == (STRICT,)
    assert plan.share(chosen[STRICT], None, "eager") == 1.0
    wrappers = {name for name in ON_A_SHARE if name.startswith(PREFIX)}
    assert wrappers == {WRAPS_NUMPY, WRAPS_TORCH}
    assert {name for name in chosen if name.startswith(PREFIX)} == {STRICT} | wrappers
    for name in wrappers:
        assert chosen[name].wraps in chosen  # beside its framework's own row
        assert plan.share(chosen[name], None, "eager") < 1
        assert all(plan.outside(chosen[name], family) is None for family in FAMILIES)
    named = select(WRAPS_TORCH, [])  # named on the command line: every example
    assert named.share(named.adapters[0], None, "eager") == 1.0


def test_a_wrapper_is_the_generic_adapter_and_its_records_name_the_framework_it_wraps():
    """array_api_compat.torch needs no adapter code: the class adapter_class makes, with what it wraps."""
    pytest.importorskip("torch")
    adapter = load_adapter(WRAPS_TORCH)
    made = {"name", "requires", "module", "wraps", "imports", "OPS", "__module__", "__doc__"}
    assert type(adapter).__bases__ == (NamespaceAdapter,) and set(vars(type(adapter))) <= made
    assert adapter.wraps == "torch" and load_adapter(STRICT).wraps == ""
    info = backend_info(adapter)
    assert (info.wraps.name, info.wraps.version, info.wraps.config) == (
        "torch",
        load_adapter("torch").version(),
        {},
    )
    # its framework's entries apply: torch's mean of integers is torch's, and the wrapper passes it through
    entry = registry.load(registry.DEFAULT).by_id()["torch-mean-needs-float"]
    assert entry.applies_to(info) and not entry.applies_to(backend_info(load_adapter(WRAPS_NUMPY)))


def test_a_namespace_with_one_wrong_function_is_caught(tmp_path):
    """The generic adapter needs no code for a new namespace, and its specs catch one that is wrong."""
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "subtracting_namespace.py").write_text(SUBTRACTS)
    process = run_pytest(
        [
            str(SPECS / "promotion.py"),
            "-q",
            "-p",
            "no:xdist",
            "-k",
            "every_pair_of_dtypes and add",
            "--device",
            "none",
        ]
        + ["--backends", "array-api:subtracting_namespace", "--compat-mode", "report"],
        tmp_path,
        PYTHONPATH=str(modules),
    )
    assert process.returncode == 0, output(process)
    run = records.load(tmp_path / "results").latest()
    wrong = [d for d in run.divergences if d.op == "add" and d.kind == "value"]
    assert wrong and all(d.backend.id == "array-api:subtracting_namespace" for d in wrong), output(process)


def test_a_reproducer_calls_the_adapter_as_the_harness_did(capsys):
    adapter = load_adapter(STRICT)
    case = Case("sum", (np.arange(6.0).reshape(2, 3), 1))
    text = reproducer(case, load_adapter("numpy"), adapter)
    assert f"load_adapter({STRICT!r})" in text
    exec(text, {"__name__": "reproducer"})
    printed = capsys.readouterr().out
    assert printed.count("[3.0, 12.0]") == 2, printed  # NumPy's line, and the adapter's


def test_a_wrapper_makes_reads_and_classifies_its_frameworks_arrays_as_the_framework_does():
    """array_api_compat.torch's arrays are torch's: bfloat16 crosses bit for bit (a NaN payload kept,
    which DLPack from NumPy cannot carry), torch's RuntimeError reads as its kind, not 'other'."""
    pytest.importorskip("torch")
    adapter = load_adapter(WRAPS_TORCH)
    bits = np.array([0x3FC0, 0x7FC1, 0xFF80, 0x8000], dtype=np.uint16)  # 1.5, NaN with a payload, -inf, -0
    values = bits.view(dtypes.to_numpy("bfloat16"))
    back = adapter.values.to_numpy(adapter.values.from_numpy(values, None))
    assert back.dtype == values.dtype and back.view(np.uint16).tolist() == bits.tolist()
    into_int = adapter.call("__iadd__", (np.array([1, 2], dtype=np.int32), 1.5))
    assert into_int.error is not None and into_int.error_category == "dtype"  # torch's "can't be cast"
    assert "torch.asarray" in adapter.spelling.array("x0", "bfloat16")  # reproducers make torch's arrays
