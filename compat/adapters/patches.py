"""What compat changes inside the frameworks it checks (and inside Hypothesis), in one place.

A harness that changes its subjects could report its own artefacts, so each change is a named
``Patch`` here with the reason for it, applied only through ``applied`` (for the block that
needs it, then undone) and listed in the run's run.json (``in_force``). Two kinds:

- a *speed* patch claims that results do not change: ``--no-compat-patches`` (which sets
  ``COMPAT_PATCHES=off`` for the run's processes) runs without them, and tests/test_patches.py
  checks the claim on a sample of every family;
- a *setting* is part of what compat checks (an execution mode's definition, a run's example
  budget): it stays on under ``--no-compat-patches``, and is still scoped and listed.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass

SWITCH = "COMPAT_PATCHES"  # "off": no speed patch in this process and its children


@dataclass(frozen=True)
class Patch:
    name: str
    framework: str
    why: str
    speed: bool  # True: only speed, results unchanged (--no-compat-patches leaves it out)
    apply: Callable[..., contextlib.AbstractContextManager]


@contextlib.contextmanager
def replaced(owner, attribute: str, value):
    """``owner.attribute`` is ``value`` in the block, what it was after (if it exists at all:
    a framework version without it is left as it is)."""
    if not hasattr(owner, attribute):
        yield
        return
    before = getattr(owner, attribute)
    setattr(owner, attribute, value)
    try:
        yield
    finally:
        setattr(owner, attribute, before)


@contextlib.contextmanager
def dynamo_guard_profile():
    import torch._dynamo.guards as guards

    with replaced(guards, "profile_guard_manager", lambda *args: 0.0):
        yield


@contextlib.contextmanager
def dynamo_config():
    import torch._dynamo

    with torch._dynamo.config.patch(fail_on_recompile_limit_hit=True, trace_autograd_ops=True):
        yield


@functools.cache
def one_mlir_context():
    from jax._src.interpreters import mlir

    return mlir.make_ir_context()


@contextlib.contextmanager
def jax_mlir_context():
    from jax._src.interpreters import mlir

    if not hasattr(mlir, "make_ir_context"):
        yield
        return
    context = one_mlir_context()
    with replaced(mlir, "make_ir_context", lambda: context):
        yield


@functools.cache
def digest_of(function, added: bytes | None) -> bytes:
    from hypothesis.internal.reflection import function_digest

    return function_digest(function)


@contextlib.contextmanager
def hypothesis_digest_once():
    import hypothesis.core

    def digest(function) -> bytes:  # what marks a param apart is part of the key, as of the digest
        return digest_of(function, getattr(function, "_hypothesis_internal_add_digest", None))

    with replaced(hypothesis.core, "function_digest", digest):
        yield


@contextlib.contextmanager
def hypothesis_settings(test, settings):
    # Hypothesis reads a test's settings from this attribute at each call (there is no public
    # way to change a decorated test's); a parametrized test is one function, so the change
    # lasts for this call only
    with replaced(test, "_hypothesis_internal_use_settings", settings):
        yield


PATCHES = {
    patch.name: patch
    for patch in (
        Patch(
            "torch-dynamo-guard-profile",
            "torch",
            "dynamo times each new set of guards once, for its logs, after flushing the CPU's caches: "
            "more than half of each of compat's compilations (every call compiles afresh). The guards "
            "are still built and checked; only the timing (a number logged) is skipped",
            True,
            dynamo_guard_profile,
        ),
        Patch(
            "torch-dynamo-config",
            "torch",
            "torch.compile modes: a call dynamo cannot compile whole is an error, never a silent "
            "fall-back to eager (fail_on_recompile_limit_hit), and torch.autograd.grad goes into the "
            "graph as torch.func's transforms do (trace_autograd_ops)",
            False,
            dynamo_config,
        ),
        Patch(
            "jax-one-mlir-context",
            "jax",
            "JAX makes a new MLIR context for each lowering, its dialects loaded anew (3 ms), and compat "
            "lowers each primitive per dtype and shape, thousands of times per spec file: half of JAX's "
            "time, and processes of 3 GB. One context gives the same IR, so the same executables and "
            "persistent-cache keys (JAX's promotion specs 28 -> 15 s, 0.55 GB, the same records)",
            True,
            jax_mlir_context,
        ),
        Patch(
            "hypothesis-digest-once",
            "hypothesis",
            "Hypothesis digests a test's source (inspect.getsource, tokenized) twice at every call, for "
            "the derandomized profile's seed and for the example database's key, and the two are the "
            "same digest: computed once (1 ms a spec param, about 13 s of CPU in the test command)",
            True,
            hypothesis_digest_once,
        ),
        Patch(
            "hypothesis-settings-per-call",
            "hypothesis",
            "a spec's device and mode params run a share of its examples, and a spec that hung its "
            "process reruns with fewer and unshrunk (compat.harness.xp): the run's example budget",
            False,
            hypothesis_settings,
        ),
    )
}


def speed_patches_on() -> bool:
    return os.environ.get(SWITCH, "on") != "off"


def in_force() -> list[str]:
    """The patches this process (and a run started with its environment) applies, by name."""
    return [name for name, patch in PATCHES.items() if speed_patches_on() or not patch.speed]


def applied(name: str, *args) -> contextlib.AbstractContextManager:
    """Patch ``name`` applied for the block (a speed patch only where they are on), then undone."""
    patch = PATCHES[name]
    if patch.speed and not speed_patches_on():
        return contextlib.nullcontext()
    return patch.apply(*args)
