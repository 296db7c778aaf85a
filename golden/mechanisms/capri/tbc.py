"""Thread block compaction (TBC) and TBC+ in the timing model (seed 004 §2.2; Fung &
Aamodt, HPCA 2011; digest: paper-facts §7.1).

Each resident CTA has one reconvergence stack (:class:`CtaStack`): entries ``{next PC,
RPC, CTA-wide active mask}``, the TOS with its **WCnt** (warps still running on the
path). The CTA's threads run in *dynamic warps* (:mod:`golden.timing.dynamic_warps`)
that the warp compaction unit (:class:`golden.structures.capri.wcu.Wcu`, per-lane
priority encoders, every thread in its home lane) forms from the TOS's mask:

* every warp of the path runs from the path's PC; a warp that executes a branch
  (TBC: every ``bra``; TBC+: every *conditional* ``bra``, since nvcc marks the
  unconditional ones ``.uni`` and they cannot diverge) adds its taken and not-taken
  threads into the CTA-wide masks of the branch, decrements WCnt and waits -- every
  branch is a CTA barrier. A warp that reaches the TOS's RPC, or whose threads all
  exited, also decrements WCnt;
* when WCnt reaches 0 the stack is updated like a PDOM stack but CTA-wide (a divergent
  branch sets the TOS's PC to the RPC and pushes the not-taken, then the taken path;
  paths that start at the RPC are not pushed; finished paths pop), the WCU compacts the
  new TOS's mask into the fewest warps, and WCnt = the warps formed. They restart fetch
  at the path's PC (I-buffers flushed);
* ``bar.sync`` waits until every warp of the path arrived (the path must hold every live
  thread of the CTA, else the kernel has a barrier in divergent code: an error).

Thread-to-warp mapping and per-warp PCs are kept per warp slot (the warp scheduler's
tables in the paper). Simplifications (stated in the report): the WCU adds no latency
beyond the branch (new warps refetch, so they pay the I-cache and decode again); pending
register writes are tracked per thread (:class:`~golden.timing.dynamic_warps.ThreadScoreboard`).
Compaction order within a lane is the lowest static warp first (the priority encoders).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from golden.errors import PTXError, SimtlabError
from golden.simt.program import NO_RECONVERGENCE
from golden.structures.capri.wcu import Wcu, WcuParams
from golden.timing.dynamic_warps import LANE_IDS, WarpFormation
from golden.timing.hooks import Mechanism

LANE_MASK = 0xFFFFFFFF


@dataclass
class CtaEntry:
    """One entry of a CTA's reconvergence stack: the path's next PC, its RPC and the
    CTA-wide mask of its threads (bit ``t`` = thread slot ``t`` of the CTA)."""

    pc: int
    rpc: int
    mask: int


class CtaStack:
    """The per-CTA reconvergence stack of TBC (entries :class:`CtaEntry`, TOS last)."""

    def __init__(self, live: int):
        self.entries = [CtaEntry(0, NO_RECONVERGENCE, live)]

    @property
    def tos(self) -> CtaEntry:
        return self.entries[-1]

    def branch(self, taken: int, nottaken: int, target: int, fallthrough: int, rpc: int) -> bool:
        """Resolve a branch of the TOS path with CTA-wide taken / not-taken threads.
        Returns True if it diverged (both paths non-empty)."""
        top = self.tos
        taken &= top.mask
        nottaken &= top.mask
        if not nottaken:
            top.pc = target
            return False
        if not taken:
            top.pc = fallthrough
            return False
        top.pc = rpc
        for pc, m in ((fallthrough, nottaken), (target, taken)):
            if pc != rpc:   # threads of a path that starts at the RPC wait in the TOS
                self.entries.append(CtaEntry(pc, rpc, m))
        return True

    def exit_threads(self, threads: int) -> None:
        """``threads`` exited: remove them from every entry."""
        for e in self.entries:
            e.mask &= ~threads

    def reconverge(self) -> None:
        """Pop paths that reached their RPC or have no thread left."""
        es = self.entries
        while es and (es[-1].pc == es[-1].rpc or es[-1].mask == 0):
            es.pop()

    @property
    def empty(self) -> bool:
        return not self.entries


def _cta_threads(slots: np.ndarray, lanes: int) -> int:
    """CTA-wide mask of the threads in ``lanes`` of a dynamic warp."""
    m = 0
    while lanes:
        low = lanes & -lanes
        m |= 1 << int(slots[low.bit_length() - 1])
        lanes ^= low
    return m


class TbcFormation(WarpFormation):
    """TBC / TBC+ warp formation of one CTA (see module docstring)."""

    def __init__(self, sm, tb, mech: "Tbc"):
        super().__init__(sm, tb)
        self.mech = mech
        self.nwarps = tb.wave.nwarps
        valid = np.packbits(tb.wave.valid, bitorder="little").tobytes()
        self.stack = CtaStack(int.from_bytes(valid, "little"))
        self.wcu = Wcu(WcuParams(warps=self.nwarps, lanes=32), check=False)
        self.wcnt = 0            # warps of the TOS path still running
        self.sync = None         # what the arrived warps wait at: ("bra", pc, ...), ("rpc",), ("bar", pc)
        self.arrived: list = []  # warps waiting for WCnt = 0
        self.taken = 0           # CTA-wide taken / not-taken threads of the branch
        self.nottaken = 0

    # ------------------------------------------------------------------ policy
    def start(self) -> None:
        self._form()

    def step(self, w):
        d = w.dyn
        pc = d.pc
        rec = self.execute(w)
        s = rec.slot
        op = s.inst.opcode
        if op == "bra":
            uncond = s.inst.guard is None
            if uncond and not self.mech.stall_unconditional:
                d.pc = s.target          # TBC+: no CTA barrier on a branch that cannot diverge
                self._check_rpc(w)
            else:
                taken = rec.taken & d.mask
                self.taken |= _cta_threads(d.slots, taken)
                self.nottaken |= _cta_threads(d.slots, d.mask & ~taken)
                d.pc = pc + 8
                self._arrive(w, ("bra", pc, s.target, pc + 8, s.rpc))
        elif op in ("exit", "ret"):
            if rec.exited:
                self.stack.exit_threads(_cta_threads(d.slots, rec.exited))
                d.mask &= ~rec.exited
            d.pc = pc + 8
            if d.mask == 0:
                self._leave(w)
            else:
                self._check_rpc(w)
        elif rec.at_barrier:
            d.pc = pc + 8
            self._arrive(w, ("bar", pc))
        else:
            d.pc = pc + 8
            self._check_rpc(w)
        return rec

    # ------------------------------------------------------------------ WCnt
    def _check_rpc(self, w) -> None:
        if w.dyn.pc == self.stack.tos.rpc:
            self._arrive(w, ("rpc",))

    def _arrive(self, w, kind: tuple) -> None:
        if self.sync is None:
            self.sync = kind
        elif self.sync[:2] != kind[:2]:
            raise SimtlabError(
                f"TBC: warps of one path of thread block {self.tb.tb_id} reached different "
                f"synchronisation points ({self.sync[:2]} and {kind[:2]}); the kernel's control "
                "flow is not structured")
        w.hold = True
        self.arrived.append(w)
        self.wcnt -= 1
        if self.wcnt == 0:
            self._resolve()

    def _leave(self, w) -> None:
        self.idle(w)
        self.wcnt -= 1
        if self.wcnt == 0:
            self._resolve()

    def _resolve(self) -> None:
        kind, self.sync = self.sync, None
        arrived, self.arrived = self.arrived, []
        st = self.stack
        stats = self.sm.stats
        if kind is not None and kind[0] == "bar":
            if st.tos.mask != st.entries[0].mask:
                inst = self.sm.launch.program.slots[kind[1] >> 3].inst
                raise PTXError("TBC: bar.sync inside divergent code (not every live thread of "
                               "the thread block is on the barrier's path)", inst.loc, inst.text)
            if kind[1] + 8 != st.tos.rpc:
                self.wcnt = len(arrived)
                for x in arrived:
                    x.hold = False
                self.sm.wake_schedulers()
                return
            kind = ("rpc",)
        if kind is not None and kind[0] == "bra":
            _, _, target, fall, rpc = kind
            stats.count_mechanism("tbc.branch_syncs")
            if st.branch(self.taken, self.nottaken, target, fall, rpc):
                stats.count_mechanism("tbc.divergent_branches")
            self.taken = self.nottaken = 0
        elif kind is not None:   # every warp reached the RPC: the path is done
            st.tos.pc = st.tos.rpc
        st.reconverge()
        if st.empty:
            self.finish()
            return
        self._form()

    def _form(self) -> None:
        """Compact the TOS path's threads into warps (WCU) and give them warp slots."""
        top = self.stack.tos
        masks = [(top.mask >> (32 * k)) & LANE_MASK for k in range(self.nwarps)]
        res = self.wcu.compact(masks, (1 << self.nwarps) - 1)
        stats = self.sm.stats
        stats.count_mechanism("tbc.compactions")
        stats.count_mechanism("tbc.warps_before", sum(1 for m in masks if m))
        stats.count_mechanism("tbc.warps_formed", len(res.warps))
        slots_free = [x for x in self.tb.warps if not x.done]
        for k, x in enumerate(slots_free):
            if k < len(res.warps):
                slots = LANE_IDS.copy()
                for lane, src in enumerate(res.src[k]):
                    if src is not None:
                        slots[lane] = src * 32 + lane
                self.assign(x, slots, res.warps[k], top.pc)
            else:
                self.idle(x)
        self.wcnt = len(res.warps)
        self.sm.wake_schedulers()


class Tbc(Mechanism):
    """TBC (``stall_unconditional=True``) or TBC+ (False): every CTA's warps are formed by
    :class:`TbcFormation`."""

    def __init__(self, stall_unconditional: bool = True):
        self.stall_unconditional = stall_unconditional

    def form_warps(self, sm, tb):
        return TbcFormation(sm, tb, self)


def make_tbc(config) -> Tbc:
    return Tbc(stall_unconditional=True)


def make_tbc_plus(config) -> Tbc:
    return Tbc(stall_unconditional=False)
