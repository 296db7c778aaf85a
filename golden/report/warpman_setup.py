"""WarpMan's baseline as the reports run it (seed 002 ch. 3, Table 4): the configuration
and the passive mechanism that records warp lifetimes (RTRU, §3.3).

Shared by the WarpMan report (:mod:`golden.report.warpman`) and the fidelity table
(:mod:`golden.report.fidelity`), which reads the same baseline runs.
"""

#: the chapter's GTX 480-like baseline (Table 4)
CONFIG = "gtx480_warpman"
#: the passive mechanism recording warp lifetimes (``golden.mechanisms.warpman.lifetimes``)
LIFETIMES = "warp-lifetimes"
