"""The registry's own checks (``python -m compat known lint``, compat.harness.lint): compat's
registry passes them, and each catches what it is for when it is planted."""

from __future__ import annotations

import json

from compat.harness import lint
from compat.results import registry
from tests.helpers import divergence_record, output, run
from tests.test_registry import entry, write

EXAMPLE = """
[[known.examples]]
family = "promotion"
call = "add(x0, x1)"
[known.examples.inputs]
x0 = "np.array([1], dtype=np.int8)"
x1 = "np.array([1], dtype=np.uint8)"
"""


def problems(tmp_path, *entries: str) -> list[str]:
    path = write(tmp_path, "".join(entries))
    return [str(p).removeprefix(f"{path}: ") for p in lint.lint(registry.load(path))]


def narrow(id: str = "narrow", **extra: str) -> str:
    return (
        entry(id, backend="numpy", family='"promotion"', op='"add"', inputs='"int8,uint8"', **extra) + EXAMPLE
    )


def test_compat_registry_passes_its_own_checks():
    found = lint.lint(registry.load(registry.DEFAULT))
    assert not found, "\n".join(map(str, found))


def test_a_planted_broad_entry_that_shadows_an_example_is_caught(tmp_path):
    broad = entry("broad", backend="numpy", broad='"every operation"', unreplayable='"planted"')
    assert problems(tmp_path, narrow(), broad) == []  # the narrow one first, whatever the files' order
    one_level = entry("also-add", backend="numpy", family='"promotion"', op='"add"', unreplayable='"planted"')
    assert problems(tmp_path, narrow(), one_level) == [
        "narrow: example 1 (add(x0, x1)): also matched on numpy by also-add: narrow one of them"
    ]
    on_device = entry("on-device", backend="numpy", family='"promotion"', op='"add"', device='"*"')
    found = problems(tmp_path, narrow(), on_device + 'unreplayable = "planted"\n')
    assert found == ["narrow: example 1 (add(x0, x1)): shadowed on numpy: on-device matches it first"], found


def test_a_wrappers_own_entry_goes_before_its_frameworks_on_the_wrappers_row(tmp_path):
    """array_api_compat.numpy's row is reached by NumPy's entries too (records name it with the
    framework it wraps): an entry that names the wrapper is its row's first, and no overlap; on NumPy's
    row the wrapper's entry does not apply, and an example replayed there finds NumPy's alone."""
    wrapper = "array-api:array_api_compat.numpy"
    example = EXAMPLE.replace('call = "add(x0, x1)"', f'call = "add(x0, x1)"\nbackends = ["{wrapper}"]')
    own = entry("wrappers-own", backend=wrapper, family='"promotion"', op='"add"', inputs='"int8,uint8"')
    frameworks = entry("numpys", backend="numpy", family='"promotion"', op='"add"', unreplayable='"planted"')
    assert problems(tmp_path, frameworks, own + example) == []
    loaded = registry.load(write(tmp_path, frameworks + own + example))
    row = lint.backend_named(wrapper, "")
    assert row.wraps is not None and row.wraps.name == "numpy"
    fields = lint.shown(loaded.by_id()["wrappers-own"], loaded.by_id()["wrappers-own"].examples[0])
    assert [e.id for e in loaded.matching(row, fields)] == ["wrappers-own", "numpys"]
    # two of the framework's entries that reach the wrapper's row alike still overlap there
    on_the_wrapper = entry("numpys-on-the-wrapper", backend="numpy", family='"promotion"', op='"add"')
    assert problems(tmp_path, on_the_wrapper + example, frameworks) == [
        f"numpys-on-the-wrapper: example 1 (add(x0, x1)): also matched on {wrapper} by numpys: narrow one of them"
    ]


def test_an_entry_needs_an_example_or_says_why_not(tmp_path):
    assert problems(tmp_path, entry("bare", backend="numpy", family='"promotion"', op='"add"')) == [
        "bare: no example, and no 'unreplayable' to say why it cannot have one"
    ]


def test_an_example_must_be_one_of_its_entrys(tmp_path):
    other = entry("other-op", backend="numpy", family='"promotion"', op='"multiply"') + EXAMPLE
    assert problems(tmp_path, other) == [
        "other-op: example 1 (add(x0, x1)): not an example of its entry: its op the entry does not name"
    ]


def test_a_long_file_is_to_be_split(tmp_path):
    padded = narrow() + "# padding\n" * lint.FILE_LINES
    found = problems(tmp_path, padded)
    assert len(found) == 1 and "lines, more than 1500" in found[0], found


def test_lint_of_a_users_registry_from_the_command_line(tmp_path):
    path = write(tmp_path, narrow() + entry("also-add", backend="numpy", family='"promotion"', op='"add"'))
    process = run(["-m", "compat", "known", "lint", "--registry", str(path)], tmp_path)
    assert process.returncode == 1, output(process)
    assert "also-add: no example, and no 'unreplayable'" in process.stdout, output(process)
    assert process.stdout.strip().endswith("2 problem(s)"), output(process)


def test_a_device_entry_that_claims_what_every_device_does_is_caught(tmp_path):
    """With a run's records: a record of a device row that an entry of every device matches too is
    the framework's behaviour, which the device's entry must not claim."""
    every_device = entry("every-device", backend="numpy", family='"promotion"', op='"add"', inputs='"int8,*"')
    on_device = 'device = "apu:*"\nfamily = "promotion"\nunreplayable = "planted"\n'
    results = tmp_path / "results" / "run-1"
    results.mkdir(parents=True)
    record = {**divergence_record(), "device": "apu:0", "run_id": "run-1"}
    (results / "records-main.jsonl").write_text(json.dumps(record) + "\n")
    (results / "run.json").write_text(json.dumps({"run_id": "run-1"}))

    def found(device_entry: str) -> list[str]:
        path = write(tmp_path, every_device + EXAMPLE + device_entry)
        return [str(p) for p in lint.lint(registry.load(path), tmp_path / "results")]

    broad = found(entry("apu-add", backend="numpy", op='"add"') + on_device)
    assert len(broad) == 1 and broad[0].startswith("apu-add: a device's entry claims"), broad
    assert "which every-device explains on every device" in broad[0], broad
    narrowed = entry("apu-add", backend="numpy", op='"add"', inputs='"uint8,*"')
    assert found(narrowed + on_device) == []  # its evidence only: the record is every-device's
