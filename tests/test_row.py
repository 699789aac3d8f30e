"""The row (``compat.core.row``): one value for what a spec runs on, its text written and
read in one place."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from compat.core.row import EAGER, Row, untargeted
from tests.helpers import REPO

names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
rows = st.builds(
    Row,
    backend=names,
    config=st.just("") | st.from_regex(r"[a-z0-9_,=]{1,8}", fullmatch=True),
    mode=st.just(EAGER) | names,
    device=st.none() | st.from_regex(r"[a-zA-Z]{1,4}:[0-9]", fullmatch=True),
    fault=st.none() | names,
)


@given(rows)
def test_text_round_trip(row):
    assert Row.parse(str(row)) == row


def test_text_form():
    assert str(Row("jax", "x64", "jit", "cpu:1")) == "jax[x64]~jit@cpu:1"
    assert str(Row("torch", device="apu:0", fault="copy_truncate")) == "torch@apu:0!copy_truncate"
    assert Row.parse("tensorflow~xla") == Row("tensorflow", mode="xla")
    assert Row.parse("jax[x32]").backend_id == "jax[x32]"


def test_untargeted_node_ids():
    """The scheduler's scope of a spec: its row without device and mode; faulty rows stay."""
    assert untargeted("t.py::test_add[jax[x64]~jit@cpu:1-add]") == "t.py::test_add[jax[x64]-add]"
    assert untargeted("t.py::test_add[add-torch@apu:0]") == "t.py::test_add[add-torch]"
    assert (
        untargeted("t.py::test_add[torch@apu:0!copy_truncate]") == "t.py::test_add[torch@apu:0!copy_truncate]"
    )


def test_rows_are_read_only_by_the_row_module():
    """No other module splits a row's text at its marks ("~", "@", "!") or writes them
    after a backend id: they name rows through ``Row``."""
    marks = re.compile(
        r"""["'][~@!]["']\s+(not\s+)?in\b|\.(split|partition|rpartition)\(["'][~@!]|[~@!]["']\s*\+|[~@!]\{[\w.]*(mode|device|fault)\b"""
    )
    found = [
        f"{path.relative_to(REPO)}: {line.strip()}"
        for path in (REPO / "compat").rglob("*.py")
        if path.name != "row.py" and path.name != "examples.py"  # examples.py: "@" of URLs
        for line in path.read_text().splitlines()
        if marks.search(line)
    ]
    assert not found
