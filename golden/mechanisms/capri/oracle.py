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
Bypass/Stall and Stall/Bypass wrong.

* WPDOM always bypasses, TBC always stalls;
* TBC+ bypasses unconditional branches and ``bra.uni``, otherwise stalls;
* CAPRI: a warp that did not diverge bypasses without touching the CAPT; a divergent
  warp looks up the branch PC in the per-core CAPT (fully associative, LRU, ``entries``):
  a miss allocates the entry as "adequate" and stalls, a hit stalls or bypasses as the
  history predicts. The history is updated with the instance's outcome (``1bL``: the
  outcome; ``2bit``: saturating counter, MSB predicts adequate, starts at 2; ``1bS``: set
  on allocation, never cleared). Simplification: we run WPDOM, so TBC's CTA-wide WCnt = 0
  point does not exist; an instance is evaluated (and the CAPT updated) once every
  unfinished warp of its CTA executed it, or else when the CTA finishes (warps that left
  a loop earlier never reach its later instances).

The compaction itself is not applied to the timing (that needs dynamic warps in the
timing model); this measures prediction quality and compaction opportunity.

Counters (``capri.*``): ``instances``, ``divergent_instances``, ``adequate_instances``;
``warps_wpdom`` / ``warps_compacted`` (sum of ``n`` and of ``m`` over paths and instances:
warp-path executions without and with ideal compaction); ``<scheme>.<decision>_<oracle>``
for scheme in ``wpdom``, ``tbc``, ``tbcplus``, ``capri`` (e.g. ``capri.tbc.stall_bypass``),
and ``sweep.<policy>_<entries>`` for the extra CAPTs of ``sweep=True``; ``capt_hits`` /
``capt_misses`` (of the main CAPT).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from golden.errors import ConfigError
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


class _CAPT:
    """Per-core compaction-adequacy prediction table: branch PC -> history, LRU order."""

    def __init__(self, entries: int, policy: str):
        self.entries = entries
        self.policy = policy
        self.table: OrderedDict = OrderedDict()   # pc -> history, least recently used first

    def lookup(self, pc: int):
        """History of ``pc`` (refreshing its LRU position) or None on a miss."""
        h = self.table.get(pc)
        if h is not None:
            self.table.move_to_end(pc)
        return h

    def allocate(self, pc: int) -> None:
        if len(self.table) >= self.entries:
            self.table.popitem(last=False)
        self.table[pc] = 2 if self.policy == "2bit" else 1

    def predicts_adequate(self, h: int) -> bool:
        return h >= 2 if self.policy == "2bit" else h == 1

    def update(self, pc: int, adequate: bool) -> None:
        h = self.table.get(pc)
        if h is None or self.policy == "1bS":
            return
        if self.policy == "1bL":
            self.table[pc] = int(adequate)
        else:
            self.table[pc] = min(3, h + 1) if adequate else max(0, h - 1)


def path_counts(masks, lanes: int = 32) -> tuple[int, int]:
    """``(n, m)`` for one path: warps with an active thread and the per-lane maximum of
    active threads over them (the fewest warps compaction keeping home lanes forms)."""
    n = 0
    counts = [0] * lanes
    for mk in masks:
        if mk:
            n += 1
            for lane in range(lanes):
                if mk >> lane & 1:
                    counts[lane] += 1
    return n, max(counts) if n else 0


class _Instance:
    __slots__ = ("pc", "uni", "warps")

    def __init__(self, pc: int, uni: bool):
        self.pc = pc
        self.uni = uni
        self.warps: list = []    # (taken mask, not-taken mask, capri decision "stall"/"bypass")


class CapriOracle(Mechanism):
    """Records dynamic branch instances and classes each scheme's decisions (module
    docstring)."""

    name = "capri"

    def __init__(self, config, params: CapriOracleParams | None = None):
        self.params = params or CapriOracleParams()
        self._configs = self.params.capts
        self._launch = None
        self._capt: dict = {}        # sm id -> _CAPT
        self._tbs: dict = {}         # (sm id, tb id) -> OrderedDict[(pc, k)] -> _Instance
        self._seen: dict = {}        # (sm id, tb id, widx, pc) -> executions so far

    def _sync(self, sm) -> None:
        if sm.launch is not self._launch:
            self._launch = sm.launch
            self._capt = {}          # the CAPT is reset when a kernel completes
            self._tbs = {}
            self._seen = {}

    def on_branch(self, sm, warp, pc: int, record, diverged: bool) -> None:
        inst = sm.launch.program.slots[pc >> 3].inst
        if inst.opcode != "bra" or inst.guard is None:
            return   # unconditional branches: every scheme but TBC goes on; not classed
        self._sync(sm)
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
        capts = self._capt.get(sm.id)
        if capts is None:
            capts = self._capt[sm.id] = [_CAPT(n, p) for _, p, n in self._configs]
        decisions = []
        for i, capt in enumerate(capts):
            decision = "bypass"
            if taken and not_taken:   # the warp diverged: CAPRI consults the CAPT
                h = capt.lookup(pc)
                if h is None:
                    if i == 0:
                        sm.stats.count_mechanism("capri.capt_misses")
                    capt.allocate(pc)
                    decision = "stall"
                else:
                    if i == 0:
                        sm.stats.count_mechanism("capri.capt_hits")
                    decision = "stall" if capt.predicts_adequate(h) else "bypass"
            decisions.append(decision)
        ins.warps.append((taken, not_taken, decisions))
        if len(ins.warps) >= warp.tb.live:   # every unfinished warp of the CTA executed it
            del insts[(pc, k)]
            self._evaluate(sm, ins)

    def on_warp_exit(self, sm, warp) -> None:
        if warp.tb.live != 1:
            return
        self._sync(sm)
        insts = self._tbs.pop((sm.id, warp.tb.tb_id), None)
        for ins in (insts or {}).values():   # instances some warps never reached
            self._evaluate(sm, ins)

    def _evaluate(self, sm, ins: _Instance) -> None:
        """The instance is complete: the oracle, every scheme's class, the CAPT update."""
        capts = self._capt.get(sm.id, ())
        count = sm.stats.count_mechanism
        if True:
            nt, mt = path_counts([t for t, _, _ in ins.warps], sm.warp_size)
            nn, mn = path_counts([n for _, n, _ in ins.warps], sm.warp_size)
            adequate = mt + mn < nt + nn
            oracle = "stall" if adequate else "bypass"
            count("capri.instances")
            count("capri.warps_wpdom", nt + nn)
            count("capri.warps_compacted", mt + mn)
            if any(t and n for t, n, _ in ins.warps):
                count("capri.divergent_instances")
            if adequate:
                count("capri.adequate_instances")
            prefixes = [c[0] for c in self._configs]
            for _, _, decs in ins.warps:
                count(f"capri.wpdom.bypass_{oracle}")
                count(f"capri.tbc.stall_{oracle}")
                count(f"capri.tbcplus.{'bypass' if ins.uni else 'stall'}_{oracle}")
                for prefix, dec in zip(prefixes, decs):
                    count(f"{prefix}.{dec}_{oracle}")
            for capt in capts:
                capt.update(ins.pc, adequate)


def accuracy(counters: dict, scheme: str) -> float | None:
    """Fraction of ``scheme``'s decisions that agree with the oracle (None if none);
    ``scheme`` is one of :data:`SCHEMES` or ``"sweep.<policy>_<entries>"``."""
    ok = sum(counters.get(f"capri.{scheme}.{d}_{d}", 0) for d in ("stall", "bypass"))
    bad = sum(counters.get(f"capri.{scheme}.{a}_{b}", 0)
              for a, b in (("stall", "bypass"), ("bypass", "stall")))
    return ok / (ok + bad) if ok + bad else None


def make_capri_oracle(config, **kw):
    """``capri-oracle``: the passive §5.1 oracle and decision classifier."""
    return CapriOracle(config, CapriOracleParams(**kw))
