"""The standard as a second reference of the special cases (xp.check_standard): a row that gives
the standard's stated result where NumPy departs from it is reported as following the standard
(status ``standard``, not failed), one that gives a third value is a new divergence, and NumPy's
own row is held to the standard (records against the reference ``standard``, registered)."""

from pathlib import Path

from compat.results import records
from tests.helpers import output, run_pytest

SPEC = "compat/specs/special_cases.py"
FLOOR_DIVIDE_OF_INFINITY = "If x1_i is +infinity and x2_i is a positive (i.e., greater than 0) finite number"


# the test's adapters are NumPy's but for floor_divide: NumPy's power by a Python 0.5 (its sqrt,
# numpy-power-by-a-python-half-is-sqrt) comes with them, not the departure they show
INHERITED = "".join(
    f"""
[[known]]
id = "{name}-inherits-numpy-power-by-a-python-half"
backend = "{name}"
family = "special_cases"
op = "power"
kind = "value"
inputs = ["float*,py:float"]
differs = "NumPy's np.power(x, 0.5) is np.sqrt(x): power(-inf, 0.5) is nan, power(-0.0, 0.5) -0.0"
reason = "the test's adapter computes power as NumPy does (numpy-power-by-a-python-half-is-sqrt)"
unreplayable = "an adapter of this test only"
"""
    for name in ("follows_the_standard", "departs_from_both")
)


def test_follows_the_standard_differs_from_both_and_numpys_departures(tmp_path: Path):
    inherited = tmp_path / "inherited.toml"
    inherited.write_text(INHERITED)
    process = run_pytest(
        [
            SPEC,
            "--compat-registry",
            str(inherited),
            "-k",
            "every_special_case",
            "--backends",
            "numpy",
            "--adapter",
            "tests.broken_adapters:FollowsTheStandard",
            "--adapter",
            "tests.broken_adapters:DepartsFromBoth",
            "-rA",
        ],
        tmp_path,
        shipped_registry=True,
    )
    text = output(process)
    assert process.returncode == 1, text  # the row that departs from both fails, and only it
    failed = [line for line in text.splitlines() if line.startswith("FAILED")]
    assert failed and all("departs_from_both" in line for line in failed), failed
    assert "follow the standard where NumPy does not" in text
    divergences = [d for run in records.load(tmp_path / "results").runs.values() for d in run.divergences]

    def of(name: str) -> list[records.Divergence]:
        return [d for d in divergences if d.backend.name == name and d.op == "floor_divide"]

    follows = of("follows_the_standard")
    # "departs": where it computes as NumPy does and NumPy departs from the standard (a Python
    # scalar's floor_divide, numpy-floor-divide-with-a-python-scalar-follows-python-at-infinities)
    assert follows and {d.status for d in follows} in ({"standard"}, {"standard", "departs"})
    standard = [d for d in follows if d.status == "standard"]
    assert any(FLOOR_DIVIDE_OF_INFINITY in (d.follows or "") for d in standard)
    assert {d.signature["actual"] for d in standard} == {"+inf", "-inf"}  # NumPy's nan, the standard's inf

    both = of("departs_from_both")
    assert both and {d.status for d in both} in ({"new"}, {"new", "departs"})  # departs: as follows'
    assert not any(d.follows for d in both)

    numpy = [d for d in divergences if d.backend.name == "numpy"]
    assert numpy and {d.reference for d in numpy} == {"standard"}
    assert {d.known for d in numpy if d.op == "floor_divide"} == {
        "numpy-floor-divide-follows-python-at-infinities",
        "numpy-floor-divide-with-a-python-scalar-follows-python-at-infinities",  # the Python scalar spec's
    }
    assert {d.status for d in numpy} == {"known"}
