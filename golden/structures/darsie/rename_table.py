"""Reference model of DARSIE's register rename table of one TB (seed 000 §4.3.1, Fig. 7 D).

What it stores
--------------
The rename table maps <warp, named register> to the version of that register the warp
currently reads (§4.3.1: "maps <warp,reg#> pairs to this warp's <reg#,version#> pair"),
for the registers of one TB that are renamed (banked per TB; the SM has ``tbs`` copies).
It is probed before the baseline base+length mapping; a miss means "read the private
register".

Organisation (ours; the paper gives sizes only): ``entries`` register entries (32 per
TB, §5/§6.3), each with a named-register tag (``reg_width`` = 8 bits) and, per warp of
the TB, a ``renamed`` bit and a version (``version_width`` = 5 bits). An entry is in use
while any warp has its renamed bit set, so no separate valid bit is stored.

Bits: the paper budgets 21 bits x 32 entries per TB for the rename **and** version tables
together (named register 8 + physical tag 8 + version 5 = 21; 2,688 B for 32 TBs). That
covers one version per register, i.e. the version table. Warps progress at different
paces (Fig. 5: W2 reads R1(v1) while W0 is at v2), so the rename table needs a version
per (warp, register): ``entries * (reg_width + warps * (version_width + 1))`` bits =
32 x (8 + 32 x 6) = 6,400 bits per TB at paper sizes (25.6 kB per SM of 32 TBs), about
9.5x the paper's 2,688 B for both tables.

Per-cycle interface (shared with :class:`rtl.darsie.rename_table.RenameTable`)
----------------------------------------------------------------------------
Order within a cycle, each step seeing the previous ones:

1. read (always active) of (``rd_warp``, ``rd_reg``) on the start-of-cycle state:
   ``rd_hit`` when an entry holds ``rd_reg`` and ``rd_warp`` is renamed in it;
   ``rd_version`` is its version (0 on a miss);
2. the write-port operation ``wr_op`` (:class:`RenameOp`) for (``wr_warp``, ``wr_reg``):

   * ``SET``: the warp now reads version ``wr_version`` (leader allocated it, or a
     follower skipped the writer). Uses the entry holding ``wr_reg``, else the lowest
     free entry; with neither, nothing changes and ``wr_full`` is set;
   * ``DROP``: the warp writes the register privately again (a non-skipping writer):
     its renamed bit is cleared;

   Both report, from the start-of-cycle state, ``wr_hit`` (an entry holds ``wr_reg``),
   ``wr_old_valid``/``wr_old_version`` (the warp's previous mapping) and
   ``wr_old_shared`` (another warp is renamed to that same old version: the old
   version is still read by someone). The DARSIE mechanism combines ``wr_old_shared``
   with the skip table's arrivals to decide when a version's physical register returns
   to the freelist;
3. ``clr_en``: warp ``clr_warp`` leaves the majority path: all its renamed bits are cleared;
4. ``flush``: every renamed bit is cleared (a new TB in the slot).

``valid`` is the start-of-cycle bitmap of entries in use.

Paper organisation (``per_warp_versions=False``, issue 69 item 4)
------------------------------------------------------------------
Restricts the state to what §6.3's 21-bit entry can hold (named register 8 + physical tag
8 + version 5; the tag lives in the version table): per entry a register tag and **one**
version, shared by every warp of the TB; no warp field, no renamed bits. Observable
consequences (docs/darsie-state-budget.md): a read by any warp hits with the entry's one
version; ``SET`` rewrites that version for all warps; ``DROP`` can only free the entry
(for all warps); ``clr_en`` changes nothing (no per-warp state to clear);
``wr_old_shared`` is 1 whenever the TB has more than one warp (every warp maps to the one
version). Fig. 5 at T3-T4 (W1 reads R1 v1 while W0 is at v2) is not representable.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple

from golden.errors import SimtlabError

from golden.structures._check import below, fits, param_int, width_of
from golden.structures.ports import OutputPorts

__all__ = ["RenameOp", "RenameTableParams", "RenameTableOps", "RenameTableOutputs",
           "RenameWrite", "RenameTable"]

STRUCT = "rename_table"


class RenameOp(IntEnum):
    """Operation of the rename table's write port (the RTL ``wr_op`` port, 2 bits)."""

    NONE = 0
    SET = 1
    DROP = 2


@dataclass(frozen=True)
class RenameTableParams:
    """Sizes of one TB's rename table; defaults are the paper's (§5, §6.3).

    Attributes
    ----------
    warps : int
        Warps per TB (32).
    entries : int
        Renamed registers per TB (32).
    reg_width : int
        Named-register width (8: CUDA allows 255 registers per thread).
    version_width : int
        Version width (5).
    per_warp_versions : bool
        True (default): a renamed bit and a version per warp and register (ours). False:
        the paper's §6.3 21-bit organisation, one version per register for all warps
        (see "Paper organisation" in the module docstring).
    """

    warps: int = 32
    entries: int = 32
    reg_width: int = 8
    version_width: int = 5
    per_warp_versions: bool = True

    def __post_init__(self):
        param_int(STRUCT, "warps", self.warps, 1)
        param_int(STRUCT, "entries", self.entries, 1)
        param_int(STRUCT, "reg_width", self.reg_width, 1)
        param_int(STRUCT, "version_width", self.version_width, 1)
        if not isinstance(self.per_warp_versions, bool):
            raise SimtlabError(f"{STRUCT}: per_warp_versions must be True or False, "
                               f"not {self.per_warp_versions!r}")

    @property
    def warp_width(self) -> int:
        return width_of(self.warps)

    @property
    def storage_bits(self) -> int:
        """State bits: tags plus per-warp renamed bit and version (ours), or tag plus one
        version per entry (the paper's organisation; the 8-bit physical tag that
        completes §6.3's 21 bits is counted in the version table)."""
        if not self.per_warp_versions:
            return self.entries * (self.reg_width + self.version_width)
        return self.entries * (self.reg_width + self.warps * (self.version_width + 1))


@dataclass(frozen=True)
class RenameTableOps:
    """Requests of one cycle (RTL input ports)."""

    rd_warp: int = 0
    rd_reg: int = 0
    wr_op: int = RenameOp.NONE
    wr_warp: int = 0
    wr_reg: int = 0
    wr_version: int = 0
    clr_en: int = 0
    clr_warp: int = 0
    flush: int = 0


@dataclass(frozen=True)
class RenameTableOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    rd_hit: int
    rd_version: int
    wr_hit: int
    wr_full: int
    wr_old_valid: int
    wr_old_version: int
    wr_old_shared: int
    valid: int


class RenameWrite(NamedTuple):
    """Result of :meth:`RenameTable.set` / :meth:`RenameTable.drop`."""

    full: bool
    old_valid: bool
    old_version: int
    old_shared: bool


class RenameTable:
    """Rename table of one TB (see module docstring).

    State: per entry its tag, a warp bitmask of renamed bits and a version per warp; the
    bitmap of entries in use and a tag -> entry map of those entries are kept alongside
    (tags are unique among entries in use: SET reuses the entry holding its register).
    :meth:`step` is the RTL view; each per-event method is exactly one :meth:`step`, so a
    recorder attached with ``recorder=`` sees it as a trace line. The timing model's hot
    path uses the typed twin
    :class:`golden.structures.darsie.rename_table_fast.RenameTableFast` instead (same
    per-event results, no cycle records; tests/structures/test_darsie_typed_twins.py holds
    the two equal event by event).
    """

    def __init__(self, params: RenameTableParams | None = None, *, recorder=None, check: bool = True):
        params = RenameTableParams() if params is None else params
        if not isinstance(params, RenameTableParams):
            raise SimtlabError(f"{STRUCT}: expected RenameTableParams, not {type(params).__name__}")
        self._params = params
        # Range checks of every transaction field (for callers driving the structure
        # like an RTL port); a simulator that builds in-range requests may turn them
        # off, except while a recorder writes a trace for RTL replay.
        self._checked = check or recorder is not None
        n, w = params.entries, params.warps
        self._tag = [0] * n
        self._rmask = [0] * n                 # warps renamed in the entry (bit per warp)
        self._version = [[0] * w for _ in range(n)]
        self._valid = 0                       # entries in use (any renamed bit)
        self._where: dict[int, int] = {}      # tag -> entry, entries in use only
        self._recorder = recorder

    # ------------------------------------------------------------------ inspection
    @property
    def params(self) -> RenameTableParams:
        return self._params

    @property
    def valid(self) -> int:
        return self._valid

    def mapping(self, warp: int) -> dict[int, int]:
        """{named register: version} of every register ``warp`` has renamed."""
        below(STRUCT, "warp", warp, self._params.warps)
        return {self._tag[e]: self._version[e][warp]
                for e in range(self._params.entries) if self._rmask[e] >> warp & 1}

    def holders(self, reg: int, version: int) -> int:
        """Bitmask of warps renamed to (``reg``, ``version``)."""
        e = self._where.get(reg)
        if e is None:
            return 0
        vers = self._version[e]
        return sum(1 << w for w in _bits(self._rmask[e]) if vers[w] == version)

    # ------------------------------------------------------------------ per-event API
    def lookup(self, warp: int, reg: int) -> int | None:
        """Version ``warp`` reads for ``reg``, or None (use the private register)."""
        out = self.step(RenameTableOps(rd_warp=warp, rd_reg=reg))
        return out.rd_version if out.rd_hit else None

    def set(self, warp: int, reg: int, version: int) -> RenameWrite:
        """``warp`` now reads ``reg`` at ``version``."""
        return self._written(self.step(RenameTableOps(
            wr_op=RenameOp.SET, wr_warp=warp, wr_reg=reg, wr_version=version)))

    def drop(self, warp: int, reg: int) -> RenameWrite:
        """``warp`` reads ``reg`` from its private register again."""
        return self._written(self.step(RenameTableOps(wr_op=RenameOp.DROP, wr_warp=warp,
                                                      wr_reg=reg)))

    def clear_warp(self, warp: int) -> None:
        """``warp`` left the majority path: forget all its mappings."""
        self.step(RenameTableOps(clr_en=1, clr_warp=warp))

    def flush(self) -> None:
        """Forget every mapping (a new TB in the slot)."""
        self.step(RenameTableOps(flush=1))

    # ------------------------------------------------------------------ one cycle
    def step(self, ops: RenameTableOps) -> RenameTableOutputs:
        """Apply one cycle of requests in the documented order; return every RTL output."""
        if self._checked:
            self._check(ops)
        out = self._cycle(ops)
        if self._recorder is not None:
            self._recorder.record(ops, out)
        return out

    def _cycle(self, ops: RenameTableOps) -> RenameTableOutputs:
        """One cycle of ``ops`` in the documented order; returns every RTL output."""
        warps = self._params.warps
        valid = self._valid
        rmask = self._rmask
        e = self._where.get(ops.rd_reg)
        rd_hit = e is not None and ops.rd_warp < warps and rmask[e] >> ops.rd_warp & 1
        rd_version = self._version[e][ops.rd_warp] if rd_hit else 0

        wr_hit = wr_full = old_valid = old = shared = 0
        wr_op, wr_reg = ops.wr_op, ops.wr_reg
        if wr_op in (RenameOp.SET, RenameOp.DROP) and ops.wr_warp < warps:
            w = ops.wr_warp
            e = self._where.get(wr_reg)
            if e is not None:
                wr_hit = 1
                m = rmask[e]
                old_valid = m >> w & 1
                if old_valid:
                    vers = self._version[e]
                    old = vers[w]
                    for o in _bits(m & ~(1 << w)):
                        if vers[o] == old:
                            shared = 1
                            break
            if wr_op == RenameOp.SET:
                if e is None:
                    free = ~valid & ((1 << self._params.entries) - 1)
                    if free:
                        e = (free & -free).bit_length() - 1
                        self._tag[e] = wr_reg
                        self._where[wr_reg] = e
                    else:
                        wr_full = 1
                if e is not None:
                    self._valid |= 1 << e
                    if self._params.per_warp_versions:
                        rmask[e] |= 1 << w
                        self._version[e][w] = ops.wr_version
                    else:               # one version for every warp (paper's 21-bit entry)
                        rmask[e] = (1 << warps) - 1
                        self._version[e] = [ops.wr_version] * warps
            elif e is not None:
                self._unrename(e, rmask[e] & ~(1 << w) if self._params.per_warp_versions else 0)
        if ops.clr_en and ops.clr_warp < warps and self._params.per_warp_versions:
            for e in _bits(self._valid):
                self._unrename(e, rmask[e] & ~(1 << ops.clr_warp))
        if ops.flush:
            for e in _bits(self._valid):
                self._unrename(e, 0)
        return RenameTableOutputs(rd_hit=int(rd_hit), rd_version=rd_version, wr_hit=wr_hit,
                                  wr_full=wr_full, wr_old_valid=old_valid,
                                  wr_old_version=old, wr_old_shared=shared, valid=valid)

    # ------------------------------------------------------------------ helpers
    def _unrename(self, e: int, mask: int) -> None:
        """Entry ``e`` keeps the renamed bits ``mask``; with none it is free again."""
        self._rmask[e] = mask
        if not mask and self._valid >> e & 1:
            self._valid &= ~(1 << e)
            del self._where[self._tag[e]]

    @staticmethod
    def _written(out: RenameTableOutputs) -> RenameWrite:
        return RenameWrite(bool(out.wr_full), bool(out.wr_old_valid), out.wr_old_version,
                           bool(out.wr_old_shared))

    def _check(self, ops: RenameTableOps) -> None:
        if not isinstance(ops, RenameTableOps):
            raise SimtlabError(f"{STRUCT}.step: expected RenameTableOps, not {type(ops).__name__}")
        p = self._params
        for name in ("rd_warp", "wr_warp", "clr_warp"):
            fits(STRUCT, name, getattr(ops, name), p.warp_width)
        for name in ("rd_reg", "wr_reg"):
            fits(STRUCT, name, getattr(ops, name), p.reg_width)
        fits(STRUCT, "wr_version", ops.wr_version, p.version_width)
        fits(STRUCT, "wr_op", ops.wr_op, 2)
        fits(STRUCT, "clr_en", ops.clr_en, 1)
        fits(STRUCT, "flush", ops.flush, 1)


def _bits(mask: int):
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
