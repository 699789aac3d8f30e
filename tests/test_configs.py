"""The configurations users set (issue 32): each config changes what its setting changes on a
call that shows it, the default config does not, the setting does not outlast the call, and
the reproducer's setup lines put the backend into the same setting."""

from __future__ import annotations

import json

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.harness.plan import select
from compat.specs import FAMILIES
from tests.helpers import output, run

AVAILABLE = {a.name for a in select(None, []).adapters}

# (config selector, the default config's selector, op, args, what the config gives, what the default gives):
# a raised exception's type name, or the result's dtype
SHOWN = [
    # rank promotion: a (3,) operand broadcast against a (2, 3) one gains a dimension
    ("jax[rank_promotion=raise]", "jax[x64]", "add", (np.ones(3), np.ones((2, 3))), "ValueError", "float64"),
    # strict dtype promotion: no implicit path between int32 and float32
    (
        "jax[dtype_promotion=strict]",
        "jax[x64]",
        "add",
        (np.ones(3, np.int32), np.ones(3, np.float32)),
        "TypePromotionError",
        "float32",  # JAX's standard promotion lattice (NumPy: float64)
    ),
    # default dtype float64: a float range from Python numbers
    ("torch[default_dtype=float64]", "torch", "arange", (0.5,), "float64", "float32"),
    # TF's "safe" mode refuses int32 + a Python float in an operator ("legacy" gives float64)
    (
        "tensorflow[dtype_conversion_mode=safe]",
        "tensorflow",
        "__add__",
        (np.ones(3, np.int32), 1.5),
        "TypeError",
        "float64",
    ),
    # TF's "all" mode: int64 + float16 in an operator keeps float16 (legacy: float64, as NumPy)
    (
        "tensorflow[dtype_conversion_mode=all]",
        "tensorflow",
        "__add__",
        (np.ones(3, np.int64), np.ones(3, np.float16)),
        "float16",
        "float64",
    ),
]
IDS = [case[0] for case in SHOWN]


def shown(selector: str, op: str, args: tuple) -> str:
    adapter = load_adapter(selector)
    outcome = adapter.call(op, args, {}, None)
    return type(outcome.error).__name__ if outcome.raised else str(outcome.dtype)


def needs(selector: str) -> None:
    if selector.partition("[")[0] not in AVAILABLE:
        pytest.skip(f"{selector} is not installed")


@pytest.mark.parametrize(("config", "default", "op", "args", "changed", "usual"), SHOWN, ids=IDS)
def test_a_config_changes_what_its_setting_changes_and_does_not_outlast_the_call(
    config, default, op, args, changed, usual
):
    needs(config)
    assert shown(default, op, args) == usual
    assert shown(config, op, args) == changed
    assert shown(default, op, args) == usual  # the next call, in the default config, is as before


def reproduced(selector: str, op: str, args: list) -> str:
    """Runs in a child (setup lines change process-wide settings): the reproducer of the call's
    outcome, executed; its result's dtype or the exception type it raised."""
    from compat.core.case import Case
    from compat.harness import reproducer as snippets

    adapter = load_adapter(selector)
    args = tuple(np.asarray(a[0], a[1]) if isinstance(a, list) else a for a in args)
    text = snippets.reproducer(Case(op, args, {}), load_adapter("numpy"), adapter, None)
    results = []

    def show(name, compute):
        try:
            results.append(compute())
        except Exception as error:
            results.append(error)

    exec(text.replace(snippets.SHOW, ""), {"show": show, "__name__": "reproducer"})
    result = results[-1]
    return (
        type(result).__name__
        if isinstance(result, Exception)
        else str(getattr(result.dtype, "name", result.dtype)).rsplit(".", 1)[-1]
    )


@pytest.mark.parametrize(("config", "default", "op", "args", "changed", "usual"), SHOWN, ids=IDS)
def test_the_reproducers_setup_lines_put_the_backend_into_the_config(
    tmp_path, config, default, op, args, changed, usual
):
    needs(config)
    encoded = json.dumps([[a.tolist(), a.dtype.name] if isinstance(a, np.ndarray) else a for a in args])
    script = (
        "import json, sys; from tests.test_configs import reproduced; "
        "print(reproduced(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))"
    )
    process = run(["-c", script, config, op, encoded], tmp_path)
    assert process.returncode == 0, output(process)
    assert process.stdout.strip().splitlines()[-1] == changed


def test_the_default_run_checks_each_share_config_on_the_families_it_changes():
    plan = select(None, [])
    shared = {
        a.id: a for a in plan.adapters if a.id in plan.families
    }  # wrappers: test_namespaces; Dask: test_dask
    for adapter in plan.adapters:
        for label in type(adapter).CONFIG_FAMILIES:
            assert adapter.id in plan.families or f"{adapter.name}[{label}]" in shared
    assert shared, "no share config in the default run"
    for adapter in shared.values():
        families = plan.families[adapter.id]
        assert (
            adapter.label in type(adapter).CONFIGS
            and families == type(adapter).CONFIG_FAMILIES[adapter.label]
        )
        assert set(families) <= set(FAMILIES)
        assert plan.outside(adapter, families[0]) is None
        assert plan.share(adapter, None, "eager") < 1  # a share of the examples
        other = next(f for f in FAMILIES if f not in families)
        assert plan.outside(adapter, other) == f"config {adapter.label} changes only " + ", ".join(families)
        assert plan.outside(adapter, "known") is None  # its registry examples replay, whatever their family
    # named on the command line, a config checks every family in full
    named = select(next(iter(shared)), [])
    (explicit,) = named.adapters
    assert named.outside(explicit, "indexing") is None and named.share(explicit, None, "eager") == 1.0


def test_every_config_users_set_runs_in_the_default_run():
    """Issue 32's acceptance: each config besides a backend's defaults is a share row of the
    default run, on the families its survey showed it changes."""
    for adapter in select(None, []).adapters:
        kind = type(adapter)
        assert set(kind.CONFIG_FAMILIES) == set(kind.CONFIGS) - set(kind.DEFAULT_CONFIGS), kind.name
        assert all(families for families in kind.CONFIG_FAMILIES.values()), kind.name


def test_the_header_says_each_rows_share_families_and_why():
    plan = select(None, [])
    lines = plan.lines()
    every = lines[0].removeprefix("compat: every example: ").split(", ")
    assert every == [a.id for a in plan.adapters if a.id not in plan.why]
    for adapter in plan.adapters:
        if adapter.id in plan.why:
            (line,) = [line for line in lines[1:] if plan.why[adapter.id] in line]
            assert "20% of the examples" in line and adapter.id in line
            if adapter.id in plan.families:
                assert f"{adapter.id} in {', '.join(plan.families[adapter.id])}" in line
