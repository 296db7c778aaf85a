"""Reference model of the scalar register file (SRF) renaming map table and its free list
of SRF indices, one per SM (seed 002 ch. 2, §2.4.2; digest: paper-facts §2.5).

What it stores
--------------
* the map table: one entry per physical vector register (``vregs`` = 512, the 64 KB
  register file of the GTX285-like baseline), each a ``valid`` bit and the SRF index the
  register is mapped to (``sidx_bits`` = log2(srf_entries) = 7 bits for 128 entries);
* the free list of SRF indices: :class:`golden.structures.freelist.FreeList` over
  ``srf_entries`` indices (one free bit each, lowest-first allocation).

:attr:`SRFMapParams.state_bits` = vregs x (1 + 7) + 128 = 4,224 bits at the paper's
size. The paper states 512 x 7 bits (3,584) and mentions no valid bit; with every one of
the 7-bit codes naming an SRF entry, the map needs a valid bit (or an eighth "unmapped"
code, the same bit) to tell a mapped register from one that lives in the vector register
file -- which is exactly the uniform-source test of detection (§2.3). The SRF itself (128 x
32 bits of values) is a register file, not part of this structure.

Per-cycle interface (shared port for port with :class:`rtl.uv.srf_map.SRFMap`)
------------------------------------------------------------------------------
Combinational, on the start-of-cycle state:

1. source lookups ``rd_en{i}`` of ``rd_vreg{i}`` (i < ``read_ports``) -> ``rd_valid{i}``
   (mapped: the source is uniform and is read from the SRF) and ``rd_sidx{i}`` (its SRF
   index; 0 when not mapped or not enabled);
2. ``free_count`` (free SRF entries) and ``empty`` (none free);
3. destination ``dst_en`` of ``dst_vreg``:

   * ``dst_uniform`` = 1 (a uniform instruction writes it): if the register is already
     mapped it keeps its SRF entry (``dst_ok`` = 1, ``dst_sidx`` = that entry, no free-list
     traffic); otherwise the free list's lowest free index is allocated and mapped
     (``dst_ok`` = 1, ``dst_sidx`` = it) or, if the free list is empty, nothing changes
     and ``dst_ok`` = 0 (the structural hazard: the instruction executes as a vector);
   * ``dst_uniform`` = 0 (a regular vector instruction redefines it): if it is mapped,
     the mapping is cleared and the index returned to the free list (``dst_freed`` = 1,
     ``dst_sidx`` = the freed index); otherwise nothing happens.

   ``dst_ok`` = the destination is in the SRF after this cycle; all dst outputs are 0
   without ``dst_en``;
4. release ``free_en`` of ``free_vreg`` (register death, warp exit): if mapped, the
   mapping is cleared and its index returned (``free_ok`` = 1, ``free_sidx`` = the index).

State change at the end of the cycle: the map writes of 3 and 4 and the free list's
alloc/free. Every decision sees the start-of-cycle state; an index freed in a cycle is
allocatable from the next cycle (the shared FreeList's rule). Requests that are errors
(:class:`~golden.errors.SimtlabError`): ``dst_en`` and ``free_en`` on the same register in
one cycle, and two releases in one cycle (a vector redefinition of a mapped register plus
a ``free_en`` of another mapped register): the free list has one free port, so the
mechanism releases one register per cycle. Out-of-range ports are errors too.

Which registers are written uniformly (detection, :mod:`.detect`), and the copy-on-write
for divergent writes of mapped registers, are the mechanism's business. The ops always
carry three read ports; with ``read_ports`` < 3 the unused ones must stay idle.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import SimtlabError
from golden.structures._check import below, fits, param_int, width_of
from golden.structures.freelist import FreeList, FreeListParams
from golden.structures.ports import OutputPorts

__all__ = ["SRFMapParams", "SRFMapOps", "SRFMapOutputs", "SRFMap"]

STRUCT = "uv_srf_map"

#: Read ports carried by the ops (``rd_en0..2``).
MAX_READ_PORTS = 3


@dataclass(frozen=True)
class SRFMapParams:
    """Sizes of one SM's SRF map; defaults are the paper's 512 registers x 128 SRF entries.

    Attributes
    ----------
    vregs : int
        Physical vector registers (map entries), >= 2 (512).
    srf_entries : int
        SRF entries managed by the free list, >= 2 (128; the paper sweeps 16 to 256).
    read_ports : int
        Source lookups per cycle, 1..3 (3).
    """

    vregs: int = 512
    srf_entries: int = 128
    read_ports: int = 3

    def __post_init__(self):
        param_int(STRUCT, "vregs", self.vregs, 2)
        param_int(STRUCT, "srf_entries", self.srf_entries, 2)
        param_int(STRUCT, "read_ports", self.read_ports, 1, MAX_READ_PORTS)

    @property
    def vreg_bits(self) -> int:
        """Bits of a vector register number (9 for 512)."""
        return width_of(self.vregs)

    @property
    def sidx_bits(self) -> int:
        """Bits of an SRF index (7 for 128)."""
        return width_of(self.srf_entries)

    @property
    def paper_map_bits(self) -> int:
        """The paper's map table, vregs x sidx_bits: 3,584 bits."""
        return self.vregs * self.sidx_bits

    @property
    def map_bits(self) -> int:
        """Our map table, vregs x (valid + index): 4,096 bits."""
        return self.vregs * (1 + self.sidx_bits)

    @property
    def state_bits(self) -> int:
        """Map table + free list (one bit per SRF entry): 4,224 bits."""
        return self.map_bits + self.srf_entries


@dataclass(frozen=True)
class SRFMapOps:
    """Requests of one cycle (RTL input ports)."""

    rd_en0: int = 0
    rd_vreg0: int = 0
    rd_en1: int = 0
    rd_vreg1: int = 0
    rd_en2: int = 0
    rd_vreg2: int = 0
    dst_en: int = 0
    dst_vreg: int = 0
    dst_uniform: int = 0
    free_en: int = 0
    free_vreg: int = 0


@dataclass(frozen=True)
class SRFMapOutputs(OutputPorts):
    """Every RTL output port in one cycle."""

    rd_valid0: int
    rd_sidx0: int
    rd_valid1: int
    rd_sidx1: int
    rd_valid2: int
    rd_sidx2: int
    dst_ok: int
    dst_sidx: int
    dst_freed: int
    free_ok: int
    free_sidx: int
    free_count: int
    empty: int


class SRFMap:
    """SRF renaming map table + SRF index free list of one SM (see module docstring)."""

    def __init__(self, params: SRFMapParams | None = None, *, recorder=None, check: bool = True):
        params = SRFMapParams() if params is None else params
        if not isinstance(params, SRFMapParams):
            raise SimtlabError(f"{STRUCT}: expected SRFMapParams, not {type(params).__name__}")
        self._p = params
        self._checked = check or recorder is not None
        self._recorder = recorder
        self.valid = [False] * params.vregs
        self.index = [0] * params.vregs
        self.freelist = FreeList(FreeListParams(entries=params.srf_entries))

    @property
    def params(self) -> SRFMapParams:
        return self._p

    @property
    def free_count(self) -> int:
        """Free SRF entries now."""
        return self.freelist.free_count

    def mapping(self, vreg: int) -> int | None:
        """SRF index of ``vreg`` or None (inspection, not a cycle)."""
        below(STRUCT, "vreg", vreg, self._p.vregs)
        return self.index[vreg] if self.valid[vreg] else None

    # ------------------------------------------------------------------ one cycle
    def _check(self, ops: SRFMapOps) -> None:
        p = self._p
        for name in ("rd_en0", "rd_en1", "rd_en2", "dst_en", "dst_uniform", "free_en"):
            fits(STRUCT, name, getattr(ops, name), 1)
        for name in ("rd_vreg0", "rd_vreg1", "rd_vreg2", "dst_vreg", "free_vreg"):
            fits(STRUCT, name, getattr(ops, name), p.vreg_bits)
        for i in range(MAX_READ_PORTS):
            if getattr(ops, f"rd_en{i}"):
                if i >= p.read_ports:
                    raise SimtlabError(f"{STRUCT}: rd_en{i} but the map has {p.read_ports} "
                                       f"read port(s)")
                below(STRUCT, f"rd_vreg{i}", getattr(ops, f"rd_vreg{i}"), p.vregs)
        if ops.dst_en:
            below(STRUCT, "dst_vreg", ops.dst_vreg, p.vregs)
        if ops.free_en:
            below(STRUCT, "free_vreg", ops.free_vreg, p.vregs)
        if ops.dst_en and ops.free_en:
            if ops.dst_vreg == ops.free_vreg:
                raise SimtlabError(f"{STRUCT}: dst and free of the same register "
                                   f"{ops.dst_vreg} in one cycle")
            if (not ops.dst_uniform and self.valid[ops.dst_vreg]
                    and self.valid[ops.free_vreg]):
                raise SimtlabError(
                    f"{STRUCT}: two releases in one cycle (vector redefinition of mapped "
                    f"register {ops.dst_vreg} and free of mapped register {ops.free_vreg}); "
                    f"the SRF free list has one free port")

    def step(self, ops: SRFMapOps) -> SRFMapOutputs:
        """Apply one cycle of requests (all judged on the start-of-cycle state)."""
        if not isinstance(ops, SRFMapOps):
            raise SimtlabError(f"{STRUCT}.step: expected SRFMapOps, not {type(ops).__name__}")
        if self._checked:
            self._check(ops)
        out: dict[str, int] = {}
        for i in range(MAX_READ_PORTS):
            vreg = getattr(ops, f"rd_vreg{i}")
            ok = bool(getattr(ops, f"rd_en{i}")) and self.valid[vreg]
            out[f"rd_valid{i}"] = int(ok)
            out[f"rd_sidx{i}"] = self.index[vreg] if ok else 0
        fl = self.freelist
        out["free_count"] = fl.free_count
        out["empty"] = int(fl.empty)
        dst_ok = dst_sidx = dst_freed = free_ok = free_sidx = 0
        alloc = release = None           # (vreg) to map / (vreg) to unmap
        unmap = []
        if ops.dst_en:
            mapped = self.valid[ops.dst_vreg]
            if ops.dst_uniform:
                if mapped:
                    dst_ok, dst_sidx = 1, self.index[ops.dst_vreg]
                elif not fl.empty:
                    dst_ok, dst_sidx = 1, fl.next_index
                    alloc = ops.dst_vreg
            elif mapped:
                dst_freed, dst_sidx = 1, self.index[ops.dst_vreg]
                unmap.append(ops.dst_vreg)
        if ops.free_en and self.valid[ops.free_vreg]:
            free_ok, free_sidx = 1, self.index[ops.free_vreg]
            unmap.append(ops.free_vreg)
        # end of cycle: one alloc and at most one free on the shared FreeList
        if alloc is not None:
            fl.alloc()
            self.valid[alloc], self.index[alloc] = True, dst_sidx
        for release in unmap:
            self._unmap(release)
        out.update(dst_ok=dst_ok, dst_sidx=dst_sidx, dst_freed=dst_freed, free_ok=free_ok,
                   free_sidx=free_sidx)
        result = SRFMapOutputs(**out)
        if self._recorder is not None:
            self._recorder.record(ops, result)
        return result

    # ------------------------------------------------------------------ mechanism API
    # Each method is one step() with one request. Without checks or a recorder (the
    # timing mechanism's path) it makes the same state change without building the
    # request / output records (tests/structures/test_uv_srf_map.py compares the two).
    def lookup(self, vreg: int) -> int | None:
        """One cycle with a source lookup on port 0: the SRF index of ``vreg`` or None."""
        if not self._checked:
            return self.index[vreg] if self.valid[vreg] else None
        out = self.step(SRFMapOps(rd_en0=1, rd_vreg0=vreg))
        return out.rd_sidx0 if out.rd_valid0 else None

    def _unmap(self, vreg: int) -> int:
        sidx = self.index[vreg]
        if not self.freelist.free(sidx):
            raise SimtlabError(f"{STRUCT}: internal error: SRF index {sidx} of register "
                               f"{vreg} already free")
        self.valid[vreg] = False
        return sidx

    def define(self, vreg: int, uniform: bool) -> tuple[bool, int | None]:
        """One cycle writing destination ``vreg``: uniform (map it) or vector (unmap it).

        Returns ``(ok, sidx)``: ``ok`` = the register is in the SRF afterwards (False for a
        vector write, or a uniform write that found the free list empty); ``sidx`` = the
        SRF index kept, allocated or freed, None when no index was involved.
        """
        if not self._checked:
            if not self.valid[vreg]:
                if not uniform:
                    return False, None
                sidx = self.freelist.alloc()
                if sidx is None:
                    return False, None
                self.valid[vreg], self.index[vreg] = True, sidx
                return True, sidx
            if uniform:
                return True, self.index[vreg]
            return False, self._unmap(vreg)
        out = self.step(SRFMapOps(dst_en=1, dst_vreg=vreg, dst_uniform=int(bool(uniform))))
        return bool(out.dst_ok), (out.dst_sidx if out.dst_ok or out.dst_freed else None)

    def release(self, vreg: int) -> bool:
        """One cycle unmapping ``vreg`` (register death, warp exit); True if it was mapped."""
        if not self._checked:
            if not self.valid[vreg]:
                return False
            self._unmap(vreg)
            return True
        return bool(self.step(SRFMapOps(free_en=1, free_vreg=vreg)).free_ok)
