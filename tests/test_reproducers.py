"""A reproducer runs what the harness ran: for every installed adapter and every operation
of compat's table (on the table's example inputs) on its default device, and for one
operation of each group on its reference plug-in device and in its other configs, the
reproducer snippet's result equals the harness's outcome bit for bit, or both raise the
same exception type.

This is what keeps each adapter method and its source-text twin in agreement
(``from_numpy``/``array_source``, ``device_scope``/``scope_source``, ``context``/
``setup_lines``, ``function``/``op_source``, ``dtype``/``dtype_source``). Each adapter
runs in a child process: a reproducer changes process-wide settings (JAX's x64,
tnp's NumPy behaviour) as a user's script would.
"""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.core import dtypes, ops
from compat.core.case import Case
from compat.core.programs import Node, Program
from compat.core.source import backend_array
from compat.harness.plan import select
from compat.harness.references import NumPy
from compat.harness.reproducer import is_native, reproducer
from compat.harness.runner import Runner
from compat.judge import oracle
from tests.helpers import Jobs, output, run

pytestmark = [
    pytest.mark.xdist_group("reproducers"),
    pytest.mark.slow,
]  # one worker: its fixtures are made once

# compat's adapters whose reproducers call the framework itself; the others' (the Array API namespace
# adapter's) call the adapter, as the harness did (tests/test_namespaces.py runs one)
INSTALLED = [a for a in select(None, []).adapters if is_native(a)]


def x(slot=0):
    return Node("input", slot=slot)


def call(op, *args):
    return Node(op, tuple(args))


def f64(*values):
    return np.array(values, dtype=np.float64)


# the programs the autodiff transforms are shown with: f(x0[, x1]) of the table's operations
TRANSFORMS = {
    "grad": (
        Program(call("sum", call("multiply", call("tanh", x(0)), x(1))), (f64(0.5, -1.0), f64(2.0, 3.0))),
        (),
    ),
    "jacobian": (Program(call("tanh", call("multiply", x(0), x(0))), (f64(0.5, -1.0),)), ()),
    "per_example_grad": (
        Program(call("sum", call("multiply", call("sin", x(0)), x(1))), (f64(0.5, -1.0), f64(1.0, 2.0))),
        ("batch",),
    ),
    "hvp": (Program(call("sum", call("multiply", call("tanh", x(0)), x(0))), (f64(0.5, -1.0),)), ("v",)),
}


# On a plug-in device the twin under test is device_scope/scope_source, and in a second
# config (jax[x32]) context/setup_lines: the same for every operation, so these check
# the first operation of each group, and every one that moves data.
ON_DEVICES = {
    next(op.name for op in ops.TABLE if op.group == group) for group in {op.group for op in ops.TABLE}
} | {op.name for op in ops.TABLE if op.moves_to is not None}


def case_of(op: str, adapter) -> Case:
    declared = ops.get(op)
    if declared.transform:
        program, extra = TRANSFORMS[op]
        args = program.inputs
        if extra == ("batch",):
            args = (program.inputs[0], np.stack([program.inputs[1], 2 * program.inputs[1]]))
        elif extra == ("v",):
            args = (*program.inputs, f64(1.0, 0.5))
        return Case(op, args, program=program)
    args = list(declared.example)
    if declared.moves_to is not None:
        args[declared.moves_to] = adapter.reference_device
    return Case(op, tuple(args), dict(declared.example_kwargs))


def agreement(spec: str) -> list[str]:
    """Runs in a child: every operation of the table through ``spec``'s adapter and through
    its reproducer, on its default device and its plug-in device; what disagreed."""
    from compat.adapters import load_adapter
    from compat.adapters.numpy_fd import FiniteDifferences
    from compat.devices import DeviceBuildError
    from compat.harness import reproducer as snippets

    adapter, numpy, finite_differences = load_adapter(spec), load_adapter("numpy"), FiniteDifferences()
    devices = [None]
    if (
        adapter.plugin is not None and adapter.label == adapter.DEFAULT_CONFIGS[0]
    ):  # devices run the first config
        try:
            adapter.plugin.prepare()
            devices += [d for d in adapter.placement.plugin_devices() if d in adapter.placement.devices()]
        except DeviceBuildError:
            pass
    problems = []
    for device in devices:
        every = (
            device is None and adapter.label == adapter.DEFAULT_CONFIGS[0]
        )  # other configs: their setup lines
        for op in ops.OPS if every else sorted(ON_DEVICES):
            if adapter.unsupported(op):
                continue
            case = case_of(op, adapter)
            args = case.args if case.program is None else (case.program.bind(adapter, device), *case.args)
            harness = adapter.call(op, args, case.kwargs, device)
            reference = finite_differences if ops.get(op).transform else numpy  # as the checker's
            text = snippets.reproducer(case, reference, adapter, device)
            shown = {}

            def show(name, compute, shown=shown):
                try:
                    shown[name] = compute()
                except Exception as error:  # the reproducer's side of a raised outcome
                    shown[name] = error

            try:
                exec(text.replace(snippets.SHOW, ""), {"show": show, "__name__": "reproducer"})
            except Exception as error:
                problems.append(
                    f"{op} on {device}: the reproducer does not run: {type(error).__name__}: {error}\n{text}"
                )
                continue
            *_, result = shown.values()
            where = f"{op} on {device or 'the default device'}"
            if harness.raised or isinstance(result, Exception):
                if type(result).__name__ != type(harness.error).__name__:
                    problems.append(f"{where}: harness {harness.describe()}, reproducer {result!r}\n{text}")
                continue
            with adapter.context():
                again = adapter.values.outcome(result)
            if not ops.get(op).specified_values:  # empty: the values are whatever memory held
                harness, again = oracle.without_values(harness), oracle.without_values(again)
            mismatches = oracle.compare(harness, again, exactness=oracle.Exactness.COMPUTED)
            if mismatches:
                problems.append(f"{where}: {'; '.join(m.detail for m in mismatches)}\n{text}")
    return problems


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reproducers")
    script = "import json, sys; from tests.test_reproducers import agreement; print(json.dumps(agreement(sys.argv[1])))"
    jobs = Jobs(
        {
            a.selector: (lambda selector=a.selector: run(["-c", script, selector], tmp / selector))
            for a in INSTALLED
        }
    )
    yield jobs
    jobs.close()


@pytest.mark.parametrize("selector", [a.selector for a in INSTALLED])
def test_a_reproducer_gives_what_the_harness_got_for_every_operation(jobs, selector):
    process = jobs[selector]
    assert process.returncode == 0, output(process)
    problems = json.loads(process.stdout.strip().splitlines()[-1])
    assert not problems, "\n\n".join(problems)


def test_every_operation_has_an_example_or_a_program():
    # an operation without parameters (capabilities()) is shown and tested with none
    assert all(op.example or op.name in TRANSFORMS or op.params == "()" for op in ops.TABLE)


if __name__ == "__main__":  # python -m tests.test_reproducers jax[x64]: one adapter, here
    print("\n\n".join(agreement(sys.argv[1])) or "agree")


def test_a_reproducer_imports_what_its_text_names(tmp_path):
    """A bfloat16 array inside the arrays concatenate joins is written with ml_dtypes: the reproducer
    imports it (the GPU run's r079 raised NameError), and runs."""
    numpy = load_adapter("numpy")
    arrays = (backend_array(np.zeros(1, dtypes.bfloat16())), backend_array(np.ones(1, np.float32)))
    text = reproducer(Case("concatenate", (arrays,), {"axis": None}), NumPy(numpy, Runner(None)), numpy)
    assert "ml_dtypes." in text and "import ml_dtypes" in text.splitlines()[:3], text
    process = run(["-c", text], tmp_path)
    assert process.returncode == 0 and process.stdout.startswith("numpy "), output(process)


def test_a_reproducer_writes_dtype_none_as_none(tmp_path):
    """The standard's forms call creation functions with dtype=None: a reproducer says None, not a
    dtype named None (np.None, a SyntaxError: a survey's record of zeros((2, 3), dtype=None))."""
    numpy = load_adapter("numpy")
    text = reproducer(Case("zeros", ((2, 3),), {"dtype": None}), NumPy(numpy, Runner(None)), numpy)
    assert "dtype=None" in text and "np.None" not in text, text
    process = run(["-c", text], tmp_path)
    assert process.returncode == 0 and process.stdout.startswith("numpy "), output(process)
