"""Warp lifetimes and the temporal resource under-utilisation of TBs (dissertation ch. 3
§3.1 and §3.3's characterisation of RAY and ST).

:class:`WarpLifetimes` is a passive mechanism (it changes nothing): for every TB it
records the cycle it was dispatched, each warp's finish cycle and each warp's issued
instructions. When a TB's last warp finishes it computes the TB's **RTRU** (ratio of
temporal resource under-utilisation): with ``T_i`` the lifetime of warp ``i`` (TB
dispatch to the warp's finish) and ``maxT`` the longest,
``RTRU = sum_i (maxT - T_i) / (N * maxT)``.

Counters (``lifetimes.*``, summed over launches):

* ``tbs``, ``rtru_sum`` (mean RTRU per TB = ``rtru_sum / tbs``), ``rtru_log_sum`` and
  ``rtru_positive`` (geometric mean over the TBs with RTRU > 0);
* ``tb0_rtru`` and ``tb0_warp_end.<w>`` (finish cycle of warp ``w`` of TB 0, first
  launch only);
* ``warp_insts.<lo>``: warps that issued ``lo`` to ``lo + bin - 1`` instructions
  (``bin`` = 500 by default, the chapter's histogram).
"""

from __future__ import annotations

import math

from golden.timing.hooks import Mechanism


class WarpLifetimes(Mechanism):
    """Records warp lifetimes and per-TB RTRU (see the module docstring)."""

    name = "lifetimes"
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False

    #: sampled timing (not-sampleable): reports the first launch's warp lifetimes, so the launches chosen for detail would change its output
    sampling = "not-sampleable"
    sampling_reason = "reports the first launch's warp lifetimes, so the launches chosen for detail would change its output"

    def __init__(self, config=None, bin: int = 500):
        self.bin = bin
        self._launches = 0
        self._insts: dict = {}     # (tb_id, widx) -> issued instructions, this launch
        self._ends: dict = {}      # tb_id -> [finish cycle of each finished warp]

    def launch_begin(self, launch, sms) -> None:
        self._launches += 1
        self._insts = {}
        self._ends = {}

    def after_step(self, sm, warp, pc: int, record) -> None:
        key = (warp.tb.tb_id, warp.widx)
        ins = self._insts
        ins[key] = ins.get(key, 0) + 1

    def on_warp_exit(self, sm, warp) -> None:
        tb = warp.tb
        st = sm.stats
        ends = self._ends.setdefault(tb.tb_id, [])
        ends.append(sm.now)
        n_insts = self._insts.pop((tb.tb_id, warp.widx), 0)
        lo = n_insts // self.bin * self.bin
        st.count_mechanism(f"lifetimes.warp_insts.{lo}")
        first = self._launches == 1
        if first and tb.tb_id == 0:
            st.count_mechanism(f"lifetimes.tb0_warp_end.{warp.widx}", sm.now)
        if tb.live == 1:   # the TB's last warp
            del self._ends[tb.tb_id]
            rtru = tb_rtru([e - tb.dispatched + 1 for e in ends])
            st.count_mechanism("lifetimes.tbs")
            st.count_mechanism("lifetimes.rtru_sum", rtru)
            if rtru > 0:
                st.count_mechanism("lifetimes.rtru_positive")
                st.count_mechanism("lifetimes.rtru_log_sum", math.log(rtru))
            if first and tb.tb_id == 0:
                st.count_mechanism("lifetimes.tb0_rtru", rtru)


def tb_rtru(lifetimes) -> float:
    """RTRU of one TB from its warps' lifetimes (§3.1): ``sum(maxT - T_i) / (N maxT)``."""
    t = list(lifetimes)
    if not t:
        return 0.0
    m = max(t)
    return sum(m - x for x in t) / (len(t) * m) if m > 0 else 0.0


def make_warp_lifetimes(config, bin: int = 500):
    """``warp-lifetimes``: the passive RTRU / warp-lifetime recorder (``bin``: cycles per
    histogram bin)."""
    return WarpLifetimes(config, bin=bin)
