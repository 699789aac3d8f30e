"""An adapter is made of small declared parts (compat.adapters.spelling, values, placement,
interchange), and what a reproducer writes is what a call does: the runtime side of each spelled
fact (an array, a dtype, a device scope, a config's settings) is made from the spelling's text.
tests/test_reproducers.py runs the reproducers themselves against the harness's outcomes."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import compat
import compat.adapters
from compat.adapters import Adapter, registered
from compat.adapters.interchange import Interchange
from compat.adapters.numpy import NumpyAdapter
from compat.adapters.placement import Placement
from compat.adapters.spelling import Spelling
from compat.adapters.values import Values
from compat.harness.plan import select

PARTS = {"Spelling": Spelling, "Values": Values, "Placement": Placement, "Interchange": Interchange}
MOST_METHODS = 20
# the runtime side of a spelled fact, made from the spelling's text in its part's own module only
DERIVED = {Values: ("from_numpy", "dtype"), Placement: ("scope",)}


def public_methods(cls: type) -> list[str]:
    """The public functions of a class and its bases: methods, class and static methods, properties."""
    kinds = (property, functools.cached_property, classmethod, staticmethod)
    return sorted(
        name
        for name in dir(cls)
        if not name.startswith("_")
        and (
            inspect.isfunction(attribute := inspect.getattr_static(cls, name)) or isinstance(attribute, kinds)
        )
    )


def adapter_modules():
    for found in pkgutil.walk_packages(compat.adapters.__path__, "compat.adapters."):
        try:
            yield importlib.import_module(found.name)
        except ImportError as missing:  # a module of a framework that is not installed
            pytest.skip(f"{found.name}: {missing}")


def classes_of(module) -> list[type]:
    return [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]


def test_public_methods_counts_inherited_ones_and_properties():
    class Base:
        def one(self): ...

        @property
        def two(self): ...

    class Derived(Base):
        three = staticmethod(len)
        data = 4
        Part = Values  # a part's class is not a method

        def _private(self): ...

    assert public_methods(Derived) == ["one", "three", "two"]


def test_no_class_in_compat_adapters_has_more_than_twenty_public_methods():
    crowded = {
        f"{cls.__module__}.{cls.__qualname__}": len(public_methods(cls))
        for module in adapter_modules()
        for cls in classes_of(module)
        if len(public_methods(cls)) > MOST_METHODS
    }
    assert crowded == {}


def test_no_adapter_is_asked_for_a_hook_it_may_not_have():
    """Every hook is declared on the Adapter or a part, with its default: nothing in compat asks an
    adapter (or a part) whether it has one, with getattr or hasattr."""
    asked = []
    for path in Path(compat.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and node.args
                and ast.unparse(node.args[0]).split(".")[-1]
                in ("adapter", "backend", "spelling", "values", "placement", "interchange")
            ):
                asked.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert asked == []


@pytest.mark.parametrize("path", sorted(registered().values()))
def test_each_built_in_adapter_is_made_of_the_declared_parts(path):
    cls = compat.adapters.load_class(path)
    for name, part in PARTS.items():
        declared = getattr(cls, name)
        assert issubclass(declared, part), (name, declared)
        for base, names in DERIVED.items():
            if issubclass(declared, base):
                redefined = [n for n in names if getattr(declared, n) is not getattr(base, n)]
                assert redefined == [], (
                    f"{declared.__qualname__} makes {redefined} otherwise than it spells them"
                )


ROWS = [a for a in select(None, []).adapters if type(a).__module__.startswith("compat.adapters.")]


@pytest.mark.parametrize("adapter", [a for a in ROWS if a.spelling.settings], ids=lambda a: a.id)
def test_a_call_runs_under_the_settings_its_reproducer_writes_and_sets_back_what_was_there(adapter):
    for mode in adapter.MODES:
        if mode == "lazy":  # the lazy mode's device starts a backend of its own: not a setting
            continue
        before = [setting.read() for setting in adapter.spelling.settings]
        with adapter.context(mode):
            for setting in adapter.spelling.settings:
                if all(key in adapter.config for key in setting.keys):
                    assert setting.read() == {key: adapter.config[key] for key in setting.keys}, (
                        mode,
                        setting,
                    )
        after = [setting.read() for setting in adapter.spelling.settings]
        assert [a for a, b, s in zip(after, before, adapter.spelling.settings) if s.restore and a != b] == []


@pytest.mark.parametrize("adapter", ROWS, ids=lambda a: a.id)
def test_an_array_and_a_dtype_are_what_their_spelling_evaluates_to(adapter):
    """The harness's array of a case's values is the spelling's expression evaluated on a copy of them
    (the case's own array is never handed to a backend, whose in-place operators would change it)."""
    values = np.array([1.5, -0.0, 2.0], dtype=np.float32)
    with adapter.context():
        made = adapter.values.from_numpy(values, None)
        spelled = adapter.spelling.evaluate(adapter.spelling.array("x", "float32"), x=values.copy())
        assert adapter.values.to_numpy(made).tobytes() == adapter.values.to_numpy(spelled).tobytes()
        assert adapter.values.dtype("float32") == adapter.spelling.evaluate(adapter.spelling.dtype("float32"))
    assert made is not values and not np.shares_memory(adapter.values.to_numpy(made), values)


def test_an_adapter_is_its_parts():
    adapter = Adapter()
    assert {name: type(getattr(adapter, name.lower())) for name in PARTS} == PARTS


def test_an_adapter_written_before_the_parts_has_its_hooks_called_and_is_told_where_they_went():
    """A third party's adapter of the Adapter before its parts: hooks defined on the adapter itself."""
    with pytest.warns(
        DeprecationWarning, match=r"to_numpy \(now Values\.to_numpy\), devices \(now Placement"
    ):

        class WrittenBeforeTheParts(NumpyAdapter):
            name = "written_before_the_parts"
            writable_exports = False

            def to_numpy(self, value):
                return -np.asarray(value)  # every value read negated

            def devices(self):
                return ["cpu:0", "elsewhere:0"]

    adapter = WrittenBeforeTheParts()
    assert adapter.call("add", (np.array([1.0]), 1.0)).values.tolist() == [-2.0]
    assert adapter.placement.devices() == ["cpu:0", "elsewhere:0"]
    assert adapter.interchange.writable is False and NumpyAdapter().interchange.writable is True
    assert issubclass(WrittenBeforeTheParts.Values, NumpyAdapter.Values)
