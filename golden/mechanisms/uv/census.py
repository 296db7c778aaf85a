"""What occupies the scalar RF and what hits the instruction reuse buffer (issue 67 point 4;
seed 002 ch. 2, §2.4.2-§2.4.3; paper-facts §2.5-§2.6).

An analysis observer for :class:`~golden.mechanisms.uv.mechanism.UVMechanism` (its
``census`` argument); it changes no decision of the mechanism, so a run with it is the
same run (cycles, counters, outputs) as one without. It measures, per SM and launch:

SRF occupancy by register class (:mod:`golden.mechanisms.uv.register_class`)
    The SRF map is wrapped (:class:`CountedSRF`) so every mapping and release is seen.
    ``peak``: the most entries one SM's SRF held at once, per class and in total;
    ``mean``: entries held, averaged over SM cycles (time-weighted, from each SM's first to
    its last SRF event of the launch, summed over SMs and launches); ``full_events``:
    uniform instructions that found the free list too short (the structural hazard, the
    mechanism's ``uv.srf_full``), by the class of the destination that needed an entry;
    ``full_share``: at those events, the share of occupied entries each class held.
IRB lookups (only uniform instructions look up)
    ``outcomes`` (hit / mismatch / miss) by the class of the destination and by opcode;
    for each lookup the **PC stack distance** (distinct other PCs looked up on this SM
    since this PC's previous lookup: an LRU, fully associative IRB of more than that many
    entries still holds the PC) and, for lookups whose (PC, source values) tuple was seen
    before, the **tuple reuse distance** (distinct other tuples since) and whether the
    previous occurrence was the same warp, another warp of the same TB or another TB.
    Distances are capped at :data:`CAP` ("CAP+").
"""

from __future__ import annotations

from collections import Counter, OrderedDict

from golden.mechanisms.uv.register_class import CLASS_NAMES

__all__ = ["CAP", "CountedSRF", "UVCensus", "run_census"]

#: largest distance told apart
CAP = 32
#: distance buckets reported (upper bounds inclusive); larger -> "CAP+"
BUCKETS = (0, 0, 1, 1, 2, 3, 4, 7, 8, 15, 16, 31)


class CountedSRF:
    """An :class:`~golden.structures.uv.srf_map.SRFMap` whose occupancy is counted by class
    (same interface the mechanism uses: ``lookup``, ``define``, ``release``,
    ``free_count``)."""

    def __init__(self, sm, srf, nregs: int, classes):
        self.sm, self.srf, self.nregs, self.classes = sm, srf, nregs, classes
        self.occ = [0, 0, 0]
        self.area = [0, 0, 0]
        self.peak = [0, 0, 0]
        self.peak_total = 0
        self.first = self.last = None

    def _cls(self, vreg: int) -> int:
        return self.classes[vreg % self.nregs]

    def _advance(self) -> None:
        now = self.sm.now
        if self.last is None:
            self.first = self.last = now
        dt = now - self.last
        if dt:
            for c in range(3):
                self.area[c] += self.occ[c] * dt
            self.last = now

    def _change(self, vreg: int, d: int) -> None:
        self._advance()
        c = self._cls(vreg)
        self.occ[c] += d
        self.peak[c] = max(self.peak[c], self.occ[c])
        self.peak_total = max(self.peak_total, sum(self.occ))

    @property
    def free_count(self) -> int:
        return self.srf.free_count

    def lookup(self, vreg):
        return self.srf.lookup(vreg)

    def define(self, vreg, uniform):
        was = self.srf.mapping(vreg) is not None
        ok, sidx = self.srf.define(vreg, uniform)
        if ok and not was:
            self._change(vreg, +1)
        elif was and not ok:
            self._change(vreg, -1)
        return ok, sidx

    def release(self, vreg):
        freed = self.srf.release(vreg)
        if freed:
            self._change(vreg, -1)
        return freed


def _bucket(d: int) -> str:
    if d >= CAP:
        return f"{CAP}+"
    lo = 0
    for i in range(0, len(BUCKETS), 2):
        lo, hi = BUCKETS[i], BUCKETS[i + 1]
        if lo <= d <= hi:
            return str(lo) if lo == hi else f"{lo}-{hi}"
    return str(d)


def _distance(lru: OrderedDict, key) -> int | None:
    """Distinct keys used since ``key`` (None if never seen); moves ``key`` to the front."""
    d = None
    if key in lru:
        d = 0
        for k in reversed(lru):
            if k == key:
                break
            d += 1
        lru.move_to_end(key)
    else:
        lru[key] = None
        if len(lru) > 4 * CAP:
            lru.popitem(last=False)
    return d


class UVCensus:
    """Observer collecting the module docstring's measurements over every launch."""

    def __init__(self):
        self.srfs: list[CountedSRF] = []
        self.full = Counter()              # class name -> full events
        self.full_occ = [0, 0, 0]          # occupied entries by class, summed over events
        self.outcomes = Counter()          # (outcome, class name) -> lookups
        self.opcodes = Counter()           # (outcome, opcode) -> lookups
        self.pc_dist = Counter()           # (outcome, bucket) -> lookups
        self.tuple_dist = Counter()        # bucket -> repeated-tuple lookups
        self.tuple_from = Counter()        # same warp / same TB / other TB -> repeats
        self.tuple_new = 0                 # lookups of a tuple never seen on the SM
        self._irb_state: dict = {}         # SM id -> (pc LRU, tuple LRU, last warp), this launch

    # ------------------------------------------------------------------ mechanism hooks
    def launch_begin(self) -> None:
        """A launch begins (called by the UV mechanism's ``launch_begin``): the IRB
        distance state starts empty on every SM."""
        self._irb_state = {}

    def wrap_srf(self, sm, srf, nregs: int, classes) -> CountedSRF:
        c = CountedSRF(sm, srf, nregs, classes)
        self.srfs.append(c)
        return c

    def srf_full(self, sm, need, classes) -> None:
        for r in need:
            self.full[CLASS_NAMES[classes[r]]] += 1
        srf = self._current_srf(sm)
        if srf is not None:
            for c in range(3):
                self.full_occ[c] += srf.occ[c]

    def _current_srf(self, sm):
        for s in reversed(self.srfs):
            if s.sm is sm:
                return s
        return None

    def irb_lookup(self, sm, w, pc, inst, u, srcs, out, classes) -> None:
        outcome = "hit" if out.hit and out.match else "mismatch" if out.hit else "miss"
        cls = CLASS_NAMES[classes[u.dsts[0]]] if classes is not None and u.dsts else "-"
        self.outcomes[(outcome, cls)] += 1
        self.opcodes[(outcome, inst.opcode)] += 1
        key = sm.id
        st = self._irb_state.get(key)
        if st is None:
            st = self._irb_state[key] = (OrderedDict(), OrderedDict(), {})
        pcs, tuples, last = st
        d = _distance(pcs, pc)
        self.pc_dist[(outcome, "new" if d is None else _bucket(d))] += 1
        t = (pc, srcs)
        d = _distance(tuples, t)
        who = (w.gid, w.tb)
        if d is None:
            self.tuple_new += 1
        else:
            self.tuple_dist[_bucket(d)] += 1
            pw, ptb = last[t]
            self.tuple_from["same warp" if pw == who[0] else
                            "same TB" if ptb is who[1] else "other TB"] += 1
        last[t] = who

    # ------------------------------------------------------------------ results
    def summary(self) -> dict:
        """The measurements as plain numbers (see module docstring)."""
        area = [sum(s.area[c] for s in self.srfs) for c in range(3)]
        span = sum((s.last - s.first) for s in self.srfs if s.first is not None)
        events = sum(self.full.values())
        occ = sum(self.full_occ)
        return {
            "srf": {
                "peak": {n: max((s.peak[c] for s in self.srfs), default=0)
                         for c, n in enumerate(CLASS_NAMES)},
                "peak_total": max((s.peak_total for s in self.srfs), default=0),
                "mean": {n: (area[c] / span if span else 0.0)
                         for c, n in enumerate(CLASS_NAMES)},
                "full_events": dict(self.full),
                "full_share": {n: (self.full_occ[c] / occ if occ else 0.0)
                               for c, n in enumerate(CLASS_NAMES)},
                "full_event_count": events,
            },
            "irb": {
                "outcomes": {f"{o}/{c}": n for (o, c), n in sorted(self.outcomes.items())},
                "opcodes": {f"{o}/{op}": n for (o, op), n in self.opcodes.most_common()},
                "pc_distance": {f"{o}/{b}": n for (o, b), n in sorted(self.pc_dist.items())},
                "tuple_distance": dict(self.tuple_dist),
                "tuple_from": dict(self.tuple_from),
                "tuple_new": self.tuple_new,
            },
        }


def run_census(workload: str, *, config: str = "gtx285", size: str = "small", seed: int = 0,
               overrides: dict | None = None, **params) -> dict:
    """Run ``workload`` in timing mode under ``UVParams(**params)`` (default: the SRF design,
    combined) with a :class:`UVCensus`; return its summary with ``cycles`` and
    ``outputs_match``."""
    from golden.configs import load_config
    from golden.mechanisms.uv.mechanism import UVMechanism, UVParams
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    params = {"design": "srf", "mode": "combined", **params}
    cfg = load_config(config, overrides or None)
    census = UVCensus()
    mech = UVMechanism(cfg, UVParams(**params), census=census)
    run = registry.run_workload(registry.get(workload), size=size, seed=seed,
                                device=TimingDevice(cfg, mechanisms=[mech], echo_printf=False))
    return {"workload": workload, "params": params,
            "cycles": sum(s.cycles for s in run.stats),
            "srf_full": sum(s.timing.mechanism.get("uv.srf_full", 0) for s in run.stats),
            "outputs_match": not run.mismatches(), **census.summary()}
