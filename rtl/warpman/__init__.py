"""Amaranth components of the WarpMan structures of seed 002 ch. 3: the workload buffer of
a partial TB's unissued warps (:mod:`.workload_buffer`) and the TB-level / warp-level
dispatch check (:mod:`.dispatch_check`)."""
