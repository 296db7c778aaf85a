"""The job engine: what a job is, where jobs run, where their results are kept.

* :mod:`.job` -- the job kinds (:class:`~golden.jobs.job.TimingJob`, probes) and how one
  job runs in this process;
* :mod:`.executors` -- many jobs on a local process pool or a Dask cluster;
* :mod:`.cache` and :mod:`.entries` -- the on-disk result cache and its entry format;
* :mod:`.deps` -- the files a result depends on (the cache's validity key);
* :mod:`.kinds` -- the job kinds the engine knows, and a job rebuilt from a stored result;
* :mod:`.rekey` -- verified re-keying of stored results across source edits;
* :mod:`.passive` -- plain runs answered by passive observer runs;
* :mod:`.claims` -- claims that keep two processes from running one job twice.

The engine stands below the reports (:mod:`golden.report` declares jobs and renders
their results) and above the model it runs; it imports nothing of the reports.
"""
