"""``python -m compat survey`` explores: a seed of its own, printed with the command that draws
the same examples again, and exit status 1 when it found a divergence the registry does not know."""

import re

from tests.helpers import output, run


def test_a_survey_that_finds_a_new_divergence_fails_and_says_how_to_see_it_again(tmp_path):
    process = run(
        [
            "-m",
            "compat",
            "survey",
            "--backends",
            "numpy",
            "--results",
            str(tmp_path / "results"),
            "-k",
            "binary_operation_on_every_pair and add and not logaddexp",  # add, not logaddexp (int8 too since issue 51)
            "--adapter",
            "compat.adapters.broken:Int8Uint8PromotesToInt8",
        ],
        tmp_path,
    )
    assert process.returncode == 1, output(process)
    seed = re.search(r"^compat survey: seed (\d+) \(the same examples again: (.*)\)$", process.stdout, re.M)
    assert seed, output(process)
    assert seed.group(2).startswith(f"python -m compat survey --seed {seed.group(1)} --backends numpy -k "), (
        seed.group(2)
    )
    # int8 with uint8, in both orders: the broken cell of the exhaustive pair table
    assert f"compat survey: 2 new divergence(s) under seed {seed.group(1)} (again: " in process.stdout, (
        output(process)
    )
