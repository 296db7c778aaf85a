"""WarpMan: warp-level resource management (dissertation ch. 3, §3.3).

The baseline GPU manages SM resources per thread block: a TB's registers and warp
scheduler entries are allocated when the whole TB fits, and freed when its last warp
finishes. WarpMan adds, on top of the timing model's general warp-granular hooks
(:mod:`golden.timing.hooks`: ``reclaim_warp``, ``partial_dispatch``):

* **temporal reclamation** ("temp", §3.3 step 3): a finished warp's registers and
  scheduler entry (and threads) are freed at once; shared memory and the TB slot stay
  until the TB finishes. Freed resources go first to the SM's partial TB, then to the TB
  dispatcher (a new whole or partial TB);
* **spatial reclamation** ("spatial", §3.3 steps 1-2): a TB that fails the TB-level
  check but passes the warp-level check (its whole shared memory, a TB slot, one
  scheduler entry, registers for one warp) is dispatched *partially*: its first warps
  get resources, the rest wait in the SM's **workload buffer** and are issued in warp-id
  order as warps finish. At most one partial TB per SM; a ``__syncthreads`` in it waits
  for the unissued warps (both enforced by the timing model);
* **contention control** (§3.3 step 6): ``spatial="duel"`` -- SM set-dueling
  (:class:`golden.mechanisms.dueling.SMDuel`: SM ``duel_leaders[0]`` always allocates
  at warp level, SM ``duel_leaders[1]`` always at TB level, the others follow the one
  with the higher IPC as set-dueling's saturating policy selector reads it, or, with
  ``duel_rule=cumulative``, from instruction counts since the launch started; temp stays
  on everywhere); ``spatial="threshold"`` -- no new
  partial TB once ``threshold_warps`` (36) warps are resident on the SM.

The golden structures of the RTL are driven from here: the per-SM workload buffer
(:mod:`golden.structures.warpman.workload_buffer`) mirrors the timing model's unissued
warps and the warp-level dispatch check (:mod:`golden.structures.warpman.dispatch_check`)
is evaluated at every partial-dispatch decision; with ``check`` the mechanism raises if
either disagrees with the timing model.

Counters (``warpman.*``): ``partial_tbs`` (partial dispatches), ``partial_refused``
(warp-level check passed but the policy said no), ``buffered_warps`` (warps that waited
in the workload buffer), ``reclaimed_warps``, ``duel_follow_spatial`` /
``duel_follow_tb`` (follower decisions).

Scheduler entries (``slot_policy``): warp ``w`` of a TB takes an entry of warp scheduler
``w mod num_schedulers`` ("interleave", default), whole or partial TB, also when it reuses
the entry of a single finished warp; the TB-level and warp-level checks count a warp as
fitting only if its scheduler has a free entry. §3.4 says WarpMan "does not affect the
warp scheduling policy except that it provides more candidates", and GPGPU-Sim's per-CTA
warp ids interleave every TB's warps over the schedulers. ``slot_policy=lowest`` keeps the
earlier model (the lowest free entry, as the baseline SM takes): warps of one scheduler
tend to finish together, so reused entries could put all of a new TB's warps on one
scheduler (PF under "temp": 153 of 424 TBs, baseline 4; docs/results/warpman.md).

Simplifications: the threshold gates new partial TBs only (a partial TB's buffered warps
are still issued as warps finish); the chapter's multi-kernel rule (freed slots reused
by the same kernel only) holds because concurrent kernels run on disjoint SMs here.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigError, SimtlabError
from golden.mechanisms.arguments import takes
from golden.mechanisms.claims import TB_DISPATCH
from golden.mechanisms.dueling import PSEL_BITS, SMDuel, check_rule
from golden.timing.hooks import Mechanism

#: the spatial-reclamation policies
SPATIAL = ("off", "on", "duel", "threshold")
#: where a warp gets its scheduler entry: "interleave" (warp w of a TB only in an entry of
#: scheduler w mod num_schedulers) or "lowest" (ablation: the lowest free entry)
SLOT_POLICIES = ("interleave", "lowest")


@dataclass(frozen=True)
class WarpManParams:
    """WarpMan's parameters (defaults: the chapter's temp+spatial design point).

    temp: free a finished warp's registers and scheduler entry at once.
    spatial: ``"off"``, ``"on"`` (always dispatch partial TBs), ``"duel"`` (SM
    set-dueling) or ``"threshold"`` (no new partial TB at >= ``threshold_warps``
    resident warps). duel_leader_warp / duel_leader_tb: the SM that always allocates at
    warp level and the SM that always allocates at TB level. duel_rule: how the followers
    read the leaders' IPC (:mod:`golden.mechanisms.dueling`): ``"psel"`` (default;
    set-dueling's saturating policy selector, as in the technique the chapter cites) or
    ``"cumulative"`` (ablation: instruction counts since the launch started).
    duel_psel_bits: the selector's width (10, the cited technique's; not tuned).
    slot_policy: ``"interleave"`` (warp w of a TB only in an entry of scheduler w mod
    num_schedulers) or ``"lowest"`` (ablation, the earlier model: the lowest free entry).
    check: compare the golden structures with the timing model at every event.
    """

    temp: bool = True
    spatial: str = "on"
    threshold_warps: int = 36
    duel_leader_warp: int = 0
    duel_leader_tb: int = 1
    duel_rule: str = "psel"
    duel_psel_bits: int = PSEL_BITS
    slot_policy: str = "interleave"
    check: bool = True

    def __post_init__(self):
        if self.spatial not in SPATIAL:
            raise ConfigError(f"warpman: spatial must be one of {SPATIAL}, "
                              f"not {self.spatial!r}")
        if not isinstance(self.threshold_warps, int) or self.threshold_warps < 1:
            raise ConfigError(f"warpman: threshold_warps must be a positive integer, "
                              f"not {self.threshold_warps!r}")
        check_rule(self.duel_rule, self.duel_psel_bits, "warpman", "duel_")
        if self.slot_policy not in SLOT_POLICIES:
            raise ConfigError(f"warpman: slot_policy must be one of {SLOT_POLICIES}, "
                              f"not {self.slot_policy!r}")


class WarpManMechanism(Mechanism):
    """WarpMan on one GPU run (see the module docstring)."""

    name = "warpman"
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False
    #: dispatches partial TBs and frees a finished warp's resources early
    claims = frozenset({TB_DISPATCH})

    #: sampled timing (whole-launch): warp-level reclamation and partial-TB dispatch change how a launch's TBs share SMs; reset per launch
    sampling = "whole-launch"
    sampling_reason = "warp-level reclamation and partial-TB dispatch change how a launch's TBs share SMs; reset per launch"

    def __init__(self, config, params: WarpManParams | None = None, recorder_factory=None):
        self.cfg = config
        self.params = params or WarpManParams()
        p = self.params
        n = config.core.num_sms
        if p.spatial == "duel":
            for s in (p.duel_leader_warp, p.duel_leader_tb):
                if not 0 <= s < n:
                    raise ConfigError(f"warpman: duel leader SM {s} does not exist "
                                      f"({config.name} has {n} SMs)")
        self.duel = (SMDuel(p.duel_leader_warp, p.duel_leader_tb, tie="b", rule=p.duel_rule,
                            psel_bits=p.duel_psel_bits)
                     if p.spatial == "duel" else None)
        self._recorder_factory = recorder_factory
        self._sms: dict = {}

    # ---------------------------------------------------------------- per-SM state
    def launch_begin(self, launch, sms) -> None:
        self._sms = {}
        for sm in sms:
            sm.slot_interleave = self.params.slot_policy == "interleave"
        if self.duel is not None:
            self.duel.reset()

    def _state(self, sm):
        st = self._sms.get(sm.id)
        if st is None:
            st = self._sms[sm.id] = _SMState(self, sm)
        return st

    # ---------------------------------------------------------------- hooks
    def reclaim_warp(self, sm, warp) -> bool:
        if self.params.temp:
            sm.stats.count_mechanism("warpman.reclaimed_warps")
        return self.params.temp

    def partial_dispatch(self, sm, tb_id: int, n_warps: int) -> bool:
        p = self.params
        st = self._state(sm)
        st.check_dispatch(sm, n_warps)
        if n_warps == 0:
            return False
        if p.spatial == "on":
            ok = True
        elif p.spatial == "duel":
            ok = self.duel.policy(sm.id) == "a"
            if sm.id not in (p.duel_leader_warp, p.duel_leader_tb):
                sm.stats.count_mechanism("warpman.duel_follow_spatial" if ok
                                         else "warpman.duel_follow_tb")
        elif p.spatial == "threshold":
            ok = sm.used_warps < p.threshold_warps
        else:
            ok = False
        if ok:
            sm.stats.count_mechanism("warpman.partial_tbs")
            sm.stats.count_mechanism("warpman.buffered_warps",
                                     sm.launch.geo.warps_per_tb - n_warps)
        else:
            sm.stats.count_mechanism("warpman.partial_refused")
        return ok

    def after_step(self, sm, warp, pc: int, record) -> None:
        if self.duel is not None:
            self._state(sm)
            self.duel.count(sm.id)

    def on_warp_start(self, sm, warp) -> None:
        self._state(sm).warp_started(sm, warp)

    def on_warp_exit(self, sm, warp) -> None:
        self._state(sm).warp_exited(sm, warp)

    def timeline_sample(self, sm) -> dict | None:
        """Over-time gauges of ``sm`` (read only): warps of its partial TB still waiting in
        the workload buffer (``buffered_warps``) and its resident TBs (``resident_tbs``)."""
        st = self._sms.get(sm.id)
        if st is None:
            return None
        return {"buffered_warps": st.wb.unissued, "resident_tbs": len(st.slots)}


class _SMState:
    """The golden structures of one SM: its workload buffer and dispatch check, and the
    physical TB slot (P_TBid) of each resident TB."""

    def __init__(self, mech: WarpManMechanism, sm):
        from golden.structures.warpman.dispatch_check import DispatchCheck, DispatchCheckParams
        from golden.structures.warpman.workload_buffer import WorkloadBuffer, WorkloadBufferParams
        core = sm.cfg.core
        f = mech._recorder_factory
        self.check = mech.params.check
        dcp = DispatchCheckParams.from_config(sm.cfg)
        wbp = WorkloadBufferParams.for_launch(
            max(1, sm.launch.geo.num_tbs), tb_slots=core.max_tbs_per_sm,
            max_warps_per_tb=dcp.max_warps_per_tb)
        self.wb = WorkloadBuffer(wbp, recorder=f("warpman_wb", sm.id, wbp) if f else None,
                                 check=self.check)
        self.dc = DispatchCheck(dcp, recorder=f("warpman_check", sm.id, dcp) if f else None,
                                check=self.check)
        self.slots: dict = {}      # tb_id -> P_TBid
        self.max_tbs = core.max_tbs_per_sm

    def _fail(self, sm, what: str):
        raise SimtlabError(f"warpman: SM {sm.id} cycle {sm.now}: {what}")

    def check_dispatch(self, sm, n_warps: int) -> None:
        """Evaluate the warp-level dispatch check on the SM's free counts and compare it
        with the timing model's decision (the TB failed the TB-level check; ``n_warps``
        of its warps fit)."""
        core = sm.cfg.core
        occ = sm.occupancy
        # free scheduler entries, as many as the SM's free threads allow
        free_warps = min(core.max_warps_per_sm - sm.used_warps,
                         (core.max_threads_per_sm - sm.used_threads) // core.warp_size,
                         sm.entries_fit(0, occ.warps_per_tb))
        out = self.dc.check(
            free_warps=free_warps,
            free_tbs=core.max_tbs_per_sm - len(sm.tbs),
            free_regs=core.registers_per_sm - sm.used_regs,
            free_shared=core.shared_mem_per_sm - sm.used_shared,
            warps_per_tb=occ.warps_per_tb, regs_per_warp=occ.regs_per_tb // occ.warps_per_tb,
            shared_per_tb=occ.shared_per_tb)
        if self.check and (out.tb_ok or bool(out.warp_ok) != (n_warps > 0)
                           or (n_warps and min(out.n_warps, occ.warps_per_tb - 1) != n_warps)):
            self._fail(sm, f"dispatch check says tb_ok={out.tb_ok} warp_ok={out.warp_ok} "
                           f"n_warps={out.n_warps}; the timing model dispatches a partial "
                           f"TB with {n_warps} warps")

    def warp_started(self, sm, warp) -> None:
        tb = warp.tb
        if tb.tb_id not in self.slots:   # the TB's first warp: lowest free physical slot
            used = set(self.slots.values())
            self.slots[tb.tb_id] = min(s for s in range(self.max_tbs) if s not in used)
        p_tbid = self.slots[tb.tb_id]
        wb = self.wb
        if wb.valid and wb.l_tbid == tb.tb_id and warp.widx >= wb.start_wid:
            got = wb.issue()
            if self.check and got != (p_tbid, tb.tb_id, warp.widx):
                self._fail(sm, f"workload buffer issued {got}, the timing model made warp "
                               f"{warp.widx} of TB {tb.tb_id} (slot {p_tbid}) resident")
        elif warp.widx == 0 and tb.pending:
            wb.load(p_tbid, tb.tb_id, tb.pending[0], tb.pending[-1])
        if self.check and bool(wb.valid) != bool(sm.partial_tb is not None
                                                 and sm.partial_tb.pending):
            self._fail(sm, f"workload buffer valid={wb.valid} but the SM "
                           f"{'has' if sm.partial_tb else 'has no'} unissued warps")

    def warp_exited(self, sm, warp) -> None:
        tb = warp.tb
        if tb.live == 1:   # its last warp: the TB slot frees
            self.slots.pop(tb.tb_id, None)


def _make(config, **kw):
    return WarpManMechanism(config, WarpManParams(**kw))


_TAKES = takes(WarpManParams, fixed=("spatial",))


@_TAKES
def make_warpman_temp(config, **kw):
    """``warpman-temp``: temporal reclamation only."""
    return _make(config, **{"spatial": "off", **kw})


@_TAKES
def make_warpman_spatial(config, **kw):
    """``warpman-spatial``: temp + spatial (partial TBs on every SM)."""
    return _make(config, **{"spatial": "on", **kw})


@_TAKES
def make_warpman_duel(config, **kw):
    """``warpman-duel``: temp everywhere, spatial decided by SM set-dueling."""
    return _make(config, **{"spatial": "duel", **kw})


@_TAKES
def make_warpman_threshold(config, **kw):
    """``warpman-threshold``: temp + spatial until 36 warps are resident on the SM."""
    return _make(config, **{"spatial": "threshold", **kw})
