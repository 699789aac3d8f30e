"""The pytest params and settings of the specs: input classes covered on purpose
(``input_classes``), an operation of each class its own param (``operation_classes``), the
operations a spec checks beside its own (``operation_params``), the marks and shares of
examples the run plan reads (compat.harness.plan). The Hypothesis strategies the specs draw
from are compat.core.strategies'."""

from __future__ import annotations

# -- input classes covered on purpose ------------------------------------------
#
# A rule distinguishes classes of input (which operand has the lower rank, where
# advanced indices stand, ...). Drawn at random, a class that is 1 draw in 5 is
# missed by some runs of 40 examples; a fault that shows only there is found by
# luck. ``input_classes`` makes the class a parameter of the spec instead: one run
# per class, each with an equal share of the profile's examples, drawn inside it.


def input_classes(name: str, classes, share: float = 1.0):
    """Decorator of a Hypothesis spec: run it once per input class (a pytest parameter
    ``name`` whose ids are the classes), each run with 1/len(classes) of ``share`` of the
    profile's max_examples (at least 3: a share row's least), so that every run covers every
    class for about the examples one run of the spec took before. The spec draws its input inside the class.
    ``share`` below 1: for a spec whose every example meets what it checks, or whose calls
    are costly to compile (the thorough profile's examples still grow it)."""
    import pytest
    from hypothesis import settings

    classes = list(classes)
    share = max(3, round(settings().max_examples * share) // len(classes))

    def decorate(test):
        test = pytest.mark.parametrize(name, classes)(settings(max_examples=share)(test))
        test.compat_input_classes = (name, classes)  # for the checks records: which class each param covered
        return test

    return decorate


# A spec whose input classes each hold several operations (the operators' forms: x + y, x - y, ...)
# gives each operation of a class its own param (``operation_classes``): each draws its own
# examples, fails in its own param and shrinks there, where checking every operation in each
# example multiplied the examples' cost and shrank all of them together.

# the examples a param of operation_classes checks at the least on a full row: the simplest one
# (Hypothesis tries it first) and one drawn; the thorough profile's share is more
LEAST_PER_OPERATION = 2


def operation_classes(name: str | None, classes, share: float = 1.0):
    """Decorator of a Hypothesis spec run once per input class and operation of that class
    (pytest params ``name`` and ``op``; ``classes`` maps each class to its operations' names;
    ``name`` None: ``classes`` is the operations' names, a spec without input classes).
    Each param checks an equal part of ``share`` of the profile's max_examples, at least
    LEAST_PER_OPERATION. On a row that checks a share of the examples (a device, a mode, a
    config) a class checks that share of its operations, every k-th from an offset the seed
    picks, one example each (the ``compat_sampled`` mark; compat.harness.plan.sampled), as a
    share row samples an exhaustive table; a row with a plug-in fault checks every one."""
    import pytest
    from hypothesis import settings

    sampled = pytest.mark.compat_sampled
    if name is None:
        params = [pytest.param(op, marks=sampled) for op in classes]
    else:
        params = [pytest.param(c, op, marks=sampled) for c, names in classes.items() for op in names]
    per = max(LEAST_PER_OPERATION, round(settings().max_examples * share) // len(params))

    def decorate(test):
        argnames = "op" if name is None else f"{name},op"
        test = pytest.mark.parametrize(argnames, params)(settings(max_examples=per)(test))
        if name is not None:  # for the checks records: which class each param covered (input_classes)
            test.compat_input_classes = (name, list(classes))
        return test

    return decorate


# A spec parametrized by every operation with a fact grows with the table. It keeps its cost
# with ``operation_params``: the operations it checked before (one of each kind of rule, and
# those the detection benchmark's broken adapters break) at full size, every other one with a
# share of the examples (the param's compat_beside mark; compat.harness.plan.BESIDE); the thorough
# profile runs every operation at full size.


def one_example_on_modes_and_devices():
    """The mark of a family whose every call in a mode compiles anew, or crosses to a device: on
    those rows one example per param suffices (compat_least_examples(1)); the eager rows check the
    rule in full, these what compiling or the device changes."""
    import pytest

    return pytest.mark.compat_least_examples(1)


def operation_params(names, full) -> list:
    """pytest params of the operations ``names``: those in ``full`` plain, the others marked as
    checked beside them (``compat_beside``: the run plan gives those a share of the examples)."""
    import pytest

    return [op if op in full else pytest.param(op, marks=pytest.mark.compat_beside) for op in names]


def examples(share: float):
    """Settings for a spec that needs ``share`` of the profile's max_examples (at least 5): one
    whose rule has few cases, each call of which is costly to compile."""
    from hypothesis import settings

    return settings(max_examples=max(5, round(settings().max_examples * share)))
