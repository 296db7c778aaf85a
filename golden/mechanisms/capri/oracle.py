"""The compaction-adequacy oracle of CAPRI §5.1 and the per-warp decisions of WPDOM, TBC,
TBC+ and CAPRI, measured on a baseline (WPDOM) timing run.

:class:`CapriOracle` is a passive mechanism: it changes nothing in the run. At every
``bra`` a warp issues it records the warp's taken and not-taken masks. Branch executions
are grouped into *dynamic branch instances* per CTA: the k-th execution of branch B by
each warp of a CTA is instance (B, k) -- under thread block compaction the CTA executes
each instance together (every branch is a CTA barrier), so the k-th executions are the
ones TBC would compact together, also for loops whose trip count differs between warps.

Per instance, for each path (taken, not taken) the **oracle** counts the warps with a
thread on the path (``n``, the warps WPDOM runs) and the per-lane maximum of active
threads over those warps (``m``, the fewest warps compaction with home lanes can form:
the exhaustive minimum). The instance is **adequate** (compaction pays) when
``m_taken + m_not_taken < n_taken + n_not_taken``.

Per warp and conditional branch instance, each scheme's decision is classed against the
oracle (§5.1: decision/oracle): Bypass/Bypass and Stall/Stall are correct,
Bypass/Stall and Stall/Bypass wrong. Two per-warp scoring rules are counted side by side:

* **instance rule** (counters ``capri.<scheme>.*``, the report's first accuracy table):
  every warp that executes the instance gets the instance's verdict -- Stall if the
  instance is adequate, else Bypass -- whatever its own masks. A warp that did not
  diverge at an adequate instance (all its threads on one path) is thus scored
  Bypass/Stall when CAPRI lets it go on, although CAPRI's decision logic (§3.2) never
  stalls such a warp and a full one gains nothing from waiting.
* **needed rule** (counters ``capri.needed.<scheme>.*``, :func:`needed_warps`): a warp's
  ideal decision is Stall only if it is needed for the maximal compaction -- compacting
  every other warp of the instance while it alone bypasses would need more warps than
  compacting them all. Full warps that did not diverge, and every warp of an
  inadequate instance, should bypass.

What the paper's Figure 9 counts (§5.1): "for each branch, we perform an exhaustive
search of all potential compactions and identify the minimum number of warps required
to achieve maximal compaction for each dynamic branch. We then count how many warps were
bypassed and how many waited at each specific dynamic branch". It classes *per-warp
predictions* and says TBC is near 0% on non-divergent benchmarks (so non-divergent warps
are classed); the per-warp verdict is not spelled out, and its warps are those of the
scheme's own run (compacted warps, hence "the fraction of stall decisions is relatively
low" on BFS / MUM), where ours are WPDOM's static warps. The needed rule is our reading of
"minimum number of warps required" as the warps the maximal compaction needs; it tests
each warp alone, not the exhaustive minimum set (warps whose bypass is neutral one at a
time may not all be bypassable together), and it keeps WPDOM's warps.

* WPDOM always bypasses, TBC always stalls;
* TBC+ bypasses unconditional branches and ``bra.uni``, otherwise stalls;
* CAPRI: a warp that did not diverge bypasses without touching the CAPT; a divergent
  warp looks up the branch PC in the per-core CAPT (the golden
  :class:`~golden.structures.capri.capt.Capt`: fully associative, LRU, ``entries``): a
  miss allocates the entry as "adequate" and stalls, a hit stalls or bypasses as the
  history predicts. When the instance is complete the golden WCU
  (:class:`~golden.structures.capri.wcu.Wcu`) evaluates both paths (compacting the
  stalled warps) and the CAPT is updated once with the instance's outcome (``1bL``: the
  outcome; ``2bit``: saturating counter, MSB predicts adequate, starts at binary 10;
  ``1bS``: set on allocation, never cleared); the CAPT resets when a kernel completes.
  These are the structures the RTL benches replay (``recorder_factory``, see
  :mod:`golden.mechanisms.capri.trace`). Simplification: we run WPDOM, so TBC's CTA-wide WCnt = 0
  point does not exist; an instance is evaluated (and the CAPT updated) once every
  unfinished warp of its CTA executed it, or else when the CTA finishes (warps that left
  a loop earlier never reach its later instances).

The compaction itself is not applied to the timing (that needs dynamic warps in the
timing model); this measures prediction quality and compaction opportunity.

Counters (``capri.*``): ``instances``, ``divergent_instances``, ``adequate_instances``;
``warps_wpdom`` / ``warps_compacted`` (sum of ``n`` and of ``m`` over paths and instances:
warp-path executions without and with ideal compaction); ``<scheme>.<decision>_<oracle>``
for scheme in ``wpdom``, ``tbc``, ``tbcplus``, ``capri`` (e.g. ``capri.tbc.stall_bypass``),
and ``sweep.<policy>_<entries>`` for the extra CAPTs of ``sweep=True``, each also as
``needed.<scheme>.<decision>_<ideal>`` under the needed rule; ``capt_hits`` /
``capt_misses`` (of the main CAPT).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from golden.errors import ConfigError
from golden.mechanisms.arguments import takes
from golden.timing.hooks import Mechanism

POLICIES = ("1bL", "1bS", "2bit")
SCHEMES = ("wpdom", "tbc", "tbcplus", "capri")


#: the CAPT configurations ``sweep=True`` evaluates besides the main one: the three
#: histories at 32 entries and 1b-Latest from 2 to 16 entries (§5.5)
SWEEP = (("1bS", 32), ("2bit", 32), ("1bL", 2), ("1bL", 4), ("1bL", 8), ("1bL", 16))


@dataclass(frozen=True)
class CapriOracleParams:
    """policy: CAPT history (``1bL``, ``1bS``, ``2bit``); entries: CAPT entries per core;
    sweep: also evaluate every CAPT configuration of :data:`SWEEP` in the same run
    (counters ``capri.sweep.<policy>_<entries>.<decision>_<oracle>``)."""

    policy: str = "1bL"
    entries: int = 32
    sweep: bool = False

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ConfigError(f"capri: policy must be one of {POLICIES}, not {self.policy!r}")
        if not isinstance(self.entries, int) or self.entries < 1:
            raise ConfigError(f"capri: entries must be a positive integer, not {self.entries!r}")

    @property
    def capts(self) -> tuple:
        """``(counter prefix, policy, entries)`` of every CAPT evaluated; the first is the
        main one (``capri.capri``)."""
        out = [("capri.capri", self.policy, self.entries)]
        if self.sweep:
            out += [(f"capri.sweep.{p}_{n}", p, n) for p, n in SWEEP
                    if (p, n) != (self.policy, self.entries)]
        return tuple(out)


class _Instance:
    __slots__ = ("pc", "uni", "warps")

    def __init__(self, pc: int, uni: bool):
        self.pc = pc
        self.uni = uni
        #: (warp index in the CTA, taken mask, not-taken mask, decision of each CAPT)
        self.warps: list = []


class CapriOracle(Mechanism):
    """Records dynamic branch instances and classes each scheme's decisions (module
    docstring)."""

    name = "capri"
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False

    #: sampled timing (not-sampleable): its CAPTs live across launches, so skipped launches would change their predictions
    sampling = "not-sampleable"
    sampling_reason = "its CAPTs live across launches, so skipped launches would change their predictions"

    def __init__(self, config, params: CapriOracleParams | None = None, recorder_factory=None):
        self.params = params or CapriOracleParams()
        self._configs = self.params.capts
        self._recorder_factory = recorder_factory
        self._launched = False       # a launch began before (its CAPTs reset at the next)
        self._capt: dict = {}        # sm id -> [Capt per configuration], across launches
        self._wcu: dict = {}         # sm id -> Wcu sized to the launch's CTAs
        self._tbs: dict = {}         # (sm id, tb id) -> OrderedDict[(pc, k)] -> _Instance
        self._seen: dict = {}        # (sm id, tb id, widx, pc) -> executions so far

    def launch_begin(self, launch, sms) -> None:
        if self._launched:
            for capts in self._capt.values():   # the previous kernel completed: CAPT reset
                for capt in capts:
                    capt.reset()
        self._launched = True
        self._wcu = {}
        self._tbs = {}
        self._seen = {}

    def _structures(self, sm):
        """The SM's CAPTs (one per configuration; the first is the main one, recorded) and
        its WCU (sized to the launch's CTAs)."""
        from golden.structures.capri.capt import Capt, CaptParams
        from golden.structures.capri.wcu import Wcu, WcuParams
        f = self._recorder_factory
        capts = self._capt.get(sm.id)
        if capts is None:
            capts = []
            for i, (_, policy, entries) in enumerate(self._configs):
                cp = CaptParams(entries=max(2, entries), policy=policy)
                rec = f("capri_capt", sm.id, cp) if f and i == 0 else None
                capts.append(Capt(cp, recorder=rec, check=rec is not None))
            self._capt[sm.id] = capts
        wcu = self._wcu.get(sm.id)
        if wcu is None:
            wp = WcuParams(warps=sm.launch.geo.warps_per_tb, lanes=sm.warp_size)
            rec = f("capri_wcu", sm.id, wp) if f else None
            wcu = self._wcu[sm.id] = Wcu(wp, recorder=rec, check=rec is not None)
        return capts, wcu

    def on_branch(self, sm, warp, pc: int, record, diverged: bool) -> None:
        inst = sm.launch.program.slots[pc >> 3].inst
        if inst.opcode != "bra" or inst.guard is None:
            return   # unconditional branches: every scheme but TBC goes on; not classed
        tb = warp.tb.tb_id
        key = (sm.id, tb, warp.widx, pc)
        k = self._seen.get(key, 0)
        self._seen[key] = k + 1
        insts = self._tbs.setdefault((sm.id, tb), OrderedDict())
        ins = insts.get((pc, k))
        if ins is None:
            ins = insts[(pc, k)] = _Instance(pc, "uni" in inst.mods)
        taken = record.active_mask
        not_taken = record.mask & ~taken
        capts, _ = self._structures(sm)
        decisions = []
        for i, capt in enumerate(capts):
            decision = "bypass"
            if taken and not_taken:   # the warp diverged: CAPRI consults the CAPT
                hit, adequate = capt.lookup(pc)   # a miss allocates and predicts adequate
                if i == 0:
                    sm.stats.count_mechanism("capri.capt_hits" if hit else "capri.capt_misses")
                decision = "stall" if adequate else "bypass"
            decisions.append(decision)
        ins.warps.append((warp.widx, taken, not_taken, decisions))
        if len(ins.warps) >= warp.tb.live:   # every unfinished warp of the CTA executed it
            del insts[(pc, k)]
            self._evaluate(sm, ins)

    def on_warp_exit(self, sm, warp) -> None:
        if warp.tb.live != 1:
            return
        insts = self._tbs.pop((sm.id, warp.tb.tb_id), None)
        for ins in (insts or {}).values():   # instances some warps never reached
            self._evaluate(sm, ins)

    def _evaluate(self, sm, ins: _Instance) -> None:
        """The instance is complete: the oracle, every scheme's class, the CAPT update."""
        capts, wcu = self._structures(sm)
        count = sm.stats.count_mechanism
        # the WCU evaluates both paths (compacting the warps the main CAPT stalled)
        wpt = wcu.params.warps
        taken, not_taken = [0] * wpt, [0] * wpt
        umask = 0
        for widx, t, n, decs in ins.warps:
            taken[widx], not_taken[widx] = t, n
            if decs[0] == "stall":
                umask |= 1 << widx
        rt, rn = wcu.compact(taken, umask), wcu.compact(not_taken, umask)
        nt, mt = rt.n_active_warps, rt.max_lane_count
        nn, mn = rn.n_active_warps, rn.max_lane_count
        adequate = mt + mn < nt + nn
        oracle = "stall" if adequate else "bypass"
        count("capri.instances")
        count("capri.warps_wpdom", nt + nn)
        count("capri.warps_compacted", mt + mn)
        if any(t and n for _, t, n, _ in ins.warps):
            count("capri.divergent_instances")
        if adequate:
            count("capri.adequate_instances")
        prefixes = [c[0] for c in self._configs]
        needed = needed_warps(taken, not_taken)
        for widx, _, _, decs in ins.warps:
            ideal = "stall" if needed[widx] else "bypass"
            for rule, o in (("", oracle), (".needed", ideal)):
                count(f"capri{rule}.wpdom.bypass_{o}")
                count(f"capri{rule}.tbc.stall_{o}")
                count(f"capri{rule}.tbcplus.{'bypass' if ins.uni else 'stall'}_{o}")
                for prefix, dec in zip(prefixes, decs):
                    count(f"capri{rule}.{prefix[len('capri.'):]}.{dec}_{o}")
        for capt in capts:
            capt.update(ins.pc, adequate)


def _lane_counts(masks) -> list:
    """Active threads per SIMD lane over ``masks`` (the WCU predictor's counters, Fig. 8)."""
    counts = [0] * 32
    for m in masks:
        while m:
            low = m & -m
            counts[low.bit_length() - 1] += 1
            m ^= low
    return counts


def needed_warps(taken: list, not_taken: list) -> list:
    """Per warp of a dynamic branch instance (its taken and not-taken masks by warp index):
    whether it is *needed* for the maximal compaction -- compacting every other warp while
    it alone bypasses would need more warps than compacting all of them:
    ``[t] + [n] + max_l(T_l - t_l) + max_l(N_l - n_l) > max_l T_l + max_l N_l`` with
    ``T_l`` / ``N_l`` the per-lane thread counts of the taken / not-taken path. At an
    inadequate instance no warp is needed; a warp active on every lane of both paths'
    maxima (e.g. a full warp that did not diverge) is never needed."""
    ct, cn = _lane_counts(taken), _lane_counts(not_taken)
    mt, mn = max(ct), max(cn)
    out = []
    for t, n in zip(taken, not_taken):
        cost = (t != 0) + (n != 0)
        cost += max(c - ((t >> l) & 1) for l, c in enumerate(ct)) if t else mt
        cost += max(c - ((n >> l) & 1) for l, c in enumerate(cn)) if n else mn
        out.append(cost > mt + mn)
    return out


def accuracy(counters: dict, scheme: str) -> float | None:
    """Fraction of ``scheme``'s decisions that agree with the oracle (None if none);
    ``scheme`` is one of :data:`SCHEMES` or ``"sweep.<policy>_<entries>"`` (instance rule),
    or either prefixed ``"needed."`` (per-warp needed rule, :func:`needed_warps`)."""
    ok = sum(counters.get(f"capri.{scheme}.{d}_{d}", 0) for d in ("stall", "bypass"))
    bad = sum(counters.get(f"capri.{scheme}.{a}_{b}", 0)
              for a, b in (("stall", "bypass"), ("bypass", "stall")))
    return ok / (ok + bad) if ok + bad else None


@takes(CapriOracleParams)
def make_capri_oracle(config, **kw):
    """``capri-oracle``: the passive §5.1 oracle and decision classifier."""
    return CapriOracle(config, CapriOracleParams(**kw))
