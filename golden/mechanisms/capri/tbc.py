"""Thread block compaction (TBC, TBC+ and CAPRI's base) in the timing model (seed 004 §2.2; Fung &
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
* at a branch the whole CTA took one way the TOS does not change (§2.2: entries are pushed,
  and the WCU's warps used, only where a branch diverged), so the warps that wait there
  keep their slots, threads and I-buffers and go on as they are (``keep_warps``, the
  default since 2026-12-07; ``tbc:keep=false`` / ``capri:keep=false`` re-form the CTA
  after every branch, our earlier model). The WCU's output for an unchanged mask would be
  the same warps, so keeping them is the same formation without the re-formation costs;
* ``bar.sync`` waits until every warp of the path arrived (the path must hold every live
  thread of the CTA, else the kernel has a barrier in divergent code: an error).

The per-warp decision at a conditional branch is the mechanism's (:meth:`Tbc.decide`):
TBC and TBC+ always stall; CAPRI (:mod:`golden.mechanisms.capri.mechanism`) may
*bypass*: the warp goes on with its own threads into the path it takes (UMask bit 0),
runs at most one basic block ahead (at that path's next branch it waits, its threads
*parked* and its warp slot free, until the path is the TOS), and when the path becomes
the TOS only its other threads are compacted. At its path's RPC (``join_single_path``,
CAPRI's default) it waits keeping its slot until the branch resolves: if every thread of
the CTA took its path, the branch was non-divergent for the CTA, the path simply continues
the TOS (no entry is pushed, nothing is re-formed) and the warp goes on past the RPC; else
it is parked there like the others. Without ``join_single_path`` (``capri:join=false``,
the model before 2026-11-28) such a path was pushed and the whole CTA re-formed at its
RPC. A warp that arrives at a branch or a reconverging RPC gives up its slot; formed
warps wait for a free slot (counted in WCnt), and warps held at an RPC give theirs up
when a formed warp needs one.
With ``check=True`` every thread's next PC is tracked and every formed warp is proven to
start where its threads are.

Thread-to-warp mapping and per-warp PCs are kept per warp slot (the warp scheduler's
tables in the paper). Simplifications (stated in the report): the WCU adds no latency
beyond the branch (new warps refetch, so they pay the I-cache and decode again); pending
register writes are tracked per thread (:class:`~golden.timing.dynamic_warps.ThreadScoreboard`).
Compaction order within a lane is the lowest static warp first (the priority encoders).

Cost ablations of warp re-formation (issue 67 item 2; all off by default, which is the model
above; each leaves kernel outputs bit-identical, since threads always run their own code):

* ``compact=false`` -- the WCU's priority encoders are replaced by the *static grouping*:
  the threads of a path are formed into one warp per static warp that has a thread on it
  (the warps WPDOM would run), so the CTA-wide barrier and the re-formation are paid but
  compaction gains nothing and shuffles no thread (no memory divergence from compaction);
* ``refetch=false`` -- a formed warp starts with its I-buffer already filled at its
  path's PC, ready at once (no I-cache access, no fetch slot): re-formation costs the
  front end nothing (CAPRI §2 and Fung & Aamodt describe the WCU handing new masks and
  PCs to the warp scheduler and name no refetch; our default makes a formed warp fetch
  like a warp after a taken branch);
* ``breakdown=true`` -- counts what re-formation costs (no timing change):
  ``tbc.slot_releases`` (warps that gave up their slot and threads at a branch or RPC),
  ``tbc.ibuf_flushed`` (instructions those warps' I-buffers held and lost),
  ``tbc.formed_assigned`` (formed warps given a slot: each starts with an empty I-buffer
  unless ``refetch=false``), ``tbc.slot_wait_cycles`` (cycles formed warps waited for a
  free slot), ``tbc.first_issue_cycles`` (cycles from a formed warp's assignment to its
  first issue: the refetch bubble plus scheduling). The CTA-wide barrier wait is
  ``tbc.branch_wait_cycles`` (always counted).
"""

from __future__ import annotations

import numpy as np

from golden.errors import PTXError, SimtlabError
from golden.mechanisms.claims import TB_DISPATCH, WARP_FORMATION
from golden.simt.program import NO_RECONVERGENCE
from golden.structures.capri.wcu import Wcu, WcuParams
from golden.timing.dynamic_warps import LANE_IDS, WarpFormation, lane_threads
from golden.timing.hooks import Mechanism

LANE_MASK = 0xFFFFFFFF


class CtaEntry:
    """One entry of a CTA's reconvergence stack (a *path*): its next PC, its RPC, the
    CTA-wide mask of its threads (bit ``t`` = thread slot ``t`` of the CTA), and its WCnt
    bookkeeping:

    * ``wcnt`` -- warps on the path that have not reached its synchronisation point;
    * ``sync`` -- what the arrived warps wait at; ``arrived`` -- warps waiting at a
      barrier (they keep their warp slots); ``parked`` -- threads waiting at a branch or
      the RPC (their warps gave up their slots);
    * ``attached`` -- warps running on the path: formed for it, or *bypassed* into it
      at the branch that created it (CAPRI, UMask bit 0: they keep their threads);
    * ``pieces`` -- bypassed parts of divergent warps, ``(slots, lanes)``, that start when
      the path becomes the TOS (a bypassing warp runs its taken part first, as WPDOM);
    * ``children`` -- the (not-taken, taken) paths the branch at ``sync`` is filling;
    * ``contrib`` -- warps that brought threads into the path (the adequacy evaluator's
      active warps);
    * ``merge`` -- the path starts at its parent's RPC: at the branch's resolution its
      threads and warps join the parent (they reconverge there);
    * ``held`` -- run-ahead warps waiting at the path's RPC *with* their warp slots, before
      the branch that created the path is resolved (``join_single_path``): if every thread
      of the CTA took this path they go on, else they give up their slots (are parked).
    * ``kept`` -- warps waiting at the path's branch *with* their warp slots and their
      threads (``keep_warps``, the paper's TBC): if the CTA takes one way they go on as
      they are; if it diverges they give their threads to the WCU;
    * ``waits`` -- the cycle each warp arrived at the path's branch (the CTA-wide barrier
      wait, counter ``tbc.branch_wait_cycles``).
    """

    __slots__ = ("pc", "rpc", "mask", "merge", "wcnt", "arrived", "sync", "attached",
                 "pieces", "children", "contrib", "parked", "held", "kept", "waits")

    def __init__(self, pc: int, rpc: int, mask: int, merge: bool = False):
        self.pc, self.rpc, self.mask, self.merge = pc, rpc, mask, merge
        self.wcnt = 0
        self.arrived: list = []
        self.sync = None
        self.attached: list = []
        self.pieces: list = []
        self.children = None
        self.contrib = 0
        self.parked = 0
        self.held: list = []
        self.kept: list = []
        self.waits: list = []


class CtaStack:
    """The per-CTA reconvergence stack of TBC (entries :class:`CtaEntry`, TOS last)."""

    def __init__(self, live: int):
        self.entries = [CtaEntry(0, NO_RECONVERGENCE, live)]

    @property
    def tos(self) -> CtaEntry:
        return self.entries[-1]

    @property
    def empty(self) -> bool:
        return not self.entries

    def open_branch(self, x: CtaEntry, target: int, fallthrough: int, rpc: int) -> tuple:
        """The (not-taken, taken) paths of the branch that path ``x``'s warps execute,
        created by the first warp (§2.2: the first warp to diverge pushes the entries;
        they become the TOS only at WCnt = 0). A path that starts at the branch's RPC
        belongs to ``x`` itself after the branch (``merge``; its RPC is ``x``'s)."""
        if x.children is None:
            x.children = tuple(CtaEntry(pc, x.rpc if pc == rpc else rpc, 0, merge=pc == rpc)
                               for pc in (fallthrough, target))
        return x.children

    def resolve_branch(self, x: CtaEntry, rpc: int, join: bool = False) -> bool:
        """WCnt of the TOS ``x`` reached 0 at a branch: ``x`` continues on the only path
        with threads, or (divergence) waits at the RPC with the not-taken path and then the
        taken path pushed above it. Returns True if it diverged.

        Warps that already run ahead on the only path (bypassed) stop at its RPC unless
        ``join``: then the path simply becomes ``x``'s continuation, with its running,
        parked and barrier-waiting warps, as a non-divergent branch does under PDOM, and
        warps held at its RPC go on (only threads *parked* at the RPC force the old way)."""
        children, x.children = x.children, None
        live = [c for c in children if c.mask]
        if len(live) == 1:
            c = live[0]
            ran_ahead = c.attached or c.parked or c.arrived or c.pieces
            at_rpc = c.sync is not None and c.sync[0] == "rpc"
            own_rpc = c.rpc == x.rpc     # the branch reconverges where x does
            if c.merge or not ran_ahead or (join and not c.pieces
                                              and (own_rpc or not (at_rpc and c.parked))):
                if not c.merge and at_rpc and not own_rpc:   # held warps go on past it
                    c.sync = None
                    c.wcnt += len(c.held)
                    for w in c.held:
                        w.hold = False
                    c.held = []
                x.pc = c.pc       # x goes on on the only path (a PDOM non-divergent branch)
                self._adopt(x, c)
            else:                 # warps already run ahead on it and stop at its RPC
                x.pc = rpc
                self.entries.append(c)
            return False
        x.pc = rpc
        for c in children:
            if c.merge:
                self._adopt(x, c)
            else:
                self.entries.append(c)
        return True

    @staticmethod
    def _adopt(x: CtaEntry, c: CtaEntry) -> None:
        """Path ``x`` takes over ``c``'s warps (they run in ``x`` from now on)."""
        x.wcnt += c.wcnt
        x.arrived += c.arrived
        x.parked |= c.parked
        if c.sync is not None:
            x.sync = c.sync
        x.attached += c.attached
        x.held += c.held
        x.kept += c.kept
        x.waits += c.waits
        x.pieces += c.pieces
        x.children = c.children
        if c.rpc != x.rpc and x.children is not None:
            # (join_single_path) c's open branch was filled while c had its own RPC: the
            # path of it that starts at c's RPC now starts at x's and no longer ends there
            for ch in x.children:
                if ch.merge:
                    ch.rpc = x.rpc
                    if ch.sync is not None and ch.sync[0] == "rpc":
                        ch.sync, ch.parked = None, 0   # (its threads are formed at ch.pc)

    def exit_threads(self, threads: int) -> None:
        """``threads`` exited: remove them from every entry and every open branch path."""
        for e in self.entries:
            e.mask &= ~threads
            if e.children is not None:
                for c in e.children:
                    c.mask &= ~threads

    def pop_finished(self) -> list:
        """Pop paths that reached their RPC or have no thread left; return them."""
        es = self.entries
        out = []
        while es and (es[-1].pc == es[-1].rpc or es[-1].mask == 0):
            e = es.pop()
            if e.wcnt or e.attached:
                raise SimtlabError(f"TBC: the path at pc 0x{e.pc:x} finished with "
                                   f"{e.wcnt} warp(s) still running on it")
            out.append(e)
        return out


def _cta_threads(slots: np.ndarray, lanes: int) -> int:
    """CTA-wide mask of the threads in ``lanes`` of a dynamic warp."""
    m = 0
    for _, t in lane_threads(slots, lanes):
        m |= 1 << t
    return m


def warp_masks(cta_mask: int, nwarps: int) -> list:
    """A CTA-wide thread mask as the lane masks of its ``nwarps`` static warps (the WCU's
    ``mask`` input, warp order)."""
    return [(cta_mask >> (32 * k)) & LANE_MASK for k in range(nwarps)]


#: what a warp does at a branch (:meth:`CompactionFormation.decide`)
STALL, BYPASS, PASS = "stall", "bypass", "pass"


class CompactionFormation(WarpFormation):
    """Warp formation of one CTA by thread block compaction (see module docstring); the
    per-branch decision is the mechanism's (:meth:`Tbc.decide`)."""

    def __init__(self, sm, tb, mech: "Tbc"):
        super().__init__(sm, tb)
        self.mech = mech
        self.nwarps = tb.wave.nwarps
        valid = np.packbits(tb.wave.valid, bitorder="little").tobytes()
        self.stack = CtaStack(int.from_bytes(valid, "little"))
        wp = WcuParams(warps=self.nwarps, lanes=32)
        self.wcu = Wcu(wp, check=False, recorder=mech.recorder("capri_wcu", sm.id, wp))
        self.entry_of: dict = {}     # warp slot -> the path it runs on
        self.free = list(tb.warps)   # warp slots without threads
        #: check mode: every thread's next PC, to prove warps start where their threads are
        self.tpc = np.zeros(self.nwarps * 32, dtype=np.int64) if mech.check else None
        self.waiting: list = []      # formed warps waiting for a warp slot
        #: breakdown mode: warp slot -> cycle it was given formed threads (first-issue delay)
        self.formed_at: dict | None = {} if mech.breakdown else None

    # ------------------------------------------------------------------ policy
    def start(self) -> None:
        for x in self.tb.warps:
            self.idle(x)
        self._activate(self.stack.tos)

    def step(self, w):
        d = w.dyn
        pc = d.pc
        x = self.entry_of[w]
        if self.formed_at is not None:
            t = self.formed_at.pop(w, None)
            if t is not None:
                self.sm.stats.count_mechanism("tbc.first_issue_cycles", self.sm.now - t)
        rec = self.execute(w)
        s = rec.slot
        op = s.inst.opcode
        if self.tpc is not None:
            self._track(d, pc, rec)
        if op == "bra":
            taken = rec.taken & d.mask
            nottaken = d.mask & ~taken
            if s.inst.guard is None and self.mech.pass_unconditional:
                act = PASS      # TBC+ / CAPRI: no CTA barrier where no warp can diverge
            elif x is not self.stack.tos:
                act = STALL     # a bypassed warp runs at most one basic block ahead
            else:
                act = self.mech.decide(self.sm, pc, taken, nottaken, s.inst)
            if act == PASS:
                d.pc = s.target
                self._check_rpc(w, x)
            else:
                n_path, t_path = self.stack.open_branch(x, s.target, pc + 8, s.rpc)
                for c, lanes in ((n_path, nottaken), (t_path, taken)):
                    if lanes:
                        c.mask |= _cta_threads(d.slots, lanes)
                        c.contrib += 1
                if act == STALL:
                    d.pc = pc + 8
                    self._arrive(w, x, ("bra", pc, s.rpc))
                else:
                    self._sync_at(x, ("bra", pc, s.rpc))   # it passed the path's branch
                    self._bypass(w, x, n_path, t_path, taken, nottaken)
        elif op in ("exit", "ret"):
            if rec.exited:
                self.stack.exit_threads(_cta_threads(d.slots, rec.exited))
                d.mask &= ~rec.exited
            d.pc = pc + 8
            if d.mask == 0:
                self._leave(w, x)
            else:
                self._check_rpc(w, x)
        elif rec.at_barrier:
            d.pc = pc + 8
            self._arrive(w, x, ("bar", pc))
        else:
            d.pc = pc + 8
            self._check_rpc(w, x)
        return rec

    # ------------------------------------------------------------------ WCnt
    def _track(self, d, pc: int, rec) -> None:
        """Check mode: the next PC of every thread of ``d`` after its step at ``pc``."""
        is_bra = rec.slot.inst.opcode == "bra"
        for low, t in lane_threads(d.slots, d.mask):
            if self.tpc[t] != pc:
                raise SimtlabError(f"TBC check: thread {t} of thread block {self.tb.tb_id} "
                                   f"runs pc 0x{pc:x} but its next pc is 0x{self.tpc[t]:x}")
            self.tpc[t] = rec.slot.target if is_bra and rec.taken & low else pc + 8

    def _check_start(self, slots, lanes: int, pc: int) -> None:
        for _, t in lane_threads(slots, lanes):
            if self.tpc[t] != pc:
                raise SimtlabError(f"TBC check: a warp formed at pc 0x{pc:x} holds thread {t} "
                                   f"of thread block {self.tb.tb_id}, whose next pc is "
                                   f"0x{self.tpc[t]:x}")

    def _check_rpc(self, w, x) -> None:
        if w.dyn.pc == x.rpc:
            if self.mech.join_single_path and self._running_ahead(x):
                self._hold_at_rpc(w, x)
            else:
                self._arrive(w, x, ("rpc",))

    def _running_ahead(self, x) -> bool:
        """``x`` is a path of the TOS's open branch (warps bypassed into it; the branch is
        not resolved yet) that neither starts nor ends at the TOS's RPC."""
        tos = self.stack.tos
        ch = tos.children
        return not x.merge and x.rpc != tos.rpc and ch is not None and (x is ch[0] or x is ch[1])

    def _hold_at_rpc(self, w, x) -> None:
        """Run-ahead warp ``w`` reached its path's RPC before the branch is resolved: it
        waits there keeping its warp slot (counted as arrived) until the resolution says
        whether the RPC is a reconvergence point at all (``join_single_path``)."""
        self._sync_at(x, ("rpc",))
        x.wcnt -= 1
        w.hold = True
        x.held.append(w)
        self.sm.stats.count_mechanism("tbc.rpc_holds")

    def _park_held(self, x) -> None:
        """The warps held at path ``x``'s RPC give up their slots: their threads are parked
        there (the RPC is a reconvergence point after all, or a formed warp needs a slot)."""
        held, x.held = x.held, []
        self.sm.stats.count_mechanism("tbc.rpc_holds_parked", len(held))
        for w in held:
            x.parked |= _cta_threads(w.dyn.slots, w.dyn.mask)
            self._release(w)

    def _park_kept(self, x) -> None:
        """The warps kept at run-ahead path ``x``'s branch give up their slots to formed
        warps: their threads are parked there (as without ``keep_warps``)."""
        kept, x.kept = x.kept, []
        self.sm.stats.count_mechanism("tbc.kept_parked", len(kept))
        for w in kept:
            x.parked |= _cta_threads(w.dyn.slots, w.dyn.mask)
            self._release(w)

    def _sync_at(self, x, kind: tuple) -> None:
        """A warp of path ``x`` reached synchronisation point ``kind``; every warp of a
        path reaches the same one (straight-line code from the path's PC)."""
        if x.sync is None:
            x.sync = kind
        elif x.sync[:2] != kind[:2]:
            raise SimtlabError(
                f"TBC: warps of one path of thread block {self.tb.tb_id} reached different "
                f"synchronisation points ({x.sync[:2]} and {kind[:2]}); the kernel's control "
                "flow is not structured")

    def _arrive(self, w, x, kind: tuple) -> None:
        """``w`` reached path ``x``'s synchronisation point. At a barrier it keeps its
        warp slot (it goes on as it is); at a branch or the RPC its threads are *parked*
        (they wait as part of the path's mask) and the slot is free for other warps."""
        self._sync_at(x, kind)
        x.wcnt -= 1
        if kind[0] == "bra":
            x.waits.append(self.sm.now)
        if kind[0] == "bar":
            w.hold = True
            x.arrived.append(w)
        elif kind[0] == "bra" and self.mech.keep_warps and not self.waiting:
            # the paper's TBC: the warp waits at the branch as it is (slot, threads and
            # I-buffer); it is re-formed only if the CTA diverges there
            w.hold = True
            x.kept.append(w)
        else:
            x.parked |= _cta_threads(w.dyn.slots, w.dyn.mask)
            self._release(w)
        self._maybe_resolve(x)

    def _leave(self, w, x) -> None:
        self._release(w)
        x.wcnt -= 1
        self._maybe_resolve(x)

    def _bypass(self, w, x, n_path, t_path, taken, nottaken) -> None:
        """``w`` goes on past the branch with its own threads (UMask bit 0)."""
        d = w.dyn
        x.wcnt -= 1
        _detach(x, w)
        self.sm.stats.count_mechanism("tbc.bypasses")
        if taken and nottaken:
            # it runs the path its own PDOM stack would run first (the taken one, unless
            # that starts at the RPC); the other part runs when its path becomes the TOS,
            # or waits at the RPC (threads of a path that starts there)
            first, later, lanes, rest = ((n_path, t_path, nottaken, taken) if t_path.merge
                                         else (t_path, n_path, taken, nottaken))
            if not later.merge:   # (threads of a path at the RPC are in x's mask already)
                later.pieces.append((d.slots.copy(), rest))
            d.mask = lanes
            c = first
        else:
            c = t_path if taken else n_path
        d.pc = c.pc
        c.attached.append(w)
        c.wcnt += 1
        self.entry_of[w] = c
        self.sm.wake_schedulers()
        if d.pc == c.rpc:   # it bypassed to where its path reconverges: it waits there
            self._arrive(w, c, ("rpc",))
        self._maybe_resolve(x)

    def _maybe_resolve(self, x) -> None:
        if x.wcnt == 0 and self.stack.entries and x is self.stack.tos:
            self._resolve(x)

    def _resolve(self, x) -> None:
        st = self.stack
        stats = self.sm.stats
        kind, x.sync = x.sync, None
        arrived, x.arrived = x.arrived, []
        if kind is not None and kind[0] == "bar":
            if x.mask != st.entries[0].mask:
                inst = self.sm.launch.program.slots[kind[1] >> 3].inst
                raise PTXError("TBC: bar.sync inside divergent code (not every live thread of "
                               "the thread block is on the barrier's path)", inst.loc, inst.text)
            x.wcnt = len(arrived)
            for w in arrived:
                w.hold = False
            self.sm.wake_schedulers()
            for w in list(arrived):
                if w.dyn.pc == x.rpc:
                    self._arrive(w, x, ("rpc",))
            return
        for w in arrived:             # (barrier waiters adopted from a path that joined x)
            self._release(w)
        x.parked = 0                  # the waiting threads are compacted again
        kept, x.kept = x.kept, []
        if x.waits:
            stats.count_mechanism("tbc.branch_wait_cycles",
                                  sum(self.sm.now - t for t in x.waits))
            x.waits = []
        if kind is not None and kind[0] == "bra":
            stats.count_mechanism("tbc.branch_syncs")
            children = x.children
            top = children[1] if children[1].mask else children[0]
            if st.resolve_branch(x, kind[2], join=self.mech.join_single_path):
                stats.count_mechanism("tbc.divergent_branches")
                top = st.tos
            for c in (*children, x):
                if c.held:    # pushed: its RPC is a reconvergence point after all
                    self._park_held(c)
            for w, e in self.entry_of.items():   # warps of paths that joined x run in x
                if (e is children[0] or e is children[1]) and not any(e is f for f in st.entries):
                    self.entry_of[w] = x
            self.mech.evaluated(self.sm, kind[1], top, self.wcu)
        elif kind is not None:        # every warp reached the RPC: the path is done
            x.pc = x.rpc
        elif x.mask:
            raise SimtlabError(f"TBC: path at pc 0x{x.pc:x} of thread block {self.tb.tb_id} "
                               "has threads but no running warp and no synchronisation point")
        for w in kept:
            _detach(x, w)
        st.pop_finished()
        if kept:
            if not st.empty and st.tos is x:   # the CTA went one way: they go on as they are
                stats.count_mechanism("tbc.warps_kept", len(kept))
                for w in kept:
                    self._resume(w, x)
            else:                              # it diverged: their threads go to the WCU
                for w in kept:
                    self._release(w)
        if st.empty:
            self.finish()
            return
        self._activate(st.tos)

    def _resume(self, w, x) -> None:
        """Kept warp ``w`` goes on at path ``x``'s PC with its threads, slot and I-buffer
        (re-steered like any warp after a taken branch)."""
        w.dyn.pc = x.pc
        w.hold = False
        x.wcnt += 1
        x.attached.append(w)
        self.entry_of[w] = x
        ib = w.ibuf
        if ib.size and ib.head_pc != x.pc:
            ib.flush()
        if not ib.size:
            w.fetch_pc = x.pc
        w.sched.dirty = True
        self.sm.wake_schedulers()

    def _release(self, w) -> None:
        """Warp slot ``w`` gives up its threads."""
        e = self.entry_of.pop(w, None)
        if e is not None:
            _detach(e, w)
        if self.formed_at is not None and not w.done and w.dyn.mask:
            self.sm.stats.count_mechanism("tbc.slot_releases")
            self.sm.stats.count_mechanism("tbc.ibuf_flushed", w.ibuf.size)
        if not w.done:
            self.idle(w)
            if w not in self.free:
                self.free.append(w)
                self._start_waiting()

    def _activate(self, x) -> None:
        """Path ``x`` became the TOS: start its bypassed pieces and compact the rest of its
        threads (the UMask warps) with the WCU; WCnt counts them. Threads of warps that
        already run ahead in ``x`` or wait at its synchronisation point are not compacted."""
        covered = x.parked
        for w in x.attached:
            covered |= _cta_threads(w.dyn.slots, w.dyn.mask)
        for w in x.arrived:
            covered |= _cta_threads(w.dyn.slots, w.dyn.mask)
        for slots, lanes in x.pieces:
            covered |= _cta_threads(slots, lanes)
        rest = x.mask & ~covered
        masks = warp_masks(rest, self.nwarps)
        stats = self.sm.stats
        new = []
        if rest and not self.mech.compact:
            # ablation: one warp per static warp with threads on the path (no compaction)
            new = [(LANE_IDS + 32 * k, m) for k, m in enumerate(masks) if m]
            stats.count_mechanism("tbc.compactions")
            stats.count_mechanism("tbc.warps_before", len(new))
            stats.count_mechanism("tbc.warps_formed", len(new))
        elif rest:
            res = self.wcu.compact(masks, (1 << self.nwarps) - 1)
            stats.count_mechanism("tbc.compactions")
            stats.count_mechanism("tbc.warps_before", sum(1 for m in masks if m))
            stats.count_mechanism("tbc.warps_formed", len(res.warps))
            for k, lanes in enumerate(res.warps):
                slots = LANE_IDS.copy()
                for lane, src in enumerate(res.src[k]):
                    if src is not None:
                        slots[lane] = src * 32 + lane
                new.append((slots, lanes))
        new += [(sl, ln) for sl, ln in x.pieces if _live_lanes(sl, ln, x.mask)]
        x.pieces = []
        x.wcnt += len(new)
        now = self.sm.now
        self.waiting += [(slots, lanes, x, now) for slots, lanes in new]
        self._start_waiting()
        self.sm.wake_schedulers()
        self._maybe_resolve(x)

    def _start_waiting(self) -> None:
        """Give formed warps warp slots (lowest slot first); a warp waits for a slot while
        running-ahead warps hold them all (it is counted in WCnt meanwhile)."""
        if self.waiting and not self.free:
            # warps held at a run-ahead path's RPC give up their slots to formed warps
            tos = self.stack.tos if self.stack.entries else None
            for e in [*self.stack.entries, *(tos.children or ())] if tos else ():
                if e.held:
                    self._park_held(e)
                    return    # (_release started the waiting warps)
                if e.kept and e is not tos:
                    self._park_kept(e)
                    return
        if not self.free or not self.waiting:
            return
        self.free.sort(key=lambda w: w.widx)
        while self.free and self.waiting:
            slots, lanes, x, since = self.waiting.pop(0)
            w = self.free.pop(0)
            if self.tpc is not None:
                self._check_start(slots, _live_lanes(slots, lanes, x.mask), x.pc)
            self.assign(w, slots, _live_lanes(slots, lanes, x.mask), x.pc)
            if not self.mech.refetch:
                self._prefill(w, x.pc)
            if self.formed_at is not None:
                stats = self.sm.stats
                stats.count_mechanism("tbc.formed_assigned")
                stats.count_mechanism("tbc.slot_wait_cycles", self.sm.now - since)
                self.formed_at[w] = self.sm.now
            self.entry_of[w] = x
            x.attached.append(w)
            if not w.dyn.mask:       # every thread of it exited meanwhile
                self._leave(w, x)


    def _prefill(self, w, pc: int) -> None:
        """Ablation ``refetch=false``: formed warp ``w``'s I-buffer holds the instructions
        at ``pc`` on, issuable now (no I-cache access and no fetch slot spent)."""
        ib = w.ibuf
        now = self.sm.now
        end = self.sm.n_prog
        while ib.size < ib.capacity and pc < end:
            ib.push(pc, now)
            pc += 8
        w.fetch_pc = pc
        w.sched.dirty = True


def _detach(x, w) -> None:
    """Remove warp slot ``w`` from path ``x``'s running warps."""
    for i, a in enumerate(x.attached):
        if a is w:
            del x.attached[i]
            return


def _live_lanes(slots: np.ndarray, lanes: int, mask: int) -> int:
    """The lanes of ``lanes`` whose thread is still in CTA mask ``mask`` (not exited)."""
    out = 0
    for low, t in lane_threads(slots, lanes):
        if mask >> t & 1:
            out |= low
    return out


class Tbc(Mechanism):
    """TBC (``pass_unconditional=False``: every branch is a CTA barrier) or TBC+ (True:
    unconditional branches are not): every CTA's warps are formed by
    :class:`CompactionFormation`; every warp stalls at a conditional branch."""
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False
    #: forms every CTA's warps by compaction (CAPRI inherits this)
    claims = frozenset({WARP_FORMATION})
    #: compacts the threads of whole CTAs (no partial-TB dispatch, no early warp release)
    assumes = frozenset({TB_DISPATCH})

    #: sampled timing (whole-tbs): CTA compaction forms each TB's warps from that TB's threads only
    sampling = "whole-tbs"
    sampling_reason = "CTA compaction forms each TB's warps from that TB's threads only"

    def __init__(self, pass_unconditional: bool = False, check: bool = False,
                 recorder_factory=None, join_single_path: bool = False,
                 keep_warps: bool = True, compact: bool = True, refetch: bool = True,
                 breakdown: bool = False):
        self.pass_unconditional = pass_unconditional
        #: ablation (module docstring): False forms one warp per static warp with threads
        #: on the path instead of compacting (barrier and re-formation without compaction)
        self.compact = compact
        #: ablation: False gives formed warps a filled I-buffer at their PC (no refetch)
        self.refetch = refetch
        #: count the re-formation cost counters (``tbc.slot_releases`` ...; no timing change)
        self.breakdown = breakdown
        #: warps that arrive at a branch wait there keeping their slots, threads and
        #: I-buffers, and go on as they are when the whole CTA took one way (seed 004 §2.2:
        #: the TOS changes, and the WCU forms new warps, only where the branch diverged);
        #: False (``tbc:keep=false``, our model before 2026-12-07): every arriving warp
        #: gives up its slot and the WCU re-forms the CTA after every branch
        self.keep_warps = keep_warps
        #: bypassed warps that reach their path's RPC before the branch is resolved keep
        #: their slots, and go on if the whole CTA took that path (CAPRI: non-divergent
        #: warps continue "with their static warp structure"); False: they always park
        #: there and the CTA is re-formed at the RPC. Only CAPRI's bypassed warps run ahead.
        self.join_single_path = join_single_path
        #: check mode: track every thread's next PC and verify each formed warp against it
        self.check = check
        #: ``factory(name, sm_id, params)`` -> trace recorder or None (the contract of
        #: :mod:`golden.mechanisms.capri.trace`); asked once per structure name and core,
        #: for the first such structure built there
        self.recorder_factory = recorder_factory
        self._asked: set = set()

    def recorder(self, name: str, sm_id: int, params):
        """The trace recorder of the first ``name`` structure built on core ``sm_id``."""
        if self.recorder_factory is None or (name, sm_id) in self._asked:
            return None
        self._asked.add((name, sm_id))
        return self.recorder_factory(name, sm_id, params)

    def form_warps(self, sm, tb):
        return CompactionFormation(sm, tb, self)

    def decide(self, sm, pc: int, taken: int, nottaken: int, inst) -> str:
        """What a warp of the TOS path does at the branch at ``pc``: STALL (wait for
        compaction) or BYPASS (go on with its own threads); PASS for an unconditional
        branch that does not synchronise."""
        return STALL

    def evaluated(self, sm, pc: int, path: CtaEntry, wcu: Wcu) -> None:
        """WCnt reached 0 at the branch at ``pc``; ``path`` is the new TOS path."""


def make_tbc(config, check: bool = False, keep: bool = True, compact: bool = True,
             refetch: bool = True, breakdown: bool = False) -> Tbc:
    """TBC; ``keep=false``: every branch re-forms the CTA (see :attr:`Tbc.keep_warps`);
    ``compact``, ``refetch``, ``breakdown``: the re-formation cost ablations and counters
    (module docstring)."""
    return Tbc(pass_unconditional=False, check=check, keep_warps=keep, compact=compact,
               refetch=refetch, breakdown=breakdown)


def make_tbc_plus(config, check: bool = False, keep: bool = True, compact: bool = True,
                  refetch: bool = True, breakdown: bool = False) -> Tbc:
    """TBC+; ``keep=false``: every branch re-forms the CTA (see :attr:`Tbc.keep_warps`);
    ``compact``, ``refetch``, ``breakdown``: as :func:`make_tbc`."""
    return Tbc(pass_unconditional=True, check=check, keep_warps=keep, compact=compact,
               refetch=refetch, breakdown=breakdown)
