"""CAPRI in the timing model: thread block compaction whose per-warp stall / bypass
decision comes from the compaction-adequacy prediction table (seed 004 §3.2-§3.3,
Figs. 7-8; digest: paper-facts §7.2, §7.3).

Built on :class:`~golden.mechanisms.capri.tbc.CompactionFormation` (the CTA stack,
WCnt, the WCU, bypassed warps running at most one basic block ahead and going on past
the RPC of a branch the whole CTA took the same way: ``join_single_path``, on by default;
``capri:join=false`` gives the earlier model that re-formed the CTA there). At a conditional
branch of the TOS path, warp ``w``:

* did not diverge: bypasses without touching the CAPT (UMask bit 0); its threads still
  enter the path's CTA-wide mask;
* diverged: looks up the SM's CAPT (:class:`golden.structures.capri.capt.Capt`, golden
  structure): a miss allocates the branch as adequate and stalls; a hit stalls if the
  history predicts adequate, else bypasses (its taken part goes on, its not-taken part
  runs when that path becomes the TOS, as WPDOM would run it).

When WCnt reaches 0 the WCU compacts only the stalled (UMask) threads of the new TOS path
and its adequacy evaluator compares the path's largest per-lane thread count with the
warps that brought threads into it; the branch's CAPT history is updated (1b-Latest,
1b-Sticky or the 2-bit counter). Unconditional branches do not synchronise (as TBC+).
The CAPT is flushed when a launch completes.

Counters: ``capri.capt_hits / capt_misses``, ``capri.stall_divergent``,
``capri.bypass_divergent``, ``capri.bypass_nondivergent``, ``capri.updates_adequate /
updates_inadequate``.
"""

from __future__ import annotations

from golden.mechanisms.capri.tbc import BYPASS, STALL, Tbc, warp_masks
from golden.structures.capri.capt import Capt, CaptParams


class Capri(Tbc):
    """CAPRI: TBC with CAPT-predicted bypassing (see module docstring)."""

    #: sampled timing (whole-launch): the CAPT of an SM is shared by its TBs and flushed when a launch completes
    sampling = "whole-launch"
    sampling_reason = "the CAPT of an SM is shared by its TBs and flushed when a launch completes"

    def __init__(self, params: CaptParams | None = None, check: bool = False,
                 recorder_factory=None, join_single_path: bool = True,
                 keep_warps: bool = True, compact: bool = True, refetch: bool = True,
                 breakdown: bool = False):
        super().__init__(pass_unconditional=True, check=check, recorder_factory=recorder_factory,
                         join_single_path=join_single_path, keep_warps=keep_warps,
                         compact=compact, refetch=refetch, breakdown=breakdown)
        self.params = params or CaptParams()
        self._capts: dict = {}

    def _capt(self, sm) -> Capt:
        c = self._capts.get(sm.id)
        if c is None:
            c = self._capts[sm.id] = Capt(self.params, check=False,
                                          recorder=self.recorder("capri_capt", sm.id,
                                                                 self.params))
        return c

    def decide(self, sm, pc: int, taken: int, nottaken: int, inst) -> str:
        count = sm.stats.count_mechanism
        if not (taken and nottaken):
            count("capri.bypass_nondivergent")
            return BYPASS
        hit, adequate = self._capt(sm).lookup(pc)   # a miss allocates and predicts adequate
        count("capri.capt_hits" if hit else "capri.capt_misses")
        count("capri.stall_divergent" if adequate else "capri.bypass_divergent")
        return STALL if adequate else BYPASS

    def evaluated(self, sm, pc: int, path, wcu) -> None:
        res = wcu.compact(warp_masks(path.mask, wcu.params.warps), 0)   # the evaluator alone
        adequate = res.max_lane_count < path.contrib
        if self._capt(sm).update(pc, adequate):
            sm.stats.count_mechanism("capri.updates_adequate" if adequate
                                     else "capri.updates_inadequate")

    def on_complete(self, stats) -> None:
        for c in self._capts.values():
            c.reset()


def make_capri(config, entries: int = 32, policy: str = "1bL", check: bool = False,
               join: bool = True, keep: bool = True, compact: bool = True,
               refetch: bool = True, breakdown: bool = False) -> Capri:
    """``capri`` (32-entry CAPT, 1b-Latest); ``capri:entries=8,policy=2bit`` etc.
    ``join=false``: bypassed warps always stop at their path's RPC (the model before
    2026-11-28; see :attr:`Tbc.join_single_path`). ``keep=false``: warps give up their
    slots at every branch and are re-formed (the model before 2026-12-07; see
    :attr:`Tbc.keep_warps`). ``compact``, ``refetch``, ``breakdown``: the re-formation
    cost ablations and counters of :mod:`golden.mechanisms.capri.tbc`."""
    return Capri(CaptParams(entries=entries, policy=policy), check=check, join_single_path=join,
                 keep_warps=keep, compact=compact, refetch=refetch, breakdown=breakdown)


def make_capri_1bs(config, entries: int = 32, check: bool = False, join: bool = True,
                   keep: bool = True, compact: bool = True, refetch: bool = True,
                   breakdown: bool = False) -> Capri:
    return Capri(CaptParams(entries=entries, policy="1bS"), check=check, join_single_path=join,
                 keep_warps=keep, compact=compact, refetch=refetch, breakdown=breakdown)


def make_capri_2bit(config, entries: int = 32, check: bool = False, join: bool = True,
                    keep: bool = True, compact: bool = True, refetch: bool = True,
                    breakdown: bool = False) -> Capri:
    return Capri(CaptParams(entries=entries, policy="2bit"), check=check, join_single_path=join,
                 keep_warps=keep, compact=compact, refetch=refetch, breakdown=breakdown)
