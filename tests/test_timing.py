"""``python -m compat bench --test-command``'s measurements (compat.harness.timing): a test's own
seconds, the child processes it starts with their wall and CPU seconds, and a spec param's row, family and the time
inside framework calls, read back from a real pytest run with the plugin."""

from __future__ import annotations

import pytest

from compat.harness import bench, timing
from tests.helpers import output, run_pytest

pytestmark = pytest.mark.xdist_group("timing")  # one worker: the module's run is made once

SLOW = """
import subprocess, sys, time


BUSY = "import time\\nwhile time.process_time() < 0.3: pass\\ntime.sleep(0.2)"  # 0.3 s of CPU, 0.5 s of wall


def test_sleeps_and_starts_a_child():
    time.sleep(0.3)
    subprocess.run([sys.executable, "-c", BUSY], check=True)


def test_quick():
    pass
"""


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("timing")
    (tmp / "test_slow.py").write_text(SLOW)
    directory = tmp / "timing"
    process = run_pytest(
        [
            str(tmp / "test_slow.py"),
            "compat/specs/sets.py",
            "--backends",
            "numpy",
            "-p",
            "compat.harness.timing",
        ],
        tmp,
        COMPAT_TIMING_DIR=str(directory),
    )
    assert process.returncode == 0, output(process)
    return timing.times(directory)


def test_a_tests_seconds_include_the_children_it_started(timed):
    tests, processes = timed
    (slow,) = [t for t in tests if t.nodeid.endswith("test_sleeps_and_starts_a_child")]
    ((command, seconds, cpu),) = slow.children
    assert command.endswith("python -c") and 0.5 <= seconds < slow.seconds
    assert 0.3 <= cpu < seconds  # its CPU, not its sleep
    assert slow.seconds >= 0.7 and slow.row == ""
    (quick,) = [t for t in tests if t.nodeid.endswith("test_quick")]
    assert quick.children == [] and quick.seconds < slow.seconds
    assert list(processes) == ["main"] and processes["main"] > sum(t.seconds for t in tests)


def test_a_spec_param_says_its_row_family_and_framework_time(timed):
    tests, _ = timed
    specs = [t for t in tests if t.file == "compat/specs/sets.py"]
    assert specs and {(t.row, t.family) for t in specs} == {("numpy", "sets")}
    assert all(t.framework > 0 and t.compat > 0 and t.framework + t.compat <= t.seconds for t in specs)


def test_the_report_puts_each_test_under_its_file_and_row(timed):
    tests, processes = timed
    text = bench.report(tests, processes, wall=100.0)
    assert text.startswith(f"wall 100 s; 1 test process busy {processes['main']:.0f} s")
    (sets,) = [line for line in text.splitlines() if line.startswith("compat/specs/sets.py")]
    assert sets.split()[1] == str(sum(t.file == "compat/specs/sets.py" for t in tests))
    (slow,) = [
        line for line in text.splitlines() if line.split() and line.split()[0].endswith("test_slow.py")
    ]
    assert slow.split()[1:4:2] == ["2", "1"]  # two tests, one child process
    assert any(line.startswith("numpy") and " sets " in line for line in text.splitlines())
