"""A bad Dask scheduler address or connect timeout is a one-line error, not a traceback
(issue 74 item 9: ``--scheduler notanaddress`` gave a ValueError,
``SIMTLAB_DASK_CONNECT_TIMEOUT=abc`` a KeyError)."""

from __future__ import annotations

import pytest

from golden.errors import SimtlabError
from golden.jobs.executors import run_jobs
from golden.report.runner import TimingJob

JOB = TimingJob("VA", "gtx285")


def test_a_malformed_scheduler_address_is_a_clear_error():
    pytest.importorskip("distributed")
    with pytest.raises(SimtlabError, match="cannot reach the Dask scheduler at notanaddress: "
                                           "ValueError"):
        run_jobs([JOB], executor="dask", scheduler="notanaddress", progress=False)


def test_a_connect_timeout_that_is_not_a_duration_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("SIMTLAB_DASK_CONNECT_TIMEOUT", "abc")
    with pytest.raises(SimtlabError, match="SIMTLAB_DASK_CONNECT_TIMEOUT='abc' is not a duration"):
        run_jobs([JOB], executor="dask", scheduler="tcp://127.0.0.1:9", progress=False)
