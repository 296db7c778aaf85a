"""WarpMan: warp-level resource management (dissertation ch. 3).

* :mod:`.mechanism` -- the timing-model mechanism (temp, spatial, dueling, threshold);
* :mod:`.lifetimes` -- the passive warp-lifetime / RTRU recorder;
* :mod:`.trace` -- recording workload-buffer and dispatch-check traces for the RTL benches.
"""
