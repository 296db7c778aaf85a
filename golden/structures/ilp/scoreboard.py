"""Reference model of the many-thread-aware scoreboard of one SM (seed 002 ch. 4, §4.4.2,
Figs. 39-40; digest: paper-facts §4.3).

What it stores
--------------
``entries`` (8) issued-but-uncommitted instructions, shared by every warp of the SM:

* tag store (a CAM): the 9-bit physical destination vector register (16 k registers / 32
  lanes = 512 vector registers; unique per warp, so no warp id is stored) and the **NM**
  bit (1 = matchable; cleared on the older entry when a younger one writes the same
  register, WAW). 8 x 10 bits;
* data store: completion flag, active mask (32), status mask (32: lanes whose result has
  been written), the result (32 lanes x 32 bits = 1,024 bits) and the next pointer
  (K = log2(entries) = 3 bits): 8 x 1,092 bits = 1,092 B;
* per warp (added to the warp-scheduler entry): head and tail pointers (K bits each),
  in-board and in-store.

The entries of one warp form a linked list from head to tail in issue order; commit is
in order from the head. A valid bit per entry (the free list) is implied by the chapter.

Per-cycle interface (shared port for port with :class:`rtl.ilp.scoreboard.Scoreboard`)
------------------------------------------------------------------------------------
Combinational outputs are computed on the start-of-cycle state:

1. dependence check (stall-on-use): sources ``src0..src2`` with enables ``src_en``
   (bit i for src i) -> ``src_hit`` (bit i: a valid entry with NM = 1 holds the register),
   ``src_done`` (bit i: that entry is complete, so the operand is read from the
   scoreboard; hit and not done = the warp is not ready) and ``srcI_idx``;
2. WAW check of a destination ``dst`` with the issuing active mask ``dst_mask`` ->
   ``dst_hit``, ``dst_idx`` and ``dst_cover`` (the issuing mask equals or is a superset of
   the older definition's active mask; otherwise the warp waits for that commit);
3. warp query ``q_warp`` -> ``q_in_board``, ``q_in_store``; ``full`` (no free entry) and
   ``valid`` (bitmap of used entries).

State changes, in this order, all from the start-of-cycle state:

4. commit ``cm_en`` of warp ``cm_warp``: if the warp is in-board and its head entry is
   complete, the entry is freed and ``cm_ok``, ``cm_idx``, ``cm_reg`` are set; ``cm_write``
   is 0 when the committed entry is the warp's store (in-store is then cleared), 1 for a
   register result (the RF write). The head moves to the entry's next, or in-board is
   cleared when it was the tail;
5. writeback ``wb_en`` to entry ``wb_idx`` of the lanes ``wb_lanes`` with ``wb_data``
   (lane i is bits 32i..32i+31): the data store is written for every lane of
   ``wb_lanes``; if the entry is in use and not committed in this cycle its status mask
   gains ``wb_lanes & active`` and the completion flag becomes
   ``(active & ~status) == 0``;
6. allocation ``al_en`` for warp ``al_warp``, register ``al_reg``, active mask
   ``al_mask``, ``al_store`` (a store: no destination, sets in-store): takes the lowest
   entry free at the start of the cycle (``al_ok``, ``al_idx``); refused (``al_ok`` = 0)
   when none is free, or for a store while the warp is in-board (a store issues only as
   the warp's oldest instruction, §4.4.2 "stores"). A register result clears the NM bit
   of the valid entry that matches ``al_reg`` (WAW) and is allocated with NM = 1; a store
   gets NM = 0. The entry is appended at the warp's tail (or becomes head and tail).
   An allocation with an empty ``al_mask`` is complete at once.

Registered outputs (the data store is a synchronous SRAM: read in one cycle, data the
next; reads return the data before the same cycle's write):

7. ``rd_en``/``rd_idx`` (operand read) -> ``rd_data`` and ``rd_lanes`` in the next cycle;
8. the entry committed in step 4 -> ``cm_data`` and ``cm_lanes`` in the next cycle.

``*_lanes`` is the entry's status mask at the read; ``*_data`` holds only those lanes
(the others read 0), so data left in the SRAM by an earlier occupant is never visible.

What the structure leaves to the SM's issue logic (the timing mechanism): a warp that
finds the board full and is not in-board may issue one instruction past the scoreboard
(ready bit cleared until its WB); a store waits until the warp is not in-board; loads
wait while the warp is in-store; a WAW issue waits unless ``dst_cover``.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.structures._check import fits, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["ScoreboardParams", "ScoreboardOps", "ScoreboardOutputs", "Scoreboard"]

STRUCT = "ilp_scoreboard"

#: Bits of one lane's value in the data store.
LANE_BITS = 32


@dataclass(frozen=True)
class ScoreboardParams:
    """Sizes of one SM's scoreboard; defaults are the chapter's (§4.4.2).

    Attributes
    ----------
    entries : int
        Scoreboard entries shared by the SM's warps (8).
    warps : int
        Warps of the SM (32: 1,024 threads per SM, Table 6).
    lanes : int
        Threads per warp (32).
    reg_width : int
        Physical vector-register number (9: 16,384 registers / 32 lanes).
    """

    entries: int = 8
    warps: int = 32
    lanes: int = 32
    reg_width: int = 9

    def __post_init__(self):
        param_int(STRUCT, "entries", self.entries, 2)
        param_int(STRUCT, "warps", self.warps, 1)
        param_int(STRUCT, "lanes", self.lanes, 1)
        param_int(STRUCT, "reg_width", self.reg_width, 1)

    @property
    def ptr_width(self) -> int:
        """K = log2(entries) (3)."""
        return width_of(self.entries)

    @property
    def warp_width(self) -> int:
        return width_of(self.warps)

    @property
    def data_width(self) -> int:
        """One vector register: lanes x 32 bits (1,024)."""
        return self.lanes * LANE_BITS

    @property
    def tag_bits(self) -> int:
        """Tag store bits per entry: register + NM (10)."""
        return self.reg_width + 1

    @property
    def data_store_bits(self) -> int:
        """Data store bits per entry: completion + active + status + data + next (1,092)."""
        return 1 + 2 * self.lanes + self.data_width + self.ptr_width


@dataclass(frozen=True)
class ScoreboardOps:
    """Requests of one cycle (RTL input ports)."""

    src_en: int = 0
    src0: int = 0
    src1: int = 0
    src2: int = 0
    dst: int = 0
    dst_mask: int = 0
    q_warp: int = 0
    cm_en: int = 0
    cm_warp: int = 0
    wb_en: int = 0
    wb_idx: int = 0
    wb_lanes: int = 0
    wb_data: int = 0
    al_en: int = 0
    al_warp: int = 0
    al_reg: int = 0
    al_mask: int = 0
    al_store: int = 0
    rd_en: int = 0
    rd_idx: int = 0


@dataclass(frozen=True)
class ScoreboardOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    src_hit: int
    src_done: int
    src0_idx: int
    src1_idx: int
    src2_idx: int
    dst_hit: int
    dst_idx: int
    dst_cover: int
    q_in_board: int
    q_in_store: int
    full: int
    valid: int
    cm_ok: int
    cm_idx: int
    cm_reg: int
    cm_write: int
    al_ok: int
    al_idx: int
    rd_data: int
    rd_lanes: int
    cm_data: int
    cm_lanes: int


class Scoreboard:
    """Many-thread-aware scoreboard of one SM (see module docstring)."""

    def __init__(self, params: ScoreboardParams | None = None, *, recorder=None,
                 check: bool = True):
        params = ScoreboardParams() if params is None else params
        if not isinstance(params, ScoreboardParams):
            raise SimtlabError(f"{STRUCT}: expected ScoreboardParams, not {type(params).__name__}")
        self._p = params
        # Range checks of every transaction field (for callers driving the structure
        # directly); a timing mechanism that builds its requests itself passes check=False.
        # Always on while recording a trace.
        self._checked = check or recorder is not None
        self._lane_masks: dict[int, int] = {}
        n, w = params.entries, params.warps
        # tag store
        self.used = [False] * n
        self.reg = [0] * n
        self.nm = [0] * n
        # data store (control fields and the SRAM data, which survives reallocation)
        self.done = [0] * n
        self.active = [0] * n
        self.status = [0] * n
        self.next = [0] * n
        self.data = [0] * n
        # per-warp scheduler fields
        self.head = [0] * w
        self.tail = [0] * w
        self.in_board = [0] * w
        self.in_store = [0] * w
        # registered read outputs
        self._rd = (0, 0)
        self._cm = (0, 0)
        self._recorder = recorder
        # The CAM's content as a map, kept in step with used / reg / nm: tag -> the valid
        # entry with NM = 1 holding it (at most one exists), and the number of used entries.
        self._tags: dict[int, int] = {}
        self._n_used = 0

    @property
    def params(self) -> ScoreboardParams:
        return self._p

    def __len__(self) -> int:
        return self._n_used

    # ------------------------------------------------------------------ helpers
    def _lane_mask(self, lanes: int) -> int:
        """The data bits of the lanes set in ``lanes`` (memoised per lane mask)."""
        m = self._lane_masks.get(lanes)
        if m is None:
            m = 0
            ones = (1 << LANE_BITS) - 1
            for i in range(self._p.lanes):
                if lanes >> i & 1:
                    m |= ones << (LANE_BITS * i)
            self._lane_masks[lanes] = m
        return m

    def match(self, reg: int) -> int | None:
        """The valid entry with NM = 1 whose tag is ``reg`` (at most one exists); an
        inspection of the CAM, not a cycle."""
        return self._tags.get(reg)

    @property
    def free_entries(self) -> int:
        """Entries not in use (inspection, not a cycle)."""
        return self._p.entries - self._n_used

    def entries_of(self, warp: int) -> list[int]:
        """The warp's entries from head to tail (inspection, not a cycle)."""
        if not self.in_board[warp]:
            return []
        out, i = [], self.head[warp]
        while True:
            out.append(i)
            if i == self.tail[warp] or len(out) > self._p.entries:
                return out
            i = self.next[i]

    # ------------------------------------------------------------------ state changes
    # Shared by step() and the one-request cycles below, so both change the state alike.
    def _commit_head(self, w: int) -> None:
        """Free warp ``w``'s head entry (complete, checked by the caller)."""
        h = self.head[w]
        self._cm = (self.data[h] & self._lane_mask(self.status[h]), self.status[h])
        self.used[h] = False
        self._n_used -= 1
        if self.nm[h]:
            del self._tags[self.reg[h]]
        self.in_store[w] = 0
        if h == self.tail[w]:
            self.in_board[w] = 0
        else:
            self.head[w] = self.next[h]

    def _write_entry(self, e: int, lanes: int, data: int, freed) -> None:
        lanes_bits = self._lane_mask(lanes)
        self.data[e] = (self.data[e] & ~lanes_bits) | (data & lanes_bits)
        if self.used[e] and e != freed:
            self.status[e] |= lanes & self.active[e]
            self.done[e] = int((self.active[e] & ~self.status[e]) == 0)

    def _fill(self, e: int, aw: int, reg: int, mask: int, store: int) -> None:
        """Allocate free entry ``e`` to warp ``aw`` (the request was accepted)."""
        tags = self._tags
        if not store:
            old = tags.get(reg)
            if old is not None:
                self.nm[old] = 0
            tags[reg] = e
        self.used[e] = True
        self._n_used += 1
        self.reg[e] = reg
        self.nm[e] = 0 if store else 1
        self.active[e] = mask
        self.status[e] = 0
        self.done[e] = int(mask == 0)
        if self.in_board[aw]:
            self.next[self.tail[aw]] = e
        else:
            self.head[aw] = e
            self.in_board[aw] = 1
        self.tail[aw] = e
        if store:
            self.in_store[aw] = 1

    # ------------------------------------------------------------------ one-request cycles
    # What step() does for a cycle whose only request is one allocation, one writeback or
    # one commit. Each is exactly step() with that one request enabled; without range
    # checks or a recorder (the timing mechanism's path) it skips building the ops /
    # outputs records.
    def allocate(self, warp: int, reg: int, mask: int, store: int = 0) -> int | None:
        """``step(ScoreboardOps(al_en=1, al_warp=warp, al_reg=reg, al_mask=mask,
        al_store=store))``: the allocated entry, or None when refused."""
        if self._checked:
            out = self.step(ScoreboardOps(al_en=1, al_warp=warp, al_reg=reg, al_mask=mask,
                                          al_store=store))
            return out.al_idx if out.al_ok else None
        self._rd = self._cm = (0, 0)
        if self._n_used == self._p.entries or (store and self.in_board[warp]):
            return None
        e = self.used.index(False)
        self._fill(e, warp, reg, mask, store)
        return e

    def writeback(self, e: int, lanes: int, data: int = 0) -> None:
        """``step(ScoreboardOps(wb_en=1, wb_idx=e, wb_lanes=lanes, wb_data=data))``."""
        if self._checked:
            self.step(ScoreboardOps(wb_en=1, wb_idx=e, wb_lanes=lanes, wb_data=data))
            return
        self._rd = self._cm = (0, 0)
        self._write_entry(e, lanes, data, None)

    def commit(self, warp: int) -> bool:
        """``step(ScoreboardOps(cm_en=1, cm_warp=warp)).cm_ok``."""
        if self._checked:
            return bool(self.step(ScoreboardOps(cm_en=1, cm_warp=warp)).cm_ok)
        self._rd = (0, 0)
        if self.in_board[warp] and self.done[self.head[warp]]:
            self._commit_head(warp)
            return True
        self._cm = (0, 0)
        return False

    # ------------------------------------------------------------------ one cycle
    def _check(self, ops: ScoreboardOps) -> None:
        p = self._p
        one = ("cm_en", "wb_en", "al_en", "al_store", "rd_en")
        for name in one:
            fits(STRUCT, name, getattr(ops, name), 1)
        fits(STRUCT, "src_en", ops.src_en, 3)
        for name in ("src0", "src1", "src2", "dst", "al_reg"):
            fits(STRUCT, name, getattr(ops, name), p.reg_width)
        for name in ("dst_mask", "wb_lanes", "al_mask"):
            fits(STRUCT, name, getattr(ops, name), p.lanes)
        for name in ("q_warp", "cm_warp", "al_warp"):
            fits(STRUCT, name, getattr(ops, name), p.warp_width)
        for name in ("wb_idx", "rd_idx"):
            fits(STRUCT, name, getattr(ops, name), p.ptr_width)
        fits(STRUCT, "wb_data", ops.wb_data, p.data_width)
        for name in ("q_warp", "cm_warp", "al_warp"):
            if getattr(ops, name) >= p.warps:
                raise SimtlabError(f"{STRUCT}: {name} {getattr(ops, name)} out of range 0..{p.warps - 1}")
        for name in ("wb_idx", "rd_idx"):
            if getattr(ops, name) >= p.entries:
                raise SimtlabError(f"{STRUCT}: {name} {getattr(ops, name)} out of range 0..{p.entries - 1}")

    def step(self, ops: ScoreboardOps) -> ScoreboardOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if not isinstance(ops, ScoreboardOps):
            raise SimtlabError(f"{STRUCT}.step: expected ScoreboardOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        p = self._p
        # ---- combinational outputs on the start-of-cycle state
        src_hit = src_done = 0
        idx = [0, 0, 0]
        for k, reg in enumerate((ops.src0, ops.src1, ops.src2)):
            if ops.src_en >> k & 1:
                e = self.match(reg)
                if e is not None:
                    src_hit |= 1 << k
                    src_done |= self.done[e] << k
                    idx[k] = e
        d = self.match(ops.dst)
        dst_hit = int(d is not None)
        dst_idx = d if d is not None else 0
        dst_cover = int(d is None or (self.active[d] & ~ops.dst_mask) == 0)
        q_in_board, q_in_store = self.in_board[ops.q_warp], self.in_store[ops.q_warp]
        start_in_board = self.in_board[ops.al_warp]
        free = [i for i in range(p.entries) if not self.used[i]]
        valid = sum(1 << i for i in range(p.entries) if self.used[i])
        rd_out, cm_out = self._rd, self._cm
        # registered reads sample the start-of-cycle state
        if ops.rd_en:
            e = ops.rd_idx
            self._rd = (self.data[e] & self._lane_mask(self.status[e]), self.status[e])
        else:
            self._rd = (0, 0)
        # ---- 4. commit
        cm_ok = cm_idx = cm_reg = cm_write = 0
        freed = None
        w = ops.cm_warp
        if ops.cm_en and self.in_board[w] and self.done[self.head[w]]:
            h = self.head[w]
            cm_ok, cm_idx, cm_reg = 1, h, self.reg[h]
            cm_write = 0 if self.in_store[w] else 1
            freed = h
            self._commit_head(w)
        else:
            self._cm = (0, 0)
        # ---- 5. writeback
        if ops.wb_en:
            self._write_entry(ops.wb_idx, ops.wb_lanes, ops.wb_data, freed)
        # ---- 6. allocation
        al_ok = al_idx = 0
        if ops.al_en and free and not (ops.al_store and start_in_board):
            al_ok, al_idx = 1, free[0]
            self._fill(free[0], ops.al_warp, ops.al_reg, ops.al_mask, ops.al_store)
        out = ScoreboardOutputs(
            src_hit=src_hit, src_done=src_done, src0_idx=idx[0], src1_idx=idx[1], src2_idx=idx[2],
            dst_hit=dst_hit, dst_idx=dst_idx, dst_cover=dst_cover,
            q_in_board=q_in_board, q_in_store=q_in_store,
            full=int(not free), valid=valid, cm_ok=cm_ok, cm_idx=cm_idx, cm_reg=cm_reg,
            cm_write=cm_write, al_ok=al_ok, al_idx=al_idx,
            rd_data=rd_out[0], rd_lanes=rd_out[1], cm_data=cm_out[0], cm_lanes=cm_out[1])
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out
