"""Reference model of CAPRI's compaction-adequacy prediction table (CAPT) of one shader
core (seed 004 §3.1, §3.3, §5.4, §5.5; digest: paper-facts §7.2, §7.3).

What it stores
--------------
``entries`` entries (32 by default, the paper's evaluated configuration; §5.4 sweeps 2 ..
32), fully associative, with true-LRU replacement. Per entry:

* ``BADDR``: the branch PC, ``pc_bits`` = 32 (the tag);
* ``history``: ``history_bits`` = 1 for the policies ``"1bL"`` (1b-Latest) and ``"1bS"``
  (1b-Sticky), 2 for ``"2bit"`` (a saturating counter);
* ``valid``: 1 bit.

:attr:`CaptParams.entry_bits` = 32 + 1 + 1 = 34 for the 1-bit policies, so 8 entries are
the paper's 272 bits per core and the default 32 entries 1,088 bits. True LRU adds
``entries x (entries - 1) / 2`` bits of age matrix in the RTL (:attr:`CaptParams.lru_bits`,
not in the paper's count); :attr:`CaptParams.state_bits` includes them.

History encodings
~~~~~~~~~~~~~~~~~
The prediction is the history's most significant bit: 1 = compaction **adequate** (the
divergent warp stalls for compaction), 0 = inadequate (it bypasses).

* ``1bL``: the bit is the latest outcome; an update writes it.
* ``2bit``: a saturating counter 0..3, +1 on an adequate outcome, -1 on an inadequate
  one; predicts adequate when it is 2 or 3 (MSB). The paper states neither threshold nor
  initial value (paper-facts §7.3); **a new entry starts at binary 10 (2, weakly
  adequate)**, so one inadequate outcome flips the prediction, as one does for 1bL, and
  the choice matches :mod:`golden.mechanisms.capri.oracle`.
* ``1bS``: the bit is set to adequate when a warp diverges on the branch -- which is
  exactly when an entry is allocated or looked up -- and stays set until the table is
  reset at kernel end. **An update under 1bS leaves the history unchanged** (the entry
  already says adequate; ``update_hit`` still reports whether the branch is present). So
  a 1bS entry always predicts adequate; only eviction or the kernel-end reset removes it
  (paper-facts §7.3, the note on 1b-Sticky).

Every new entry (allocation on a lookup miss) is written with history = adequate: 1 for
the 1-bit policies, binary 10 for ``2bit``.

Per-cycle interface (shared port for port with :class:`rtl.capri.capt.Capt`)
------------------------------------------------------------------------------
Requests (:class:`CaptOps`): a lookup ``lookup_en`` of ``lookup_pc`` with ``alloc_en``
(allocate on a miss), an update ``update_en`` of ``update_pc`` with the WCU's outcome
``update_adequate``, and ``flush`` (the kernel-end reset). Applied in this order, each
seeing the effect of the ones before it:

1. **lookup** of ``lookup_pc`` on the start-of-cycle contents: ``hit``, ``hit_history``
   (the hit entry's history, 0 on a miss) and ``predict_adequate`` = the history's MSB on
   a hit, **1 on a miss** (a miss allocates an "adequate" entry and the divergent warp
   stalls, §3.3; a lookup without ``alloc_en`` predicts the same). A hit makes the entry
   most recently used;
2. **update** of ``update_pc`` on the start-of-cycle contents: ``update_hit`` when a valid
   entry holds it, whose history then follows the policy (above). An update of a branch
   that is absent (evicted since its lookup) does nothing;
3. **flush**: every valid bit is cleared (the recency order is kept);
4. **allocation**: when ``lookup_en`` and ``alloc_en`` and the lookup missed, the
   lowest-indexed invalid entry (after step 3), else the least recently used one, is
   written with ``lookup_pc``, valid and the initial history, and becomes most recently
   used. ``alloc`` reports it, ``evict`` whether a valid entry was replaced and
   ``evict_pc`` that entry's branch PC (0 otherwise). An allocation overrides a same-cycle
   update of the victim.

LRU: a lookup hit and an allocation make an entry most recently used; updates, flushes
and invalid entries do not move it. Reset order: entry 0 least recently used. The tag
store and LRU are those of the project's CAM (:class:`golden.structures.cam.Cam`, used
here), with a second associative search port for the update.

Requests that are errors (:class:`~golden.errors.SimtlabError`, in check mode and
whenever a recorder is attached): a port value that does not fit its width.

Which warps look up (only those that diverged on the branch), when the update comes
(after the WCU's adequacy evaluation, §3.3 step 6) and when the kernel ends are the
mechanism's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from golden.errors import ConfigError, SimtlabError
from golden.structures.cam import Cam, CamParams
from golden.structures._check import fits, param_int
from golden.structures.ports import OutputPorts

__all__ = ["POLICIES", "Capt", "CaptLookup", "CaptOps", "CaptOutputs", "CaptParams"]

STRUCT = "capri_capt"

#: History policies: 1b-Latest, 1b-Sticky, 2-bit saturating counter (§3.3).
POLICIES = ("1bL", "1bS", "2bit")


@dataclass(frozen=True)
class CaptParams:
    """Sizes and policy of one core's CAPT; defaults are the paper's evaluated CAPRI
    (32 entries, 1b-Latest, 32-bit BADDR).

    Attributes
    ----------
    entries : int
        Entries, >= 2 (32; §5.4 sweeps 2 .. 32, and 8 give ~97% of an infinite CAPT).
    policy : str
        History policy: ``"1bL"``, ``"1bS"`` or ``"2bit"``.
    pc_bits : int
        Width of the BADDR tag (32).
    """

    entries: int = 32
    policy: str = "1bL"
    pc_bits: int = 32

    def __post_init__(self):
        param_int(STRUCT, "entries", self.entries, 2)
        if self.policy not in POLICIES:
            raise ConfigError(f"{STRUCT}.policy: must be one of {POLICIES}, not {self.policy!r}")
        param_int(STRUCT, "pc_bits", self.pc_bits, 1, 64)

    @property
    def history_bits(self) -> int:
        """1 for 1bL and 1bS, 2 for the 2-bit counter."""
        return 2 if self.policy == "2bit" else 1

    @property
    def initial_history(self) -> int:
        """History of a new entry: adequate (1, or binary 10 for 2bit)."""
        return 2 if self.policy == "2bit" else 1

    @property
    def entry_bits(self) -> int:
        """BADDR + history + valid: 34 for the 1-bit policies, 35 for 2bit (§5.5)."""
        return self.pc_bits + self.history_bits + 1

    @property
    def total_bits(self) -> int:
        """The paper's count, entries x entry_bits: 272 at 8 entries, 1,088 at 32 (1bL)."""
        return self.entries * self.entry_bits

    @property
    def lru_bits(self) -> int:
        """True-LRU age matrix of the RTL, entries x (entries - 1) / 2 (not in the paper)."""
        return self.entries * (self.entries - 1) // 2

    @property
    def state_bits(self) -> int:
        """Every stored bit of the RTL: total_bits + lru_bits."""
        return self.total_bits + self.lru_bits


@dataclass(frozen=True)
class CaptOps:
    """Requests of one cycle (RTL input ports)."""

    lookup_en: int = 0
    lookup_pc: int = 0
    alloc_en: int = 0
    update_en: int = 0
    update_pc: int = 0
    update_adequate: int = 0
    flush: int = 0


@dataclass(frozen=True)
class CaptOutputs(OutputPorts):
    """Every RTL output port in one cycle (0 for a request that is not made)."""

    hit: int
    hit_history: int
    predict_adequate: int
    alloc: int
    evict: int
    evict_pc: int
    update_hit: int


class CaptLookup(NamedTuple):
    """Result of :meth:`Capt.lookup`: the branch was present; the prediction (adequate =
    the divergent warp stalls for compaction)."""

    hit: bool
    adequate: bool


class Capt:
    """Compaction-adequacy prediction table of one core (see module docstring).

    Inspection (no cycle): :meth:`entry`, :meth:`history_of`, :attr:`lru_order`,
    ``len()``, ``pc in capt``.
    """

    def __init__(self, params: CaptParams | None = None, *, recorder=None, check: bool = True):
        params = CaptParams() if params is None else params
        if not isinstance(params, CaptParams):
            raise SimtlabError(f"{STRUCT}: expected CaptParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder
        self._cam = Cam(CamParams(entries=params.entries, tag_width=params.pc_bits))
        self._history = [0] * params.entries

    @property
    def params(self) -> CaptParams:
        return self._p

    # ------------------------------------------------------------------ inspection
    def entry(self, index: int) -> tuple[int, int] | None:
        """``(BADDR, history)`` of entry ``index``, or None if it is invalid."""
        pc = self._cam.entry(index)
        return None if pc is None else (pc, self._history[index])

    def history_of(self, pc: int) -> int | None:
        """History of branch ``pc``, or None if absent (no cycle, no LRU change)."""
        found = self._cam.lookup(pc, touch=False)
        return self._history[found.index] if found.hit else None

    @property
    def lru_order(self) -> tuple[int, ...]:
        """Entry indices from least to most recently used."""
        return self._cam.lru_order

    def __len__(self) -> int:
        return len(self._cam)

    def __contains__(self, pc: int) -> bool:
        return pc in self._cam

    # ------------------------------------------------------------------ one cycle
    def _check(self, ops: CaptOps) -> None:
        p = self._p
        for name in ("lookup_en", "alloc_en", "update_en", "update_adequate", "flush"):
            fits(STRUCT, name, getattr(ops, name), 1)
        fits(STRUCT, "lookup_pc", ops.lookup_pc, p.pc_bits)
        fits(STRUCT, "update_pc", ops.update_pc, p.pc_bits)

    def _next_history(self, h: int, adequate: bool) -> int:
        policy = self._p.policy
        if policy == "1bL":
            return int(adequate)
        if policy == "2bit":
            return min(3, h + 1) if adequate else max(0, h - 1)
        return h                                         # 1bS: sticky

    def step(self, ops: CaptOps) -> CaptOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if not isinstance(ops, CaptOps):
            raise SimtlabError(f"{STRUCT}.step: expected CaptOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        msb = self._p.history_bits - 1
        hit = hit_history = update_hit = 0
        predict = 0
        # 2. the update searches the start-of-cycle contents (before the lookup's touch,
        #    which does not change the contents anyway)
        upd = self._cam.lookup(ops.update_pc, touch=False) if ops.update_en else None
        # 1. lookup with LRU touch on a hit
        if ops.lookup_en:
            found = self._cam.lookup(ops.lookup_pc, touch=True)
            if found.hit:
                hit, hit_history = 1, self._history[found.index]
                predict = hit_history >> msb & 1
            else:
                predict = 1
        if upd is not None and upd.hit:
            update_hit = 1
            self._history[upd.index] = self._next_history(self._history[upd.index],
                                                          bool(ops.update_adequate))
        # 3. flush
        if ops.flush:
            self._cam.flush()
        # 4. allocation on a miss
        alloc = evict = evict_pc = 0
        if ops.lookup_en and ops.alloc_en and not hit:
            ins = self._cam.insert(ops.lookup_pc)
            self._history[ins.index] = self._p.initial_history
            alloc, evict, evict_pc = 1, int(ins.evicted), ins.evicted_tag
        out = CaptOutputs(hit=hit, hit_history=hit_history, predict_adequate=predict,
                          alloc=alloc, evict=evict, evict_pc=evict_pc, update_hit=update_hit)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    # ------------------------------------------------------------------ mechanism API
    def lookup(self, pc: int, *, allocate: bool = True) -> CaptLookup:
        """One cycle: a warp diverged on branch ``pc`` (§3.3 steps 3-4). A hit returns the
        history's prediction; a miss predicts adequate (stall) and, with ``allocate``,
        allocates the entry (LRU victim) as adequate."""
        out = self.step(CaptOps(lookup_en=1, lookup_pc=pc, alloc_en=int(allocate)))
        return CaptLookup(bool(out.hit), bool(out.predict_adequate))

    def update(self, pc: int, adequate: bool) -> bool:
        """One cycle: the WCU evaluated branch ``pc``'s compaction as ``adequate`` or not
        (§3.3 step 6c); apply the policy. Return whether the branch was still present."""
        out = self.step(CaptOps(update_en=1, update_pc=pc, update_adequate=int(bool(adequate))))
        return bool(out.update_hit)

    def reset(self) -> None:
        """One cycle: the kernel completed; invalidate every entry."""
        self.step(CaptOps(flush=1))
