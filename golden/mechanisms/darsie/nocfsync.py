"""``darsie-no-cf-sync``: DARSIE without its control-flow synchronisation (seed 000 §6.2).

The paper evaluates this idealised variant (no TB-wide barrier at branches) as an upper
bound; its figure gives no numbers. Without branch synchronisation the hardware cannot
know which warps are on the same path, so this model uses an *oracle* in place of the
majority-path mask and the PC-tagged skip table (none of the hardware structures are
modelled and no freelist limit applies):

* every warp carries a **path signature**: a hash chain of every branch it issued
  (PC, next PC, whether it diverged, lanes that executed) and of every ``bar.sync``;
  warps with equal signatures have executed the same dynamic instruction sequence, so
  the marking's DR values are equal for them (sound, unlike rejoining at barriers);
* the first eligible warp (full active mask) to issue a marked PC with its signature
  leads; its result (lanes written) is captured after its functional step and becomes
  available at its writeback (a follower arriving earlier waits at fetch: a data
  dependence, not a synchronisation);
* followers with the same signature skip at fetch (``max_skips_per_fetch`` per cycle,
  through the same ``read_ports`` per cycle as DARSIE) and receive the leader's values;
* a store (or shared atomic) by the TB drops the TB's captured load results; a global
  atomic/reduction or fence drops every captured load result of the SM.

Captured results are kept until the TB retires (sizes are small).
"""

from __future__ import annotations

import numpy as np

from golden.mechanisms.claims import (DEPENDENCE_TRACKING, ELIMINATION, FETCH,
                                      REGISTER_RENAMING, TB_DISPATCH, WARP_FORMATION)
from golden.mechanisms.darsie.frontend import DeferredSkips, full_mask
from golden.mechanisms.darsie.marking import MarkingOptions, mark_kernel
from golden.mechanisms.darsie.skip import _ATOMICS, _FENCES, _LOADS, DarsieParams
from golden.timing.hooks import Mechanism

_MIX = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def _chain(sig: int, *items: int) -> int:
    """Fold ``items`` into a 64-bit path signature (deterministic)."""
    for it in items:
        sig = ((sig ^ (it & _MASK64)) * _MIX + 0x632BE59BD9B4E019) & _MASK64
        sig ^= sig >> 29
    return sig


class _TB:
    def __init__(self, tb):
        self.tb = tb
        self.sig = [0] * len(tb.warps)
        self.results: dict[tuple, list] = {}   # (pc, sig) -> [values or None, wb done]
        self.loads: set = set()


class NoCfSyncMechanism(Mechanism):
    """The idealised ``darsie-no-cf-sync`` variant (see module docstring)."""

    name = "darsie"
    #: register values are read through FunctionalLaunch.warp_register (deferral may stay on)
    reads_wave_registers = False
    #: as DARSIE (skip.DarsieMechanism.claims)
    claims = frozenset({FETCH, REGISTER_RENAMING})
    assumes = frozenset({ELIMINATION, TB_DISPATCH, DEPENDENCE_TRACKING, WARP_FORMATION})

    #: sampled timing (whole-launch): DARSIE's TB-wide skip tables span the TBs of an SM; marking and tables rebuilt per launch
    sampling = "whole-launch"
    sampling_reason = "DARSIE's TB-wide skip tables span the TBs of an SM; marking and tables rebuilt per launch"

    def __init__(self, config, params: DarsieParams | None = None):
        self.params = params or DarsieParams(variant="darsie-no-cf-sync")
        self._skips = DeferredSkips()

    def launch_begin(self, launch, sms) -> None:
        self._state: dict[int, dict] = {}
        self._skips = DeferredSkips()
        self._leading: dict[int, tuple] = {}
        self._lead_wb: dict[tuple, list] = {}
        self.marking = mark_kernel(launch.program, launch.geo.block, MarkingOptions(warp_size=32))
        self.skippable = self.marking.skippable_pcs
        self.keys = sorted(launch.program.reg_types)
        self._ports: dict[int, tuple] = {}

    def _tbs(self, sm) -> dict:
        return self._state.setdefault(sm.id, {})

    def _tb(self, sm, w) -> _TB:
        tbs = self._tbs(sm)
        t = tbs.get(w.tb.tb_id)
        if t is None or t.tb is not w.tb:
            live = {x.tb_id for x in sm.tbs}
            for k in [k for k in tbs if k not in live]:
                del tbs[k]
            t = tbs[w.tb.tb_id] = _TB(w.tb)
        return t

    def _port(self, sm, key) -> bool:
        cyc, keys = self._ports.get(sm.id, (-1, []))
        if cyc != sm.now:
            keys = []
            self._ports[sm.id] = (sm.now, keys)
        if key in keys:
            return True
        if len(keys) < self.params.read_ports:
            keys.append(key)
            return True
        return False

    def on_fetch(self, sm, w, pc: int) -> bool:
        if pc not in self.skippable or not full_mask(w):
            return False
        t = self._tb(sm, w)
        sig = t.sig[w.widx]
        st = sm.stats
        skipped = 0
        while pc in self.skippable:
            if skipped >= self.params.max_skips_per_fetch or not self._skips.can_skip(sm, w):
                return True
            r = t.results.get((pc, sig))
            if r is None:
                return False
            if not self._port(sm, (w.tb.tb_id, pc)):
                st.count_mechanism("darsie.port_retries")
                return True
            if not r[1]:
                st.count_mechanism("darsie.follower_waits")
                return True
            self._skips.skip(sm, w, pc, r[0])
            st.instructions_skipped += 1
            st.count_mechanism("darsie.skipped")
            skipped += 1
            pc += 8
            w.fetch_pc = pc
        return False

    def on_issue(self, sm, w, pc: int, inst):
        t = self._tb(sm, w)
        op = sm.decoded[pc >> 3].opcode
        if pc in self.skippable and full_mask(w) and sm.decoded[pc >> 3].dsts:
            key = (pc, t.sig[w.widx])
            if key not in t.results:
                r = t.results[key] = [None, False]
                if op in _LOADS:
                    t.loads.add(key)
                self._leading[id(w)] = (w, key, r)
                self._lead_wb[(id(w), pc)] = r
                sm.stats.count_mechanism("darsie.leader")
            else:
                sm.stats.count_mechanism("darsie.private_redundant")
        if op == "st" or (op in _ATOMICS and "shared" in inst.mods):
            self._drop([t])
        elif (op in _ATOMICS and "shared" not in inst.mods) or op in _FENCES:
            self._drop(list(self._tbs(sm).values()))
        return None

    @staticmethod
    def _drop(tbs) -> None:
        for t in tbs:
            for key in t.loads:
                t.results.pop(key, None)
            t.loads.clear()

    def after_step(self, sm, w, pc: int, rec) -> None:
        lead = self._leading.pop(id(w), None)
        if lead is not None:
            _w, _key, r = lead
            written = ((rec.active_mask >> np.arange(32)) & 1).astype(bool)
            keys = self.keys
            read = sm.launch.warp_register
            r[0] = {keys[i]: (read(w.wave, w.widx, keys[i]).copy(), written)
                    for i in sm.decoded[pc >> 3].dsts}
        self._skips.drain(sm, w)

    def on_writeback(self, sm, w, pc: int, regs: list) -> list:
        r = self._lead_wb.pop((id(w), pc), None)
        if r is not None:
            r[1] = True
        return regs

    def on_branch(self, sm, w, pc: int, record, diverged: bool) -> None:
        t = self._tb(sm, w)
        nxt = sm.launch.next_pc(w.wave, w.widx)
        t.sig[w.widx] = _chain(t.sig[w.widx], pc, -1 if nxt is None else nxt, int(diverged),
                               record.active_mask)


def make_darsie_no_cf_sync(config):
    return NoCfSyncMechanism(config, DarsieParams(variant="darsie-no-cf-sync"))
