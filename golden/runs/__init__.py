"""The run drivers: whole workloads (or several host programs) run on the timing model.

* :mod:`.timing_workload` -- one workload in timing mode and its summary record
  (``simtlab run W --mode timing``);
* :mod:`.sampled_run` -- the same record from a launch-sampled run (``--sample launch``);
* :mod:`.tb_sampled_run` -- the same record from a thread-block-sampled run (``--sample tb``);
* :mod:`.sampled_cli` -- the ``--sample`` options of ``simtlab run``;
* :mod:`.concurrent` -- several host programs' kernels at once on SM partitions.

The drivers stand above the mechanisms (:mod:`golden.mechanisms.registry` makes the named
ones), the workloads and the timing model they run; the timing model imports nothing of
them. Their statistics (:mod:`golden.timing.sampling`, :mod:`golden.timing.tb_sampling`)
stay in the timing model.
"""
