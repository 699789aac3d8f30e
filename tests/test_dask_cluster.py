"""The Dask row on a distributed cluster: a spec's chunked cases, computed by the worker processes
of a ``distributed.LocalCluster`` (Dask's ``scheduler-address``, which the Dask adapter follows),
agree with NumPy and with the same calls in one chunk through the real harness: no new divergence
under the shipped registry, none from eager, and the cluster's scheduler ran the tasks."""

from __future__ import annotations

import pytest

from compat.results import records
from tests.helpers import SPECS, output, run_pytest

pytest.importorskip("dask", reason="the Dask row needs dask")
distributed = pytest.importorskip("distributed", reason="the cluster test needs dask's distributed")
pytestmark = pytest.mark.slow  # a cluster of two worker processes and a child pytest run: about 13 s


def test_chunked_cases_computed_on_a_local_cluster_agree(tmp_path):
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        done = run_pytest(
            [
                str(SPECS / "statistics.py"),
                "-k",
                "cumulative_sum and chunked",
                "--backends",
                "dask",
                "--modes",
                "dask:chunked",
                "--mode-examples",
                "0.5",
            ],
            tmp_path,
            shipped_registry=True,
            DASK_SCHEDULER_ADDRESS=cluster.scheduler_address,
        )
        tasks = cluster.scheduler.transition_counter
    assert done.returncode == 0, output(done)
    run = next(iter(records.load(tmp_path / "results").runs.values()))
    chunked = sum(sum(r.cases.values()) for r in run.checks if r.backend.config.get("mode") == "chunked")
    assert chunked > 10, f"{chunked} cases checked in chunks"
    assert not [d.detail for d in run.divergences if d.status == "new" or d.against_device]
    assert tasks > 100, f"the cluster's scheduler saw {tasks} transitions: the calls did not reach it"
