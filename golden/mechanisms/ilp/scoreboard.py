"""The many-thread-aware scoreboard in the timing model (seed 002 ch. 4, §4.4.2): mechanism
``ilp-sc``.

Each SM gets one golden :class:`golden.structures.ilp.Scoreboard` shared by its warps
(the very class the RTL is checked against), and every resident warp a
:class:`SharedTracker` (through :meth:`~golden.timing.hooks.Mechanism.make_tracker`) that
replaces the baseline's "one instruction in flight per warp" ready bit:

* **stall-on-use**: a warp waits only when a *source* matches an entry that is not
  complete (a load's: ``memory`` stall, else ``dependence``); a source matching a
  complete entry is read from the scoreboard (no RF read: ``on_operand_read`` drops it);
* **WAW**: the issuing TOS mask must cover the older definition's active mask, else the
  warp waits for its commit; issue clears the older entry's NM bit;
* **stores** issue only when the warp has nothing on the board (so they are the oldest),
  and set in-store; **loads** wait while the warp is in-store;
* **full board**: a warp with nothing on the board issues one instruction past it (its
  ready bit is cleared until that instruction's WB); a warp already on the board waits
  (``structural`` stall);
* every destination register takes one entry (a vector load with 4 destinations takes 4);
* WB writes the entry (all its active lanes at once: the timing model writes a warp's
  result in one event), then every complete head of that warp commits in order;
* instructions without a destination that are not stores (branches, barriers) clear the
  warp's ready bit until their WB, as in the baseline: without branch prediction the warp
  cannot fetch past an unresolved branch; a warp's ``exit`` waits until its entries have
  committed.

Modelling choices the chapter does not fix (stated in the README's ILP section):
several commits in one cycle per SM (the chapter commits "every cycle, every warp");
registers are numbered ``warp slot x registers of the kernel + register`` in PTX's
virtual register space, so the tag is wider than the chapter's 9 bits (PTX does not
allocate registers; SASS would); only the first three sources use the structure's three
lookup ports in a recorded trace (the model checks all of them). Data values in the
structure are the low 32 bits of each lane's result, recorded only when a trace is taken.
"""

from __future__ import annotations

import numpy as np

from golden.mechanisms.claims import DEPENDENCE_TRACKING, WARP_FORMATION
from golden.structures._check import width_of
from golden.structures.ilp import Scoreboard, ScoreboardOps, ScoreboardParams
from golden.timing.hooks import Mechanism

__all__ = ["ILPScoreboardMechanism", "SharedTracker", "make_ilp_sc"]

_DRAIN_OPS = ("exit", "ret")


def _entries_needed(dsts, is_mem: bool) -> int:
    """Scoreboard entries an instruction takes: one per destination register, one for a
    store (a memory instruction without destination), none for branches and the like."""
    if dsts:
        return len(dsts)
    return 1 if is_mem else 0


class _Board:
    """One SM's shared scoreboard and what the trackers keep beside it."""

    __slots__ = ("sb", "is_mem", "nregs", "record_values")

    def __init__(self, params: ScoreboardParams, nregs: int, recorder=None):
        # requests are built here, always in range: no per-transaction checks
        self.sb = Scoreboard(params, recorder=recorder, check=False)
        self.is_mem = [False] * params.entries
        self.nregs = nregs
        self.record_values = recorder is not None

    def wait_kind(self, slot: int) -> int:
        """Stall code while waiting for warp ``slot``'s entries: 2 if one is a memory
        access (``memory``), else 1 (``dependence``)."""
        sb = self.sb
        return 2 if any(self.is_mem[e] for e in sb.entries_of(slot)) else 1


class SharedTracker:
    """Dependence tracker of one warp on its SM's shared scoreboard (see module docstring)."""

    __slots__ = ("mech", "board", "sm", "warp", "base", "others")

    #: instructions without destination (branches, stores...) come back at their WB too
    tracks_all = True

    def __init__(self, mech, board: _Board, sm, warp):
        self.mech = mech
        self.board = board
        self.sm = sm
        self.warp = warp
        self.base = warp.slot * board.nregs
        self.others: list = []   # is_mem of in-flight instructions outside the board

    # ---------------------------------------------------------------- queries
    def blocked(self, d) -> int:
        if self.others:
            return 2 if self.others[0] else 1
        b = self.board
        sb = b.sb
        slot = self.warp.slot
        for r in d.srcs:                                   # stall-on-use
            e = sb.match(self.base + r)
            if e is not None and not sb.done[e]:
                return 2 if b.is_mem[e] else 1
        in_board = sb.in_board[slot]
        if d.opcode in _DRAIN_OPS and in_board:
            return b.wait_kind(slot)
        if d.is_mem:
            if not d.dsts and in_board:                    # a store must be the oldest
                return b.wait_kind(slot)
            if d.dsts and sb.in_store[slot]:               # no load while a store is pending
                return 2
        if d.dsts:                                         # WAW: the mask must cover the older one
            mask = None
            for r in d.dsts:
                e = sb.match(self.base + r)
                if e is not None:
                    if mask is None:
                        w = self.warp
                        mask = self.sm.launch.next_mask(w.wave, w.widx)
                    if sb.active[e] & ~mask:
                        return 1
        if _entries_needed(d.dsts, d.is_mem) > sb.free_entries and in_board:
            return 3                                       # board full: structural stall
        return 0

    def empty(self) -> bool:
        return not self.others and not self.board.sb.in_board[self.warp.slot]

    # ---------------------------------------------------------------- issue / WB
    def reserve(self, regs, is_mem: bool, mask: int = (1 << 32) - 1):
        b = self.board
        sb = b.sb
        st = self.sm.stats
        slot = self.warp.slot
        need = _entries_needed(regs, is_mem)
        if need == 0 or need > sb.free_entries:
            # no destination (branch...), or the board is full and the warp is not on it:
            # the ready bit is cleared until this instruction's WB
            if need:
                st.count_mechanism("ilp.bypass_issues")
            self.others.append(bool(is_mem))
            return ("other",)
        store = not regs
        if b.record_values:
            # a recorded trace: the issue cycle with its dependence lookups, as the RTL sees it
            d_srcs = self.mech.issuing_srcs
            src = [self.base + r for r in d_srcs[:3]]
        entries = []
        for k in range(need):
            reg = 0 if store else self.base + regs[k]
            old = None if store else sb.match(reg)
            if b.record_values:
                out = sb.step(ScoreboardOps(
                    src_en=(1 << len(src)) - 1 if k == 0 else 0,
                    src0=src[0] if src and k == 0 else 0,
                    src1=src[1] if len(src) > 1 and k == 0 else 0,
                    src2=src[2] if len(src) > 2 and k == 0 else 0,
                    dst=reg, dst_mask=mask, al_en=1, al_warp=slot, al_reg=reg, al_mask=mask,
                    al_store=int(store)))
                e = out.al_idx if out.al_ok else None
            else:  # the same state change without the lookups nobody reads
                e = sb.allocate(slot, reg, mask, int(store))
            if e is None:  # cannot happen after blocked() == 0; keep the model honest
                raise RuntimeError(f"ilp-sc: allocation refused on SM {self.sm.id} "
                                   f"(warp slot {slot}, {sb.free_entries} free)")
            if old is not None:
                st.count_mechanism("ilp.waw_clears")
            b.is_mem[e] = bool(is_mem)
            entries.append(e)
        st.count_mechanism("ilp.allocations", need)
        if b.record_values and regs:
            self.mech.values[tuple(entries)] = self._values(regs)
        return tuple(entries)

    def _values(self, regs) -> list[int]:
        """Low 32 bits of each lane of the just-written registers, packed per register."""
        w = self.warp
        prog_keys = self.mech.reg_keys
        out = []
        for r in regs:
            v = w.wave.launch.warp_register(w.wave, w.widx, prog_keys[r])
            low = np.ascontiguousarray(v).view(np.uint8).reshape(32, -1)[:, :4].copy()
            word = int.from_bytes(low.reshape(-1).tobytes(), "little")
            out.append(word)
        return out

    def release(self, regs) -> None:
        tok = getattr(regs, "token", None)
        if tok is None or tok == ("other",):
            if self.others:
                self.others.pop(0)
            return
        b = self.board
        sb = b.sb
        values = self.mech.values.pop(tok, None) if b.record_values else None
        full = (1 << sb.params.lanes) - 1
        for k, e in enumerate(tok):
            sb.writeback(e, full, values[k] if values else 0)
        slot = self.warp.slot
        n = 0
        while sb.commit(slot):
            n += 1
        if n:
            self.sm.stats.count_mechanism("ilp.commits", n)


class ILPScoreboardMechanism(Mechanism):
    """Attach one shared scoreboard per SM (``ilp-sc``)."""

    name = "ilp"
    #: register values are read through FunctionalLaunch.warp_register (deferral may stay on)
    reads_wave_registers = False
    #: replaces the dependence tracking that gates issue, and serves operands from the
    #: scoreboard's value entries instead of the RF
    claims = frozenset({DEPENDENCE_TRACKING})
    #: dynamic warps replace every warp's tracker with their per-thread scoreboard, so
    #: under compaction the shared scoreboard would silently do nothing
    assumes = frozenset({WARP_FORMATION})

    #: sampled timing (whole-launch): the shared scoreboard of an SM is kept per (launch, SM)
    sampling = "whole-launch"
    sampling_reason = "the shared scoreboard of an SM is kept per (launch, SM)"

    def __init__(self, config, entries: int = 8, recorder_factory=None):
        self.config = config
        self.entries = entries
        self.recorder_factory = recorder_factory   # (sm_id, params) -> TraceRecorder | None
        self.boards: dict = {}
        self.values: dict = {}
        self.reg_keys: list = []
        self.issuing_srcs: tuple = ()

    def _board(self, sm) -> _Board:
        key = sm.id   # per-launch state: cleared when the launch ends (on_complete)
        b = self.boards.get(key)
        if b is None:
            keys = sorted(sm.launch.program.reg_types)
            self.reg_keys = keys
            nregs = max(1, len(keys))
            core = self.config.core
            params = ScoreboardParams(entries=self.entries, warps=core.max_warps_per_sm,
                                      lanes=core.warp_size,
                                      reg_width=width_of(core.max_warps_per_sm * nregs))
            rec = self.recorder_factory(sm.id, params) if self.recorder_factory else None
            b = self.boards[key] = _Board(params, nregs, rec)
        return b

    def make_tracker(self, sm, warp):
        return SharedTracker(self, self._board(sm), sm, warp)

    def on_issue(self, sm, warp, pc, inst):
        self.issuing_srcs = sm.decoded[pc >> 3].srcs
        return None

    def on_operand_read(self, sm, warp, pc, regs):
        t = warp.sb
        if not isinstance(t, SharedTracker):
            return regs
        sb = t.board.sb
        kept = []
        for r in regs:
            e = sb.match(t.base + r)
            if e is not None and sb.done[e]:
                sm.stats.count_mechanism("ilp.operands_from_scoreboard")
            else:
                kept.append(r)
        return kept

    def on_complete(self, stats) -> None:
        self.boards.clear()
        self.values.clear()


def make_ilp_sc(config, entries: int = 8) -> ILPScoreboardMechanism:
    """``ilp-sc``: the chapter's 8-entry many-thread-aware scoreboard
    (``ilp-sc:entries=N`` for the size sweep)."""
    if not isinstance(entries, int) or isinstance(entries, bool) or entries < 2:
        from golden.errors import ConfigError
        raise ConfigError(f"ilp-sc: entries must be an integer >= 2, not {entries!r}")
    return ILPScoreboardMechanism(config, entries=entries)
