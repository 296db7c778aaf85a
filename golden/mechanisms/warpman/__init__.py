"""WarpMan warp-level resource management (seed 002 ch. 3): the timing mechanism
(:mod:`.mechanism`) and the trace recording of its structures (:mod:`.trace`)."""
