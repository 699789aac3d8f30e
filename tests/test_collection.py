"""compat's specs are collected by compat's plugin wherever the package lives (their names
match no python_files pattern): once each, with node ids that read compat/specs/..., whether a
run names a spec module, the specs folder, or a project whose python_files takes them too."""

from __future__ import annotations

import pytest

from compat.harness.plugin import taken_by_pytest
from tests.helpers import REPO, output, run_pytest

pytestmark = pytest.mark.xdist_group("collection")


def collected(tmp, *args: str) -> list[str]:
    process = run_pytest([*args, "--collect-only", "-q", "--backends", "numpy", "--device", "none"], tmp)
    assert process.returncode == 0, output(process)
    return [line for line in process.stdout.splitlines() if "::" in line]


def test_each_spec_is_collected_once_whoever_collects_it(tmp_path):
    def broadcasting(ids):
        return [i for i in ids if i.startswith("compat/specs/broadcasting.py::")]

    named = collected(tmp_path, "compat/specs/broadcasting.py")  # pytest's own collector takes it
    folder = broadcasting(collected(tmp_path, "compat/specs"))  # compat's plugin takes it
    also_by_pytest = broadcasting(collected(tmp_path, "compat/specs", "-o", "python_files=*.py"))
    assert named and all(i.startswith("compat/specs/broadcasting.py::") for i in named), named[:3]
    assert len(set(named)) == len(named)
    assert folder == named and also_by_pytest == named


@pytest.mark.parametrize(
    "pattern, taken",
    [("test_*.py", False), ("*.py", True), ("*/compat/specs/[!_]*.py", True), ("compat/specs/*.py", True)],
)
def test_python_files_are_matched_as_pytest_matches_them(pattern, taken):
    assert taken_by_pytest(REPO / "compat" / "specs" / "promotion.py", [pattern]) is taken
