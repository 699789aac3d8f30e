"""The reference PrivateUse1 device "apu" (compat/devices/torch_apu.*).

Renaming PrivateUse1 is once per process and the device count and env faults
are read at load, so every check runs in a child process (one for the checks
of the default environment); the children of this module start together
(tests.helpers.Jobs).
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.helpers import REPO, Jobs, output, run

pytest.importorskip("torch")

from compat.devices import DeviceBuildError, torch_apu

pytestmark = [
    pytest.mark.xdist_group("torch-apu"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

# Every child starts with this: the device loaded, and helpers.
PRELUDE = """
import copy, io, math
import torch
from compat.devices import torch_apu
torch_apu.load()
APU0 = torch.device("apu", 0)
ALL_DTYPES = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16,
              torch.uint32, torch.uint64, torch.float16, torch.bfloat16, torch.float32, torch.float64,
              torch.complex64, torch.complex128]

def raw(t):
    return t.detach().reshape(-1).view(torch.uint8)

def bits(t):
    # dtype, shape and bytes, for bit-for-bit comparison (NaN payloads, -0.0 included)
    return t.dtype, tuple(t.shape), raw(t.cpu()).numpy().tobytes()

def raises(f, *fragments):
    try:
        f()
    except (RuntimeError, ValueError) as e:
        assert all(s in str(e) for s in fragments), str(e)
        return
    raise AssertionError(f"no error with {fragments}")
"""

BASICS = """
x = torch.ones(3, device="apu")
assert x.device == APU0 and str(x.device) == "apu:0" and x.is_apu, x.device
assert torch.apu.is_available() and torch.apu.device_count() == 1 and torch.apu.current_device() == 0
assert repr(torch.tensor([1.5, -2.0]).to("apu")) == "tensor([ 1.5000, -2.0000], device='apu:0')"
for dtype in ALL_DTYPES:
    assert "device='apu:0'" in str(torch.arange(3).to(dtype).to("apu")), dtype
y = torch.arange(6.0).reshape(2, 3).to("apu")
assert y.device == APU0 and torch.equal(y.cpu(), torch.arange(6.0).reshape(2, 3))
for r in (y * 2, y.sum(), y.exp(), y.T.contiguous(), y[1], y.view(3, 2), y.unfold(1, 2, 1), y.apu()):
    assert r.device == APU0, r
v = y.view(-1)
v[0] = 100.0  # views share storage with their base
assert y[0, 0].item() == 100.0

x = torch.ones(3, device="apu", requires_grad=True)
(x * x).sum().backward()
assert x.grad.device == APU0 and x.grad.cpu().tolist() == [2.0, 2.0, 2.0]

# a small network's gradients equal CPU's bit for bit
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 1))
inputs = torch.randn(4, 5)
def grads(device):
    model = copy.deepcopy(net).to(device)
    model(inputs.to(device)).pow(2).mean().backward()
    return [bits(p.grad) for p in model.parameters()]
assert grads("apu") == grads("cpu")

torch_apu.load()  # idempotent
torch_apu.load(devices=1)
raises(lambda: torch_apu.load(devices=2), "fixed per process")
raises(lambda: torch.ones(1, device="apu:1"), "apu:1 does not exist")
"""

TWO_DEVICES = """
assert torch.apu.device_count() == 2
x = torch.arange(4.0).to("apu:1")
assert str(x.device) == "apu:1"
for r in (x * 2, x + x, x.sum(), torch.relu(x), x.exp(), x[1:], x.view(2, 2), x + torch.tensor(1.0)):
    assert r.device == x.device, r
y = x.to("apu")  # the current device, 0
assert y.device == APU0 and torch.equal(y.cpu(), x.cpu()) and torch.equal(y.to("apu:1").cpu(), x.cpu())
torch.apu.set_device(1)
assert str(torch.ones(1, device="apu").device) == "apu:1"
torch.apu.set_device(0)
w = torch.ones(3, device="apu:1", requires_grad=True)
(w * w).sum().backward()
assert w.grad.device == w.device and w.grad.cpu().tolist() == [2.0, 2.0, 2.0]
for f in (torch.add, torch.mul, torch.sub, torch.maximum, lambda p, q: torch.cat([p, q]),
          lambda p, q: torch.where(p > 1, p, q), lambda p, q: p.view(2, 2) @ q.view(2, 2)):
    raises(lambda: f(y, x), "Expected all tensors to be on the same device", "apu:0", "apu:1")
    raises(lambda: f(x, y), "Expected all tensors to be on the same device", "apu:0", "apu:1")
raises(lambda: torch.ones(1, device="apu:2"), "apu:2 does not exist")
buffer = io.BytesIO()
torch.save(x, buffer)
buffer.seek(0)
assert bits(torch.load(buffer)) == bits(x) and torch.load(io.BytesIO(buffer.getvalue())).device == x.device
torch_apu.set_fault("wrong_device", 0)  # with two devices, add lands on the other one
assert str((y + y).device) == "apu:1" and str((x + 1).device) == "apu:0"
"""

MIXED = """
a = torch.arange(4.0).to("apu")
c = torch.arange(4.0)
binary = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "maximum": torch.maximum,
    "where": lambda p, q: torch.where(p > 1, p, q), "atan2": torch.atan2, "dot": torch.dot,
}
for name, f in {**binary, "cat": lambda p, q: torch.cat([p, q]), "mm": lambda p, q: p.view(2, 2) @ q.view(2, 2),
                "index_select": lambda p, q: p.index_select(0, q.long())}.items():
    for p, q in ((a, c), (c, a)):
        raises(lambda: f(p, q), "Expected all tensors to be on the same device")
# like CUDA, a 0-d CPU tensor is accepted, in either position
s = torch.tensor(2.0)
for name, f in binary.items():
    if name == "dot":
        continue
    for p, q in ((a, s), (s, a)):
        r = f(p, q)
        assert r.device == APU0 and bits(r) == bits(f(p.cpu(), q.cpu())), (name, r)
assert a[torch.tensor([0, 2])].cpu().tolist() == [0.0, 2.0]  # CPU indices, as CUDA allows
raises(lambda: torch.ones((), device="apu") + c, "Expected all tensors to be on the same device")
"""

DTYPES = """
g = torch.Generator().manual_seed(0)

def patterns(dtype, n=4096):
    # every bit pattern at random (NaN payloads, subnormals, infinities), plus the special values
    if dtype == torch.bool:
        return torch.randint(0, 2, (n,), generator=g).bool()
    t = torch.randint(0, 256, (n * dtype.itemsize,), dtype=torch.uint8, generator=g).view(dtype)
    if dtype.is_floating_point or dtype.is_complex:
        real = torch.float64 if dtype.is_complex else dtype
        fi = torch.finfo(real)
        special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, fi.tiny, fi.tiny / 4, -fi.tiny / 8,
                                fi.max, fi.min, fi.eps], dtype=real).to(dtype)
        t = torch.cat([special, t])
    return t

for dtype in ALL_DTYPES:
    t = patterns(dtype)
    on = t.to("apu")
    assert bits(on) == bits(t), dtype
    assert bits(torch.empty_like(on).copy_(on)) == bits(t), dtype
    strided = t[: 4096].view(64, 64).t()
    assert bits(strided.to("apu")) == bits(strided), dtype
    assert bits(torch.empty(64, 64, dtype=dtype).copy_(on[:4096].view(64, 64).t())) == bits(strided), dtype
    for other in ALL_DTYPES:
        assert bits(on.to(other)) == bits(t.to(other)), (dtype, other)

def values(dtype, shape):
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype.is_floating_point or dtype.is_complex:
        wide = torch.complex128 if dtype.is_complex else torch.float64
        t = (torch.randn(shape, generator=g, dtype=wide) * 3).to(dtype)
        flat = t.view(-1)
        subnormal = torch.finfo(dtype).tiny / 2 if not dtype.is_complex else 1e-310
        flat[:6] = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, subnormal])
        return t
    return torch.randint(1, 100, shape, generator=g).to(dtype)

unary = {
    "neg": torch.neg, "abs": torch.abs, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "sin": torch.sin,
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "floor": torch.floor, "round": torch.round, "relu": torch.relu,
    "sign": torch.sign, "isnan": torch.isnan, "logical_not": torch.logical_not, "bitwise_not": torch.bitwise_not,
    "reciprocal": torch.reciprocal, "square": torch.square, "sum": torch.sum, "sum0": lambda t: t.sum(0),
    "mean": torch.mean, "prod1": lambda t: t.prod(1), "cumsum": lambda t: t.cumsum(1), "amax": lambda t: t.amax(0),
    "argmax": lambda t: t.argmax(1), "sort": lambda t: torch.sort(t, 1, stable=True).values,
    "flip": lambda t: t.flip(0), "nonzero": torch.nonzero, "mask": lambda t: t[t != 0],
    "index": lambda t: t[:, torch.tensor([3, 0, 3])], "softmax": lambda t: torch.softmax(t, 1),
    "transpose_clone": lambda t: t.t().clone(), "clamp": lambda t: t.clamp(-1, 1), "to_float": lambda t: t.float(),
}
binary = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "floor_divide": torch.floor_divide,
    "remainder": torch.remainder, "pow": torch.pow, "maximum": torch.maximum, "minimum": torch.minimum,
    "eq": torch.eq, "lt": torch.lt, "atan2": torch.atan2, "bitwise_and": torch.bitwise_and,
    "logical_and": torch.logical_and, "matmul": torch.matmul, "where": lambda p, q: torch.where(p != 0, p, q),
    "cat": lambda p, q: torch.cat([p, q]), "stack": lambda p, q: torch.stack([p, q]),
    "broadcast_add": lambda p, q: p[:, :1] + q[:1, :], "add_scalar": lambda p, q: p + 3,
}
checked = 0
for dtype in ALL_DTYPES:
    x, y = values(dtype, (16, 16)), values(dtype, (16, 16))
    cases = [(n, f, (x,)) for n, f in unary.items()] + [(n, f, (x, y)) for n, f in binary.items()]
    for name, f, args in cases:
        try:
            want = f(*args)
        except (RuntimeError, TypeError, NotImplementedError) as e:
            try:
                f(*[a.to("apu") for a in args])
            except type(e):
                continue
            raise AssertionError(f"{name} {dtype}: CPU raised {e!r}, apu did not")
        got = f(*[a.to("apu") for a in args])
        assert got.device == APU0 and bits(got) == bits(want), (name, dtype)
        checked += 1
assert checked > 400, checked
"""

COUNTERS = """
torch_apu.reset_counters()
assert torch_apu.counters() == {}
x = torch.ones(3, device="apu")
y = torch.exp(x) + x
y.cpu()
c = torch_apu.counters()
assert c["aten::empty.memory_format"]["device"] >= 1 and c["aten::empty.memory_format"]["fallback"] == 0, c
assert c["aten::fill_.Scalar"] == {"device": 1, "fallback": 0}, c
assert c["aten::add.Tensor"] == {"device": 0, "fallback": 1}, c
assert c["aten::exp.out"] == {"device": 0, "fallback": 1}, c  # structured ops reach the fallback as out=
assert c["aten::_copy_from"]["device"] >= 1, c
torch_apu.reset_counters()
assert torch_apu.counters() == {}

from compat.devices.torch_apu import FAULTS
try:
    torch_apu.set_fault("nope")
except ValueError as e:
    assert all(name in str(e) for name in FAULTS), e
else:
    raise AssertionError("unknown fault accepted")
"""

# Probes compare each result with CPU's on the device (torch.equal of raw
# bytes), so that copy_truncate cannot spoil them.
PROBES = """
g = torch.Generator().manual_seed(1)
x64, y64 = torch.randn(4096, generator=g, dtype=torch.float64), torch.rand(4096, generator=g, dtype=torch.float64) + 0.5
x32, y32 = x64.float(), y64.float()
m32, r32 = torch.randn(64, 64, generator=g), torch.randn(64, generator=g)
i64, j64 = torch.randint(-99, 99, (64, 64), generator=g), torch.randint(-99, 99, (64, 1), generator=g)
z = torch.tensor([-0.0, 0.0, -1.0, 2.0] * 16)

def probe(f, *args):
    want = f(*args)
    got = f(*[a.to("apu") for a in args])
    return got.device == APU0 and torch.equal(raw(got), raw(want.to(APU0)))

def to_host(t):
    host = torch.full_like(t, 7.0)
    host.copy_(t.to("apu"))
    return torch.equal(host, t)

def mismatches():
    checks = {
        "copy_to_host": to_host(x64),
        "add_f64": probe(torch.add, x64, y64), "div_f64": probe(torch.div, x64, y64),
        "add_f32": probe(torch.add, x32, y32), "mul_f32": probe(torch.mul, x32, y32),
        "sum_f32": probe(torch.sum, x32), "sum_dim_f64": probe(lambda t: t.view(64, 64).sum(1), x64),
        "relu_f32": probe(torch.relu, z), "maximum_f32": probe(lambda t: torch.maximum(t, torch.zeros_like(t)), z),
        "add_bcast_f32": probe(torch.add, m32, r32), "mul_bcast_i64": probe(torch.mul, i64, j64),
        "sub_bcast_f64": probe(torch.sub, x64[:2, None], x64[None, :3]), "add_i64": probe(torch.add, i64, i64),
        # ops no fault is about
        "sub_f32": probe(torch.sub, x32, y32), "exp_f32": probe(torch.exp, x32),
        "matmul_f32": probe(torch.matmul, m32, m32),
    }
    return {name for name, ok in checks.items() if not ok}
"""

# Which probes each fault must spoil (and no others), and an exact check of what it does.
FAULT_CASES = {
    "copy_truncate": (
        {"copy_to_host"},
        """
host = torch.full((5,), 7.0)
host.copy_(torch.arange(5.0).to("apu"))
assert host.tolist() == [0.0, 1.0, 2.0, 3.0, 7.0], host  # the last element was never copied
""",
    ),
    "wrong_device": (
        {"add_f64", "add_f32", "add_bcast_f32", "add_i64"},
        """
a = torch.ones(3, device="apu")
assert (a + a).device.type == "cpu" and (a * a).device == APU0  # seed 0 picks add
torch_apu.set_fault("wrong_device", 1)
assert (a * a).device.type == "cpu" and (a + a).device == APU0 and a.sum().device == APU0
torch_apu.set_fault("wrong_device", 2)
assert a.sum().device.type == "cpu" and (a * a).device == APU0
""",
    ),
    "float64_as_float32": (
        {"add_f64", "div_f64", "sum_dim_f64", "sub_bcast_f64"},
        """
a, b = x64.to("apu"), y64.to("apu")
for op in (torch.add, torch.sub, torch.mul, torch.div):
    assert bits(op(a, b)) == bits(op(x32, y32).double()) != bits(op(x64, y64)), op
assert bits(torch.add(a.float(), b.float())) == bits(torch.add(x32, y32))  # float32 is untouched
""",
    ),
    "sum_float16_accumulate": (
        {"sum_f32", "sum_dim_f64"},
        """
assert torch.ones(4096, device="apu").sum().item() == 2048.0  # 2048 + 1 rounds to 2048 in float16
assert torch.ones(3, 4096, device="apu", dtype=torch.float64).sum(1).cpu().tolist() == [2048.0] * 3
assert torch.ones(4096, device="apu", dtype=torch.int32).sum().item() == 4096
""",
    ),
    "relu_negative_zero": (
        {"relu_f32", "maximum_f32"},
        """
assert torch.relu(torch.tensor(-0.0)).signbit() and not torch.relu(torch.tensor(-0.0, device="apu")).signbit().item()
assert torch.relu(torch.tensor([-0.0, -1.0, 2.0], device="apu")).cpu().tolist() == [0.0, 0.0, 2.0]
""",
    ),
    "broadcast_stride": (
        {"add_bcast_f32", "mul_bcast_i64", "sub_bcast_f64"},
        """
got = (m32.to("apu") + r32.to("apu")).cpu()
assert torch.equal(got, (m32[:1] + r32).expand(64, 64))  # m32 read with stride 0 along dim 0
p, q = torch.randn(2, 1, 3, generator=g).to("apu"), torch.randn(1, 4, 3, generator=g).to("apu")
results = {}
for seed in (0, 1, 0):
    torch_apu.set_fault("broadcast_stride", seed)
    results.setdefault(seed, []).append(bits(p * q))
assert results[0][0] == results[0][1] != results[1][0]  # the seed picks the dimension, deterministically
""",
    ),
    "mul_rounds_toward_zero": (
        {"mul_f32"},
        """
got, want = (x32.to("apu") * y32.to("apu")).cpu(), x32 * y32
exact = x32.double() * y32.double()  # float32 products are exact in float64
off = got != want
assert off.any() and torch.equal(got[off], torch.nextafter(want[off], torch.zeros_like(want[off])))
assert torch.all(want[off].double().abs() > exact[off].abs())  # one step back only where CPU rounded away from zero
assert bits(x64.to("apu") * y64.to("apu")) == bits(x64 * y64)  # float64 is untouched
""",
    ),
}

# Runs every fault in turn: probes before, with the fault, its exact check, and after.
FAULTS_SCRIPT = """
import json, traceback
report = {{}}
for name, (expected, exact) in {cases!r}.items():
    torch_apu.set_fault(None)
    entry = {{"before": sorted(mismatches())}}
    torch_apu.set_fault(name)
    entry["on"] = sorted(mismatches())
    try:
        exec(exact)
        entry["exact"] = "ok"
    except Exception:
        entry["exact"] = traceback.format_exc()
    torch_apu.set_fault(None)
    entry["after"] = sorted(mismatches())
    report[name] = entry
print(json.dumps(report))
"""

ENV_FAULT = """
a = torch.ones(3, device="apu")
assert (a * a).device.type == "cpu" and (a + a).device == APU0  # COMPAT_APU_SEED=1 picks mul
torch_apu.set_fault(None)
assert (a * a).device == APU0
"""

BAD_ENV = """
import os
from compat.devices import torch_apu
for env, message in [({"COMPAT_APU_DEVICES": "0"}, "the apu device count (COMPAT_APU_DEVICES) must be 1..64, got 0"),
                     ({"COMPAT_APU_DEVICES": "x"}, "COMPAT_APU_DEVICES must be an integer, got 'x'"),
                     ({"COMPAT_APU_FAULT": "nope"}, "unknown apu fault 'nope'; known faults: copy_truncate, ")]:
    os.environ.update({"COMPAT_APU_DEVICES": "1", **env})
    try:
        torch_apu.load()
    except ValueError as e:
        assert message in str(e), e
    else:
        raise AssertionError(f"{env} accepted")
"""

BUILD_CACHED = """
from compat.devices import torch_apu
def no_compiling(*args, **kwargs):
    raise AssertionError(f"compiled again: {{args}}")
torch_apu.subprocess.run = no_compiling
assert str(torch_apu.build()) == {library!r}
"""

AUTOLOAD = """
import torch
print(hasattr(torch, "apu") and torch.ones(2, device="apu").device)
"""


DONE = "all checks ran"  # the child's last line: its assertions did not stop short

# Checks of one environment share a child (each child imports torch): each section runs in a
# namespace of its own, its output and its failure kept apart, with no fault left on after it.
SECTIONS = """
import contextlib, io, json, traceback
for name, code in {sections!r}.items():
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, dict(globals()))
        error = None
    except Exception:
        error = traceback.format_exc()
    torch_apu.set_fault(None)
    print(json.dumps({{"section": name, "stdout": out.getvalue(), "error": error}}))
"""


def child(code: str, tmp: Path, prelude: bool = True, **env: str) -> subprocess.CompletedProcess:
    env = {"COMPAT_APU_DEVICES": "1", "COMPAT_APU_FAULT": "", "COMPAT_APU_SEED": "0", **env}
    script = (PRELUDE if prelude else "") + textwrap.dedent(code) + f"\nprint({DONE!r})\n"
    return run(["-c", script], tmp, **env)


@pytest.fixture(scope="module")
def library():
    return torch_apu.build()


@pytest.fixture(scope="module")
def jobs(library, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("apu")
    entry_points = tmp / "paths" / "apu_probe-0.dist-info"
    entry_points.mkdir(parents=True)
    (entry_points / "METADATA").write_text("Metadata-Version: 2.1\nName: apu-probe\nVersion: 0\n")
    (entry_points / "entry_points.txt").write_text(
        "[torch.backends]\napu = compat.devices.torch_apu:autoload\n"
    )
    autoload_env = {
        "PYTHONPATH": f"{REPO}{os.pathsep}{entry_points.parent}",
        "TORCH_DEVICE_BACKEND_AUTOLOAD": "1",
    }
    faults_script = FAULTS_SCRIPT.format(
        cases={
            name: (sorted(spoiled), textwrap.dedent(exact)) for name, (spoiled, exact) in FAULT_CASES.items()
        }
    )
    sections = {
        "basics": BASICS,
        "mixed": MIXED,
        "dtypes": DTYPES,
        "counters": COUNTERS,
        "faults": PROBES + faults_script,
    }
    table = {
        "sections": lambda: child(
            SECTIONS.format(sections={k: textwrap.dedent(v) for k, v in sections.items()}), tmp / "sections"
        ),
        "two-devices": lambda: child(TWO_DEVICES, tmp / "two", COMPAT_APU_DEVICES="2"),
        "env-fault": lambda: child(
            ENV_FAULT, tmp / "env-fault", COMPAT_APU_FAULT="wrong_device", COMPAT_APU_SEED="1"
        ),
        "bad-env": lambda: child(BAD_ENV, tmp / "bad-env", prelude=False),
        "build-cached": lambda: child(
            BUILD_CACHED.format(library=str(library)), tmp / "cached", prelude=False
        ),
        "autoload": lambda: child(AUTOLOAD, tmp / "autoload", prelude=False, **autoload_env),
        "autoload-unbuilt": lambda: child(
            AUTOLOAD,
            tmp / "unbuilt",
            prelude=False,
            **autoload_env,
            COMPAT_CACHE_DIR=str(tmp / "empty-cache"),
        ),
    }
    started = Jobs(table)
    yield started
    started.close()


def passes(process: subprocess.CompletedProcess) -> str:
    assert process.returncode == 0, output(process)
    return process.stdout


def ran_to_the_end(process: subprocess.CompletedProcess) -> bool:
    """The child's script (its own asserts) exited 0 after its last check."""
    return passes(process).rstrip().endswith(DONE)


def sections(jobs) -> dict[str, dict]:
    """The sections of the shared child, which ran to the end: name -> its stdout and its
    error (the traceback of the assertion that stopped it, or None)."""
    assert ran_to_the_end(jobs["sections"]), output(jobs["sections"])
    found = [
        json.loads(line) for line in jobs["sections"].stdout.splitlines() if line.startswith('{"section": ')
    ]
    return {entry["section"]: entry for entry in found}


def test_basics_printing_and_autograd(jobs):
    assert sections(jobs)["basics"]["error"] is None


def test_two_devices(jobs):
    assert ran_to_the_end(jobs["two-devices"]), output(jobs["two-devices"])


def test_mixed_devices_raise_like_cuda(jobs):
    assert sections(jobs)["mixed"]["error"] is None


def test_every_dtype_equals_cpu_bit_for_bit(jobs):
    assert sections(jobs)["dtypes"]["error"] is None


def test_counters_native_and_fallback(jobs):
    assert sections(jobs)["counters"]["error"] is None


@pytest.mark.parametrize("fault", sorted(FAULT_CASES))
def test_fault_visible_then_gone(jobs, fault):
    faults = sections(jobs)["faults"]
    assert faults["error"] is None
    report = json.loads(faults["stdout"])
    assert report[fault] == {"before": [], "on": sorted(FAULT_CASES[fault][0]), "exact": "ok", "after": []}


def test_every_fault_is_tested():
    assert set(FAULT_CASES) == set(torch_apu.FAULTS)


def test_env_fault_and_seed_read_at_load(jobs):
    assert ran_to_the_end(jobs["env-fault"]), output(jobs["env-fault"])


def test_bad_env_is_a_value_error(jobs):
    assert ran_to_the_end(jobs["bad-env"]), output(jobs["bad-env"])


def test_build_is_cached_across_processes(jobs, library):
    before = library.stat().st_mtime_ns
    assert ran_to_the_end(jobs["build-cached"]), output(jobs["build-cached"])
    assert library.stat().st_mtime_ns == before


def test_autoload_entry_point(jobs):
    assert passes(jobs["autoload"]).split() == ["apu:0", *DONE.split()]
    assert passes(jobs["autoload-unbuilt"]).split() == ["False", *DONE.split()]  # never compiles at import


def test_build_force_and_compile_errors(tmp_path, monkeypatch):
    source = tmp_path / "probe.cpp"
    source.write_text("int compat_probe() { return 1; }\n")
    monkeypatch.setattr(torch_apu, "_SOURCE", source)
    first = torch_apu.build(tmp_path / "cache")
    assert first.exists() and torch_apu.build(tmp_path / "cache") == first
    inode = first.stat().st_ino
    assert torch_apu.build(tmp_path / "cache", force=True) == first and first.stat().st_ino != inode

    source.write_text("int compat_probe() { return undeclared_name; }\n")
    with pytest.raises(DeviceBuildError) as error:
        torch_apu.build(tmp_path / "cache")
    message = str(error.value)
    assert "\n" not in message and "error:" in message and "undeclared_name" in message, message
    assert list((tmp_path / "cache").glob("*/")) == [first.parent]  # the failed build left nothing

    monkeypatch.setenv("CXX", str(tmp_path / "no-such-compiler"))
    with pytest.raises(DeviceBuildError, match="no-such-compiler: not found"):
        torch_apu.build(tmp_path / "cache")
