"""The Dask row (compat.adapters.dask): eager is one chunk, the chunked mode splits each operand
into chunks of drawn sizes that a rerun and a reproducer see again, and the default run checks
the row in every family on a share of its examples."""

from __future__ import annotations

import numpy as np
import pytest

from compat.adapters import load_adapter
from compat.adapters.dask import DaskAdapter, drawn_chunks
from compat.core.case import Case
from compat.harness.plan import select
from compat.harness.reproducer import reproducer
from compat.harness.xp import builtin_backends
from compat.specs import FAMILIES

pytest.importorskip("dask", reason="the Dask row needs dask")

RNG = np.random.default_rng(0)
SHAPES = [(n,) for n in range(2, 12)] + [(3, 4), (2, 1, 5), (7, 2)]
ARRAYS = [RNG.standard_normal(shape) for shape in SHAPES for _ in range(12)]


def test_drawn_chunks_cover_each_axis_in_two_or_more_and_come_again():
    for array in ARRAYS:
        chunks = drawn_chunks(array)
        assert chunks == drawn_chunks(array.copy())  # the same operand, the same chunks
        for length, sizes in zip(array.shape, chunks):
            assert sum(sizes) == length and min(sizes) >= 1
            assert len(sizes) >= 2 or length == 1
    assert drawn_chunks(np.zeros((0, 3))) == ((0,), drawn_chunks(np.zeros((0, 3)))[1])


def test_drawn_chunks_include_size_one_and_uneven_last_chunks():
    axes = [sizes for array in ARRAYS for sizes in drawn_chunks(array)]
    assert any(sizes == (1,) * len(sizes) and len(sizes) > 1 for sizes in axes)  # all of size 1
    assert any(len(set(sizes[:-1])) == 1 and sizes[-1] < sizes[0] for sizes in axes if len(sizes) > 2)
    assert any(len(set(sizes)) > 2 for sizes in axes)  # cut at random places


SEEN = []  # the chunks of each array cumulative_sum_seen was called with


def cumulative_sum_seen(x, /, *, axis=None):
    import array_api_compat.dask.array as xp

    SEEN.append(x.chunks)
    return xp.cumulative_sum(x, axis=axis)


class SeesItsOperands(DaskAdapter):
    name = "dask_that_sees_its_operands"
    OPS = {**DaskAdapter.OPS, "cumsum": cumulative_sum_seen}


def test_a_chunked_call_splits_its_operands_and_eager_keeps_one_chunk():
    x = np.arange(1.0, 10.0)
    for mode in ("eager", "chunked"):
        assert np.array_equal(
            SeesItsOperands().call("cumsum", (x,), {"axis": 0}, mode=mode).values, np.cumsum(x)
        )
    assert SEEN[0] == ((9,),)
    assert SEEN[1] == drawn_chunks(x) and len(SEEN[1][0]) > 1


def test_the_reproducer_of_a_chunked_call_names_the_chunks():
    dask = load_adapter("dask")
    case = Case("cumsum", (np.arange(6.0),), {"axis": 0})
    text = reproducer(case, dask, dask, mode="chunked")
    assert f"x0 in chunks {drawn_chunks(np.arange(6.0))}" in text
    assert "mode='chunked'" in text


def test_the_default_run_checks_dask_in_every_family_on_a_share():
    plan = select(None, [])
    (row,) = [a for a in plan.adapters if a.name == "dask"]
    assert all(plan.outside(row, family) is None for family in (*FAMILIES, "known"))
    assert plan.share(row, None, "eager") < 1
    named = select("dask", [])  # named, every family on every example
    assert named.families == {} and named.share(named.adapters[0], None, "eager") == 1.0


def test_no_row_imports_dask_arrays_by_dlpack():
    """A Dask array has no __dlpack__: the interchange specs' producers leave Dask out."""
    chosen = select("numpy,dask", []).adapters
    assert builtin_backends(chosen) == ("numpy",)
    assert not hasattr(DaskAdapter().values.from_numpy(np.zeros(2), None), "__dlpack__")
