"""Reference model of DARSIE's version table of one TB (seed 000 §4.3.1, Fig. 7 E).

What it stores
--------------
For each live version of a TB-redundant register, the physical register holding it:
<named register, version> -> physical register tag (§4.3.1). Banked per TB. Each of
``entries`` = 32 entries holds the key (named register ``reg_width`` = 8 bits, version
``version_width`` = 5 bits) and the physical tag (``phys_width`` = 8 bits): exactly the
paper's 21-bit entry (§6.3: 21 x 32 x 32 TBs = 21,504 bits = 2,688 B). The 8-bit tag is an
index into the TB's renamed register space (at most 32 registers), not an SM-wide
register number (2K registers would need 11 bits).

Every live version owns one physical register of the TB's freelist, so with ``entries``
equal to the freelist size the table can never overflow in a correct mechanism: there is
no replacement policy (no LRU state; an earlier version of this model reused the common
CAM, whose 32-entry true LRU added 496 flip-flops that could never matter). An insert that
finds no free entry is refused and reported (``ins_full``) so a mechanism bug is visible.

Per-cycle interface (shared with :class:`rtl.darsie.version_table.VersionTable`)
------------------------------------------------------------------------------
1. read (always active) of (``rd_reg``, ``rd_version``) on the start-of-cycle state:
   ``rd_hit``, ``rd_phys`` (0 on a miss);
2. ``flush``: every entry invalid (new TB in the slot);
3. ``rm_en``: remove (``rm_reg``, ``rm_version``) (its register was freed);
   ``rm_hit`` says whether it was present;
4. ``ins_en``: insert (``ins_reg``, ``ins_version``) -> ``ins_phys``; an existing key
   is overwritten in place (``ins_hit``), else the lowest free entry is used; with no
   free entry nothing changes and ``ins_full`` is set. ``ins_index`` is the entry used
   (0 when refused or without ``ins_en``).

``valid`` is the start-of-cycle bitmap of valid entries.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError

from golden.structures._check import fits, param_int
from golden.structures.ports import OutputPorts

__all__ = ["VersionTableParams", "VersionTableOps", "VersionTableOutputs", "VersionTable"]

STRUCT = "version_table"


@dataclass(frozen=True)
class VersionTableParams:
    """Sizes of one TB's version table; defaults are the paper's (§6.3).

    Attributes
    ----------
    entries : int
        Live versions per TB (32).
    reg_width : int
        Named-register width (8).
    version_width : int
        Version width (5).
    phys_width : int
        Physical register tag width (8).
    """

    entries: int = 32
    reg_width: int = 8
    version_width: int = 5
    phys_width: int = 8

    def __post_init__(self):
        param_int(STRUCT, "entries", self.entries, 1)
        param_int(STRUCT, "reg_width", self.reg_width, 1)
        param_int(STRUCT, "version_width", self.version_width, 1)
        param_int(STRUCT, "phys_width", self.phys_width, 1)

    @property
    def key_width(self) -> int:
        return self.reg_width + self.version_width

    @property
    def bits_per_entry(self) -> int:
        """The paper's 21 bits at default sizes (key + physical tag)."""
        return self.key_width + self.phys_width


@dataclass(frozen=True)
class VersionTableOps:
    """Requests of one cycle (RTL input ports)."""

    rd_reg: int = 0
    rd_version: int = 0
    ins_en: int = 0
    ins_reg: int = 0
    ins_version: int = 0
    ins_phys: int = 0
    rm_en: int = 0
    rm_reg: int = 0
    rm_version: int = 0
    flush: int = 0


@dataclass(frozen=True)
class VersionTableOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    rd_hit: int
    rd_phys: int
    ins_index: int
    ins_hit: int
    ins_full: int
    rm_hit: int
    valid: int


class VersionTable:
    """Version table of one TB (see module docstring).

    State: the physical tag per entry, the bitmap of valid entries and a key -> entry map
    of the valid entries (the entries' key fields; keys are unique among valid entries:
    an insert of a present key overwrites it). :meth:`step` is the RTL view; the
    per-event methods run the same cycle function (:meth:`_cycle`) without building
    request/output records when nothing records a trace and range checks are off.
    """

    def __init__(self, params: VersionTableParams | None = None, *, recorder=None,
                 check: bool = True):
        params = VersionTableParams() if params is None else params
        if not isinstance(params, VersionTableParams):
            raise SimtlabError(f"{STRUCT}: expected VersionTableParams, not {type(params).__name__}")
        self._params = params
        # Range checks of every transaction field; a simulator that builds in-range
        # requests may turn them off, except while a recorder writes a trace.
        self._checked = check or recorder is not None
        self._phys = [0] * params.entries
        self._valid = 0
        self._where: dict[int, int] = {}      # key -> entry, valid entries only
        self._recorder = recorder

    @property
    def params(self) -> VersionTableParams:
        return self._params

    @property
    def valid(self) -> int:
        """Valid entries as a bitmap."""
        return self._valid

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, key: tuple[int, int]) -> bool:
        """Whether (reg, version) is mapped (inspection, not a cycle)."""
        return self._key(*key) in self._where

    def _key(self, reg: int, version: int) -> int:
        return reg << self._params.version_width | version

    # ------------------------------------------------------------------ per-event API
    def lookup(self, reg: int, version: int) -> int | None:
        """Physical register of (``reg``, ``version``), or None."""
        if self._checked:
            out = self.step(VersionTableOps(rd_reg=reg, rd_version=version))
            return out.rd_phys if out.rd_hit else None
        out = self._cycle(reg, version, 0, 0, 0, 0, 0, 0, 0, 0)
        return out[1] if out[0] else None

    def insert(self, reg: int, version: int, phys: int) -> VersionTableOutputs:
        """Map (``reg``, ``version``) to ``phys``; returns the cycle's outputs."""
        return self.step(VersionTableOps(ins_en=1, ins_reg=reg, ins_version=version, ins_phys=phys))

    def remove(self, reg: int, version: int) -> int | None:
        """Remove (``reg``, ``version``); return its physical register (read in the same cycle) or None."""
        if self._checked:
            out = self.step(VersionTableOps(rd_reg=reg, rd_version=version,
                                            rm_en=1, rm_reg=reg, rm_version=version))
            return out.rd_phys if out.rm_hit else None
        out = self._cycle(reg, version, 0, 0, 0, 0, 1, reg, version, 0)
        return out[1] if out[5] else None

    def flush(self) -> None:
        """Forget every version (a new TB in the slot)."""
        self.step(VersionTableOps(flush=1))

    # ------------------------------------------------------------------ one cycle
    def step(self, ops: VersionTableOps) -> VersionTableOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if self._checked:
            self._check(ops)
        out = VersionTableOutputs(*self._cycle(
            ops.rd_reg, ops.rd_version, ops.ins_en, ops.ins_reg, ops.ins_version, ops.ins_phys,
            ops.rm_en, ops.rm_reg, ops.rm_version, ops.flush))
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    def _cycle(self, rd_reg: int, rd_version: int, ins_en: int, ins_reg: int, ins_version: int,
               ins_phys: int, rm_en: int, rm_reg: int, rm_version: int, flush: int) -> tuple:
        """One cycle on plain values; returns the outputs in :class:`VersionTableOutputs`
        field order (rd_hit, rd_phys, ins_index, ins_hit, ins_full, rm_hit, valid)."""
        vw = self._params.version_width
        where = self._where
        valid = self._valid
        found = where.get(rd_reg << vw | rd_version)
        rd_phys = self._phys[found] if found is not None else 0
        if flush:
            where.clear()
            self._valid = 0
        rm_hit = 0
        if rm_en:
            gone = where.pop(rm_reg << vw | rm_version, None)
            if gone is not None:
                self._valid &= ~(1 << gone)
                rm_hit = 1
        ins_index = ins_hit = ins_full = 0
        if ins_en:
            key = ins_reg << vw | ins_version
            index = where.get(key)
            ins_hit = int(index is not None)
            if index is None:
                free = ~self._valid & ((1 << self._params.entries) - 1)
                if free:
                    index = (free & -free).bit_length() - 1
            if index is None:
                ins_full = 1
            else:
                self._phys[index] = ins_phys
                where[key] = index
                self._valid |= 1 << index
                ins_index = index
        return (int(found is not None), rd_phys, ins_index, ins_hit, ins_full, rm_hit, valid)

    def _check(self, ops: VersionTableOps) -> None:
        if not isinstance(ops, VersionTableOps):
            raise SimtlabError(f"{STRUCT}.step: expected VersionTableOps, not {type(ops).__name__}")
        p = self._params
        for name in ("rd_reg", "ins_reg", "rm_reg"):
            fits(STRUCT, name, getattr(ops, name), p.reg_width)
        for name in ("rd_version", "ins_version", "rm_version"):
            fits(STRUCT, name, getattr(ops, name), p.version_width)
        fits(STRUCT, "ins_phys", ops.ins_phys, p.phys_width)
        for name in ("ins_en", "rm_en", "flush"):
            fits(STRUCT, name, getattr(ops, name), 1)
