"""The reference TensorFlow PluggableDevice "APU" (compat/devices/tensorflow_apu.*).

TensorFlow's devices and kernel registry are global to a process, so whatever
loads the plug-in runs in a child Python, one per configuration: the child
calls a _worker_* function of this module and prints its findings as JSON,
and the tests below check them.
"""

from __future__ import annotations

import ctypes
import importlib.util
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compat.devices import DeviceBuildError
from compat.devices import tensorflow_apu as apu

pytestmark = [
    pytest.mark.xdist_group("tensorflow-apu"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

if importlib.util.find_spec("tensorflow") is None:
    pytest.skip("TensorFlow is not installed", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
KERNELS = [
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Neg", "Abs", "Square", "Less", "LessEqual",
    "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot", "Relu", "Cast",
    "MatMul", "BatchMatMulV2", "Sum", "Max", "Mean", "AddN", "BroadcastTo", "Reciprocal",
]  # fmt: skip


@pytest.fixture(scope="session")
def library() -> Path:
    # compat's cache, where the specs' APU rows build it too: one compile a session, not two
    return apu.build()


def _child(worker: str, library: Path, env: dict[str, str] | None = None) -> dict:
    code = f"from tests.test_tensorflow_apu import {worker}; {worker}({str(library)!r})"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def main(library) -> dict:
    return _child("_worker_main", library)


@pytest.fixture(scope="module")
def two_devices(library) -> dict:
    return _child("_worker_two_devices", library)


# ---------------------------------------------------------------- build


def test_build_is_cached(library, monkeypatch):
    mtime = library.stat().st_mtime_ns

    def no_compiler(*args, **kwargs):
        raise AssertionError("build() compiled again")

    monkeypatch.setattr(apu.subprocess, "run", no_compiler)
    assert apu.build(cache_dir=library.parent) == library
    assert library.stat().st_mtime_ns == mtime


def test_build_errors_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(apu.shutil, "which", lambda name: None)
    with pytest.raises(DeviceBuildError, match="g\\+\\+"):
        apu.build(cache_dir=tmp_path)
    monkeypatch.undo()
    broken = tmp_path / "broken.cc"
    broken.write_text("int f() { return undeclared; }\n")
    monkeypatch.setattr(apu, "_SOURCE", broken)
    with pytest.raises(DeviceBuildError, match=r"error: .undeclared. was not declared") as info:
        apu.build(cache_dir=tmp_path)
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------- devices and placement


def test_lists_apu_and_places_relu_there(main):
    assert "/physical_device:APU:0" in main["physical"]
    placement = main["placement"]
    assert [d.rsplit("/", 1)[-1] for d in placement["devices"]] == ["device:APU:0"] * 3
    assert placement["relu_launches"] == 3
    assert placement["values"] == [[0.0, 0.0, 2.0]] * 3


def test_two_devices(two_devices):
    assert two_devices["apus"] == ["/physical_device:APU:0", "/physical_device:APU:1"]
    assert two_devices["device"].endswith("device:APU:1")


def test_fault_from_environment(two_devices):
    assert two_devices["fault_differs"] is True
    assert two_devices["after_off_differs"] is False


# ---------------------------------------------------------------- kernels


def test_every_kernel_equals_cpu(main):
    assert not main["mismatches"], "\n".join(main["mismatches"][:40])


def test_every_kernel_ran_on_apu(main):
    assert sorted(set(KERNELS) - set(main["launched"])) == []


def test_jacobians_run_on_apu_and_equal_cpu(main):
    # pfor (jacobian, batch_jacobian, vectorized_map) places the BroadcastTo of
    # Sum's gradient on the APU, where graph execution has no CPU fallback.
    for name, case in main["jacobians"].items():
        assert case["error"] is None, f"{name}: {case['error']}"
        assert case["device"].endswith("device:APU:0"), name
        assert case["equal"], name
        assert case["launched"], name  # kernels ran on the APU (grappler folds some programs to little)
    broadcasts = {name: case["launched"] for name, case in main["jacobians"].items()
                  if name.startswith(("broadcast_to ", "jacobian of sum(x * x) "))}  # fmt: skip
    assert len(broadcasts) == 4
    assert all(launched.get("BroadcastTo") for launched in broadcasts.values()), broadcasts


def test_other_ops_fall_back_to_cpu(main):
    for name, (device, equal) in main["fallback"].items():
        assert device.endswith("device:CPU:0"), name
        assert equal, name


# ---------------------------------------------------------------- faults


@pytest.mark.parametrize("fault", sorted(apu.FAULTS))
def test_fault_is_visible_and_switches_off(main, fault):
    for case, seen in main["faults"][fault].items():
        assert seen == {"before": False, "on": True, "off": False, "control": False}, case


def test_unknown_fault_is_rejected(library):
    with pytest.raises(ValueError, match=r"unknown APU fault 'nope'.*relu_negative_zero"):
        apu.configure(fault="nope")
    with pytest.raises(ValueError, match="copy_truncate"):
        apu.set_fault("nope")
    found = _child("_worker_unknown_fault", library, {"COMPAT_APU_FAULT": "nope"})
    assert found[
        "load"
    ] == "ValueError: unknown APU fault 'nope' in COMPAT_APU_FAULT; known faults: " + ", ".join(
        [*apu.FAULTS, *apu.FATAL_FAULTS]
    )
    assert found["tensorflow_imported"] is False  # rejected before TensorFlow loads anything
    assert found["set_fault"] == -1


# ---------------------------------------------------------------- workers (child processes)


def _worker_main(library: str) -> None:
    apu.configure()
    apu.load(Path(library))
    import tensorflow as tf

    found = {"physical": [d.name for d in tf.config.list_physical_devices()]}
    found["placement"] = _placement(tf)
    found["jacobians"] = _jacobians(tf)
    apu.reset_counters()
    found["mismatches"] = _sweep(tf)
    found["launched"] = sorted(apu.counters())
    found["fallback"] = _fallback(tf)
    found["faults"] = _faults(tf)
    print(json.dumps(found))


def _worker_two_devices(library: str) -> None:
    apu.configure(devices=2, fault="relu_negative_zero")
    apu.load(Path(library))
    import tensorflow as tf

    def relu_differs() -> tuple[str, bool]:
        x = np.full(3, -0.0, np.float32)
        with tf.device("/APU:1"):
            y = tf.nn.relu(x)
        return y.device, bool(np.signbit(y.numpy()).any() != np.signbit(_cpu(tf, tf.nn.relu, x)).any())

    device, differs = relu_differs()
    apu.set_fault(None)
    found = {"apus": [d.name for d in tf.config.list_physical_devices("APU")], "device": device}
    found |= {"fault_differs": differs, "after_off_differs": relu_differs()[1]}
    print(json.dumps(found))


def _worker_unknown_fault(library: str) -> None:
    try:
        apu.load(Path(library))
        found = {"load": "loaded"}
    except ValueError as e:
        found = {"load": f"ValueError: {e}"}
    found["tensorflow_imported"] = "tensorflow" in sys.modules
    # The plug-in's own check (TensorFlow aborts the process when it fails at load).
    found["set_fault"] = ctypes.CDLL(library).compat_apu_set_fault(b"nope", 0)
    print(json.dumps(found))


def _cpu(tf, f, *args, **kwargs) -> np.ndarray:
    with tf.device("/CPU:0"):
        return f(*args, **kwargs).numpy()


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal bit for bit; NaN matches NaN whatever its payload and sign."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    nan = np.isnan(a)
    bits = np.uint32 if a.dtype.itemsize == 4 else np.uint64
    return bool(np.array_equal(nan, np.isnan(b)) and np.array_equal(a.view(bits)[~nan], b.view(bits)[~nan]))


def _placement(tf) -> dict:
    apu.reset_counters()
    x = tf.constant([-1.0, -0.0, 2.0])
    default = tf.nn.relu(x)
    with tf.device("/APU:0"):
        scoped = tf.nn.relu(x)
    traced = tf.function(tf.nn.relu)(x)
    results = [default, scoped, traced]
    return {
        "devices": [r.device for r in results],
        "relu_launches": apu.counters().get("Relu", 0),
        "values": [r.numpy().tolist() for r in results],
    }


FLOATS = [np.float32, np.float64]
NUMBERS = FLOATS + [np.int32, np.int64]
TYPES = NUMBERS + [np.bool_]


def _values(rng, dtype, shape) -> np.ndarray:
    """Random values, a good share of them special: NaN, inf, +-0, denormals, extremes."""
    dtype, n = np.dtype(dtype), int(np.prod(shape))
    if dtype.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        special = np.array([0, 1, -1, 7, -7, info.min, info.max, info.min + 1, info.max - 1], dtype)
        values = rng.integers(info.min, info.max, n, dtype, endpoint=True)
        small = rng.random(n) < 0.4
        values[small] = rng.integers(-9, 10, small.sum())
    else:
        info = np.finfo(dtype)
        special = np.array(
            [0.0, -0.0, 1, -1, 0.5, 2.5, -2.5, np.nan, -np.nan, np.inf, -np.inf, info.max, -info.max,
             info.tiny, info.tiny / 4, -info.tiny / 4, 3e9, -3e9, 2.0**31, -(2.0**31), 2.0**63, 1e20],
            dtype,
        )  # fmt: skip
        scale = rng.choice(np.array([1, 1e-3, 1e3, 1e30], dtype), n)
        values = rng.standard_normal(n).astype(dtype) * scale
    chosen = rng.random(n) < 0.35
    values[chosen] = rng.choice(special, chosen.sum())
    return values.reshape(shape)


def _ties(rng, dtype, shape) -> np.ndarray:
    """Mostly zeros of both signs and denormals: where max/min lanes disagree."""
    tiny = np.finfo(dtype).tiny
    pool = np.array([0.0, -0.0, tiny / 8, -tiny / 8, 1.0, -1.0, np.nan], dtype)
    return rng.choice(pool, int(np.prod(shape))).reshape(shape)


def _sweep(tf) -> list[str]:
    """Every kernel on random and special inputs, APU against CPU; the mismatches."""
    raw, rng, mismatches = tf.raw_ops, np.random.default_rng(0), []

    def check(label, op, tolerance=False, **inputs):
        with tf.device("/CPU:0"):
            try:
                cpu = getattr(raw, op)(**inputs).numpy()
            except (tf.errors.OpError, TypeError, ValueError):
                cpu = None
        with tf.device("/APU:0"):
            try:
                result = getattr(raw, op)(**inputs)
                device, got = result.device, result.numpy()
            except (tf.errors.OpError, TypeError, ValueError) as e:
                device, got = "", f"{type(e).__name__}: {str(e)[:200]}"
        if cpu is None or isinstance(got, str):
            if (cpu is None) != isinstance(got, str):
                mismatches.append(f"{op} {label}: CPU {'fails' if cpu is None else 'runs'}, APU {got!r:.200}")
        elif not device.endswith("APU:0"):
            mismatches.append(f"{op} {label}: ran on {device}")
        elif not (_matmul_close(cpu, got, inputs) if tolerance else _same(cpu, got)):
            mismatches.append(f"{op} {label}: CPU {cpu.ravel()[:6]} APU {got.ravel()[:6]}")

    binary = ["AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Less", "LessEqual", "Greater"]
    binary += ["GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr"]
    shapes = [((), ()), ((), (5,)), ((7,), ()), ((17,), (17,)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)),
              ((2, 1, 4), (3, 1)), ((0, 3), (3,)), ((2, 3, 5, 7), (3, 1, 7)), ((1,), (9,)),
              ((2, 1, 3, 1, 5), (1, 4, 1, 6, 5)), ((3, 40), (3, 1))]  # fmt: skip
    for op, dtype, (sx, sy) in itertools.product(binary, TYPES, shapes):
        x, y = tf.constant(_values(rng, dtype, sx)), tf.constant(_values(rng, dtype, sy))
        check(f"{np.dtype(dtype).name} {sx} {sy}", op, x=x, y=y)
    for op, dtype in itertools.product(["Equal", "NotEqual"], TYPES):
        x, y = _values(rng, dtype, (2, 3)), _values(rng, dtype, (4,))
        check("incompatible shapes", op, x=x, y=y, incompatible_shape_error=False)
    for dtype, n, op in itertools.product(FLOATS, [*range(1, 20), 70, 1000], ["Maximum", "Minimum"]):
        check(f"ties {np.dtype(dtype).name} {n}", op, x=_ties(rng, dtype, (n,)), y=_ties(rng, dtype, (n,)))
        check(
            f"ties {np.dtype(dtype).name} {n} scalar", op, x=_ties(rng, dtype, (n,)), y=_ties(rng, dtype, ())
        )
    for dtype, n in itertools.product(FLOATS, [*range(1, 20), 70, 1000]):
        check(f"ties {np.dtype(dtype).name} {n}", "Relu", features=_ties(rng, dtype, (n,)))
    for op, dtype, shape in itertools.product(
        ["Neg", "Abs", "Square", "Relu", "LogicalNot", "Reciprocal"],
        TYPES,
        [(), (3,), (8,), (17,), (0,), (2, 0, 3), (5, 13)],
    ):
        x = tf.constant(_values(rng, dtype, shape))
        check(f"{np.dtype(dtype).name} {shape}", op, **({"features": x} if op == "Relu" else {"x": x}))
    for src, dst in itertools.product(TYPES, TYPES):
        check(f"{np.dtype(src).name}->{np.dtype(dst).name}", "Cast", x=_values(rng, src, (33,)), DstT=dst)
    check(
        "float64->float32 truncate", "Cast", x=_values(rng, np.float64, (33,)), DstT=np.float32, Truncate=True
    )
    for dtype, (m, k, n), ta, tb in itertools.product(
        TYPES,
        [(2, 3, 4), (1, 5, 1), (3, 0, 2), (0, 2, 2), (6, 17, 5), (16, 40, 24)],
        [False, True],
        [False, True],
    ):
        a = _matmul_values(rng, dtype, (k, m) if ta else (m, k))
        b = _matmul_values(rng, dtype, (n, k) if tb else (k, n))
        check(
            f"{np.dtype(dtype).name} {m, k, n} {ta, tb}",
            "MatMul",
            True,
            a=a,
            b=b,
            transpose_a=ta,
            transpose_b=tb,
        )
    for dtype, (xs, ys), ax, ay in itertools.product(
        TYPES,
        [((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 3, 4), (4, 2))],
        [False, True],
        [False, True],
    ):
        xs, ys = list(xs), list(ys)
        if ax:
            xs[-2:] = xs[:-3:-1]
        if ay:
            ys[-2:] = ys[:-3:-1]
        x, y = _matmul_values(rng, dtype, xs), _matmul_values(rng, dtype, ys)
        check(
            f"{np.dtype(dtype).name} {xs} {ys} {ax, ay}", "BatchMatMulV2", True, x=x, y=y, adj_x=ax, adj_y=ay
        )
    reductions = [((), []), ((5,), [0]), ((5,), []), ((100,), [0]), ((3, 70), [1]), ((70, 3), [0]), ((40, 20), [0]),
                  ((3, 20, 11), [1]), ((3, 20, 5), [0, 2]), ((2, 3, 4, 5), [0, 2]), ((2, 3, 4, 5), [1, -1]),
                  ((0, 3), [0]), ((3, 0), [1]), ((1, 1, 5), [0, 1]), ((2, 1, 3), [1]), ((9000,), [0]),
                  ((3, 9000), [1]), ((17, 5), [0]), ((2, 9, 33), [1]), ((2, 3), [0, 0])]  # fmt: skip
    for op, dtype, (shape, axes), keep in itertools.product(
        ["Sum", "Max", "Mean"], TYPES, reductions, [False, True]
    ):
        x = _values(rng, dtype, shape) if rng.random() < 0.5 else _matmul_values(rng, dtype, shape)
        for index in [np.int32, np.int64]:
            check(
                f"{np.dtype(dtype).name} {shape} {axes} {keep}",
                op,
                input=x,
                axis=np.array(axes, index),
                keep_dims=keep,
            )
    for dtype, shape, axes in itertools.product(FLOATS, [(23,), (40, 9), (9, 40), (3, 20, 11)], [[0], [-1]]):
        check(f"ties {np.dtype(dtype).name} {shape} {axes}", "Max", input=_ties(rng, dtype, shape), axis=axes)
    for dtype, count in itertools.product(TYPES, [1, 2, 8, 9, 17, 25]):
        check(
            f"{np.dtype(dtype).name} x{count}",
            "AddN",
            inputs=[_values(rng, dtype, (21,)) for _ in range(count)],
        )
    # from (5,) -> (0,) on, CPU fails: incompatible (an empty output too), larger than the output, rank, negative
    broadcasts = [((), ()), ((), (3,)), ((), (0,)), ((17,), (17,)), ((3,), (2, 3)), ((3, 1), (3, 4)), ((1,), (0,)),
                  ((2, 1, 4), (3, 2, 5, 4)), ((0, 3), (2, 0, 3)), ((2, 1, 3, 1), (2, 4, 3, 40)), ((5,), (0,)),
                  ((3,), (4,)), ((3,), (1,)), ((3, 0), (1, 0)), ((2, 3), (3,)), ((3,), (-1, 3))]  # fmt: skip
    for dtype, (shape, to), index in itertools.product(TYPES, broadcasts, [np.int32, np.int64]):
        check(
            f"{np.dtype(dtype).name} {shape} -> {to}",
            "BroadcastTo",
            input=_values(rng, dtype, shape),
            shape=np.array(to, index),
        )
    return mismatches


def _matmul_values(rng, dtype, shape) -> np.ndarray:
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return _values(rng, dtype, shape)


def _matmul_close(cpu: np.ndarray, got: np.ndarray, inputs: dict) -> bool:
    """Float products within a few ULPs of CPU, integers exactly.

    TF's CPU GEMMs (oneDNN for float32, Eigen for float64) block and order the
    k sum by shape and ISA; the APU accumulates over k in order, as they do for
    most moderate shapes, so most elements match bit for bit but not all.
    """
    if cpu.dtype.kind != "f":
        return _same(cpu, got)
    a, b = (np.abs(np.asarray(inputs[k], np.float64)) for k in (("a", "b") if "a" in inputs else ("x", "y")))
    if inputs.get("transpose_a") or inputs.get("adj_x"):
        a = np.swapaxes(a, -1, -2)
    if inputs.get("transpose_b") or inputs.get("adj_y"):
        b = np.swapaxes(b, -1, -2)
    bound = 8 * np.finfo(cpu.dtype).eps * (a @ b)
    return cpu.shape == got.shape and bool(np.all(np.abs(cpu.astype(np.float64) - got) <= bound))


def _jacobians(tf) -> dict:
    """BroadcastTo and pfor's jacobians on the APU: per case its error (or
    None), result device, equality with CPU and APU kernel launches."""
    rng = np.random.default_rng(3)

    def through_tape(method: str):
        """jacobian(f, x) or batch_jacobian(f, x): a call that runs the tape's method of that name."""

        def build(f, x):
            def run():
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = f(x)
                return getattr(tape, method)(y, x)

            return run

        return build

    jacobian, batch_jacobian = through_tape("jacobian"), through_tape("batch_jacobian")

    def per_example_gradient(f, w, batch):
        def gradient(example):
            with tf.GradientTape() as tape:
                tape.watch(w)
                loss = f(w, example)
            return tape.gradient(loss, w)

        return lambda: tf.vectorized_map(gradient, batch)

    cases = {}
    for dtype in FLOATS:
        x, y = (tf.constant(rng.standard_normal(3).astype(dtype)) for _ in range(2))
        batch = tf.constant(rng.standard_normal((4, 3)).astype(dtype))
        name = np.dtype(dtype).name
        cases |= {
            f"broadcast_to {name}": lambda x=x: tf.broadcast_to(x, [2, 3]),
            f"jacobian of sum(x * x) {name}": jacobian(lambda x: tf.reduce_sum(x * x), x),
            f"jacobian of x * y {name}": jacobian(lambda x, y=y: tf.reduce_sum(x * y) * x, x),
            f"batch_jacobian of sum(x * x, 1) {name}": batch_jacobian(
                lambda b: b * tf.reduce_sum(b * b, axis=1, keepdims=True), batch),
            f"per-example gradient of sum(w * x * x) {name}": per_example_gradient(
                lambda w, e: tf.reduce_sum(w * e * e), y, batch),
        }  # fmt: skip
    found = {}
    for name, f in cases.items():
        apu.reset_counters()
        try:
            with tf.device("/APU:0"):
                result = f()
            device, got, error = result.device, result.numpy(), None
        except tf.errors.OpError as e:
            device, got, error = "", None, f"{type(e).__name__}: {str(e)[:300]}"
        launched = apu.counters()
        found[name] = {"error": error, "device": device, "launched": launched,
                       "equal": got is not None and _same(got, _cpu(tf, f))}  # fmt: skip
    return found


def _fallback(tf) -> dict:
    """Ops without APU kernels under the APU scope: (device, equal to CPU)."""
    import tensorflow.experimental.numpy as tnp

    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    cases = {
        "sin": lambda: tf.math.sin(x),
        "exp": lambda: tf.math.exp(x),
        "tnp.where": lambda: tnp.where(x > 0, x, 0.0),
        "tnp.cumsum": lambda: tnp.cumsum(x, axis=0),
    }
    found = {}
    for name, f in cases.items():
        with tf.device("/APU:0"):
            result = f()
        found[name] = (result.device, _same(result.numpy(), _cpu(tf, f)))
    return found


def _faults(tf) -> dict:
    """Per fault and case: does APU differ from CPU before, with and after the
    fault, and (with the fault on) in control computations it must not touch?

    Every run gets fresh inputs: copy_truncate leaves stale bytes in the host
    buffer, which must not happen to hold the right answer.
    """
    rng = np.random.default_rng(2)

    def normal(*shapes, dtype=np.float32):  # makes fresh inputs at every call
        return lambda: [rng.standard_normal(shape).astype(dtype) for shape in shapes]

    def small(*shapes):  # exact products and sums: CPU's GEMM order does not matter
        return lambda: [rng.integers(-4, 5, shape).astype(np.float32) for shape in shapes]

    def negative_zeros():  # 16 packet lanes and 3 scalar ones
        return [np.full(19, -0.0, np.float32)]

    def matmul_b_transposed(a, b):
        return tf.linalg.matmul(a, b, transpose_b=True)

    def batch_matmul_y_adjoint(x, y):
        return tf.raw_ops.BatchMatMulV2(x=x, y=y, adj_y=True)

    def square_but_last(x):  # the slice runs on CPU, after the copy
        return tf.square(x)[:-1]

    ops = [tf.add, tf.subtract, tf.multiply, tf.maximum]  # broadcast_stride's, by seed
    # fault -> case -> (seed, f, make inputs, [(control f, make control inputs)])
    cases = {
        "relu_negative_zero": {"-0.0": (0, tf.nn.relu, negative_zeros, [(tf.nn.relu, normal(19))])},
        "sum_float16_accumulate": {
            "float32": (0, tf.reduce_sum, normal(1000), [(tf.reduce_max, normal(1000))]),
            "float64": (0, tf.reduce_sum, normal(1000, dtype=np.float64), [(tf.reduce_mean, normal(1000))]),
        },
        "float64_as_float32": {
            op.__name__: (0, op, normal(50, 50, dtype=np.float64), [(op, normal(50, 50))])
            for op in [tf.add, tf.subtract, tf.multiply, tf.divide]
        },
        "broadcast_stride": {
            op.__name__: (
                seed,
                op,
                normal((4, 5), 5),
                [(op, normal((4, 5), (4, 5)))]
                + [(other, normal((4, 5), 5)) for other in ops if other is not op],
            )
            for seed, op in enumerate(ops)
        },
        "copy_truncate": {"square": (0, tf.square, normal(10), [(square_but_last, normal(10))])},
        "matmul_transpose": {
            "transpose_b": (
                0,
                matmul_b_transposed,
                small((3, 4), (5, 4)),
                [(batch_matmul_y_adjoint, small((3, 4), (5, 4)))],
            )
        },
        # a graph runs Relu on an executor thread; eager Relu, on this thread, is the control
        "graph_relu": {
            "-0.0": (
                0,
                tf.function(tf.nn.relu, autograph=False),
                negative_zeros,
                [(tf.nn.relu, negative_zeros)],
            )
        },
        "mul_rounds_toward_zero": {
            "float32": (0, tf.multiply, normal(50, 50), [(tf.multiply, normal(50, 50, dtype=np.float64))])
        },
    }

    def differs(f, make_inputs) -> bool:
        inputs = make_inputs()
        with tf.device("/APU:0"):
            got = f(*inputs).numpy()  # before CPU's result exists
        return not _same(_cpu(tf, f, *inputs), got)

    found = {}
    for fault, fault_cases in cases.items():
        found[fault] = {}
        for case, (seed, f, make_inputs, controls) in fault_cases.items():
            seen = {"before": differs(f, make_inputs)}
            apu.set_fault(fault, seed)
            seen["on"] = differs(f, make_inputs)
            seen["control"] = any(differs(*control) for control in controls)
            apu.set_fault(None)
            seen["off"] = differs(f, make_inputs)
            found[fault][case] = seen
    return found
