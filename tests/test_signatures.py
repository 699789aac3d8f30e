"""The standard's signatures as data (compat/core/signatures.toml) and the calls made from them
(compat.core.calls): every function of the standard has its signature, each parameter admits what
its annotation says, and every function's forms check each parameter with a default both absent and
given, each parameter typed to take a Python scalar with one, inside the standard's domain."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from compat import adapters
from compat.core import binding, calls, ops, signatures, standard
from compat.core.signatures import SCALARS
from tests.helpers import REPO

MIRROR = Path(os.environ.get("ARRAY_API_REPO", "") or "/nonexistent")
STUBS = "src/array_api_stubs/_2025_12"
# where NumPy itself refuses a call the standard's signature admits (its departures, registered as NumPy's)
NUMPY_REFUSES = {
    ("finfo", "type", "array"),  # np.finfo of an array: TypeError
    ("iinfo", "type", "array"),  # np.iinfo of an array: ValueError
    ("fftfreq", "dtype", "None"),  # np.fft.fftfreq has no dtype= (NumPy 2.4)
    ("fftfreq", "dtype", "dtype"),
    ("rfftfreq", "dtype", "None"),
    ("rfftfreq", "dtype", "dtype"),
}


def test_every_function_of_the_standard_has_its_signature():
    names = set(signatures.load())
    wanted = set(standard.FUNCTIONS) | {
        f"{ext}.{name}" for ext, members in standard.EXTENSIONS.items() for name in members
    }
    assert wanted <= names, sorted(wanted - names)
    for name in wanted:
        found = signatures.of(name)
        assert found.standard == standard.VERSION and found.section.endswith(".py")


@pytest.mark.parametrize(
    ("function", "parameter", "kinds"),
    [
        ("sum", "axis", ("absent", "None", "int", "negative", "tuple")),
        ("sum", "keepdims", ("absent", "True", "False")),
        ("add", "x2", ("array", "int", "float", "complex")),
        ("bitwise_and", "x1", ("array", "int", "bool")),
        ("linalg.cross", "axis", ("absent", "negative")),  # "an integer on the interval [-N, -1]"
        ("fft.fft", "norm", ("absent", "'backward'", "'ortho'", "'forward'")),
        ("linalg.matrix_norm", "ord", ("absent", "None", "int", "float", "inf", "-inf", "'fro'", "'nuc'")),
        ("concat", "arrays", ("tuple", "list")),
        ("tensordot", "axes", ("absent", "int", "negative", "pair")),
        ("astype", "dtype", ("dtype",)),
    ],
)
def test_a_parameter_admits_what_its_annotation_says(function, parameter, kinds):
    assert signatures.of(function).parameter(parameter).kinds == kinds


@pytest.mark.parametrize("alias", ["linalg.vecdot", "linalg.tensordot", "linalg.matmul"])
def test_an_alias_admits_what_the_function_it_names_admits(alias):
    """linalg.vecdot's stub says only "Alias for vecdot": its parameters are vecdot's (an axis in
    [-N, -1], a floating-point x1): before, the view asked every row for a positive axis that
    vecdot does not admit, and no category judged it."""
    main = signatures.of(alias.removeprefix("linalg."))
    found = signatures.of(alias)
    assert [(p.name, p.kinds, p.category) for p in found.parameters] == [
        (p.name, p.kinds, p.category) for p in main.parameters
    ]


def test_how_each_parameter_is_passed():
    assert signatures.of("sum").parameter("x").kind == "positional-only"
    assert signatures.of("sum").parameter("axis").keyword_only
    assert signatures.of("clip").parameter("min").kind == "positional-or-keyword"
    assert signatures.of("meshgrid").parameter("arrays").kind == "var-positional"
    assert signatures.of("add").parameter("x1").category == "numeric"


def _stubs() -> Path | None:
    if not MIRROR.exists() or shutil.which("git") is None:
        return None
    return MIRROR


def test_the_data_is_what_the_tool_writes(tmp_path):
    mirror = _stubs()
    if mirror is None:
        pytest.skip("ARRAY_API_REPO (a clone of data-apis/array-api) is not set")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    listed = subprocess.run(
        ["git", "-C", str(mirror), "ls-tree", "--name-only", f"HEAD:{STUBS}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in listed:
        shown = subprocess.run(
            ["git", "-C", str(mirror), "show", f"HEAD:{STUBS}/{name}"],
            capture_output=True,
            text=True,
            check=True,
        )
        (stubs / name).write_text(shown.stdout)
    out = tmp_path / "signatures.toml"
    subprocess.run([sys.executable, str(REPO / "tools" / "signatures.py"), str(stubs), str(out)], check=True)
    assert out.read_text() == signatures.DATA.read_text()


# -- the calls made from the signatures ---------------------------------------------------------


def forms_by_parameter(name: str) -> dict[str, set[str]]:
    """Parameter -> the kinds some form of ``name`` gives it (read back from the calls, as records do)."""
    found: dict[str, set[str]] = {}
    for form in calls.forms(name):
        for parameter, kind in binding.kinds_of(form.op, form.args, form.kwargs):
            found.setdefault(parameter, set()).add(kind)
    return found


@pytest.mark.parametrize("name", calls.functions())
def test_every_parameter_with_a_default_is_checked_absent_and_given(name):
    """Each parameter with a default is absent in some form and given a value in another; each
    parameter typed to take a Python scalar takes one of each kind the forms can make."""
    given = forms_by_parameter(name)
    for parameter in calls.signature_of(ops.get(name)).parameters:
        kinds = given.get(parameter.name, set())
        if parameter.has_default:
            assert "absent" in kinds, (name, parameter.name, kinds)
            assert kinds - {"absent"}, (name, parameter.name, kinds)
        if parameter.scalars:
            assert set(parameter.scalars) & kinds, (name, parameter.name, parameter.scalars, kinds)


def test_each_form_gives_its_parameter_the_kind_it_names():
    """What a form says it varies is what the call, read back by the standard's signature, has."""
    for name in calls.functions():
        for form in calls.forms(name):
            if form.parameter:
                assert (form.parameter, form.kind) in binding.kinds_of(form.op, form.args, form.kwargs), (
                    form.label
                )


def test_numpy_answers_every_form_but_its_departures():
    """Every form is a call NumPy answers, but those where NumPy departs from the standard's
    signature (NUMPY_REFUSES): a form NumPy refuses otherwise is a call outside the standard's
    domain, made by a bug of compat.core.calls."""
    numpy = adapters.load_adapter("numpy")
    refused = set()
    for name in calls.functions():
        for form in calls.forms(name):
            if numpy.call(form.op, form.args, form.kwargs).raised:
                refused.add((name, form.parameter, form.kind))
    assert refused == NUMPY_REFUSES


def test_a_keyword_only_parameter_goes_by_name_a_positional_one_by_position():
    sum_forms = {(f.parameter, f.kind): f for f in calls.forms("sum")}
    assert sum_forms[("axis", "negative")].kwargs["axis"] < 0 and len(sum_forms[("axis", "int")].args) == 1
    clip_forms = {(f.parameter, f.kind): f for f in calls.forms("clip")}
    assert "max" in clip_forms[("min", "absent")].kwargs  # a positional after an absent one: by name
    assert len(clip_forms[("max", "absent")].args) == 2


def test_scalar_forms_pair_each_kind_with_an_array_it_goes_with():
    """A Python complex beside complex arrays, a bool beside bool arrays (the standard's rule)."""
    for form in calls.forms("equal"):
        scalars = [a for a in form.args if not isinstance(a, np.ndarray)]
        arrays = [a for a in form.args if isinstance(a, np.ndarray)]
        if scalars and isinstance(scalars[0], complex):
            assert arrays[0].dtype.kind == "c"
        if scalars and isinstance(scalars[0], bool):
            assert arrays[0].dtype == np.bool_


def test_operands_are_in_the_category_the_standard_names():
    for form in calls.forms("logical_and"):
        assert all(a.dtype == np.bool_ for a in form.args if isinstance(a, np.ndarray)), form.label


def test_scalar_kinds_are_the_standards():
    assert set(SCALARS) == {"bool", "int", "float", "complex"}
    assert signatures.of("add").parameter("x1").scalars == ("int", "float", "complex")
    assert signatures.of("sum").parameter("keepdims").scalars == ()  # a flag, not a scalar operand
