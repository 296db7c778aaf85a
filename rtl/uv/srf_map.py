"""Scalar register file (SRF) renaming map table with its free list of SRF indices, one
per SM (seed 002 ch. 2, §2.4.2).

Reference model, port for port and cycle for cycle:
:class:`golden.structures.uv.srf_map.SRFMap` (its docstring gives the per-cycle rules).
Storage:

* the SRF indices of the map, ``vregs`` x log2(srf_entries) bits, in an
  :class:`amaranth.lib.memory.Memory` named ``map`` with asynchronous read ports (the
  ``read_ports`` source lookups, the destination's and the release port's) and one write
  port (the allocation). Like an SRAM it is not cleared by ``rst``; it need not be, since
  an index is only used while its valid bit is set;
* the valid bits, ``vregs`` flip-flops (``map_valid``) cleared by ``rst``: a map table
  must start empty (and be flash-cleared at kernel end), which an SRAM cannot do, and the
  valid bit is read and written by several ports in one cycle;
* the free list of SRF indices: :class:`rtl.common.freelist.FreeList` (one alloc and one
  free per cycle; a cycle never releases two registers, see the golden docstring).

Latency: every output is combinational on the start-of-cycle state (0 cycles); map and
free-list changes are visible from the next cycle.
"""

from __future__ import annotations

from amaranth.hdl import Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from rtl.common.freelist import FreeList
from rtl.darsie._util import check_int, index_width

__all__ = ["SRFMap"]

MAX_READ_PORTS = 3


class SRFMap(wiring.Component):
    """SRF renaming map + SRF index free list (see module docstring).

    Parameters
    ----------
    vregs : int
        Physical vector registers = map entries (512).
    srf_entries : int
        SRF entries (128).
    read_ports : int
        Source lookup ports built, 1..3 (3); the ports beyond it exist and read as 0.

    Ports are the fields of :class:`golden.structures.uv.SRFMapOps` (inputs) and
    :class:`golden.structures.uv.SRFMapOutputs` (outputs), same names and meanings.
    """

    def __init__(self, *, vregs: int = 512, srf_entries: int = 128, read_ports: int = 3):
        self._vregs = check_int("SRFMap", "vregs", vregs, 2)
        self._srf = check_int("SRFMap", "srf_entries", srf_entries, 2)
        self._read_ports = check_int("SRFMap", "read_ports", read_ports, 1)
        if read_ports > MAX_READ_PORTS:
            raise ValueError(f"SRFMap read_ports must be at most {MAX_READ_PORTS}, not {read_ports}")
        vb, sb = index_width(vregs), index_width(srf_entries)
        ports = {}
        for i in range(MAX_READ_PORTS):
            ports.update({f"rd_en{i}": In(1), f"rd_vreg{i}": In(vb),
                          f"rd_valid{i}": Out(1), f"rd_sidx{i}": Out(sb)})
        ports.update({
            "dst_en": In(1), "dst_vreg": In(vb), "dst_uniform": In(1),
            "free_en": In(1), "free_vreg": In(vb),
            "dst_ok": Out(1), "dst_sidx": Out(sb), "dst_freed": Out(1),
            "free_ok": Out(1), "free_sidx": Out(sb),
            "free_count": Out(range(srf_entries + 1)), "empty": Out(1),
        })
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        sb = index_width(self._srf)
        valid = Signal(self._vregs, name="map_valid")
        m.submodules.map = table = Memory(shape=unsigned(sb), depth=self._vregs, init=[])
        m.submodules.freelist = fl = FreeList(entries=self._srf)

        def lookup(vreg):
            port = table.read_port(domain="comb")
            m.d.comb += port.addr.eq(vreg)
            return valid.bit_select(vreg, 1), port.data

        # 1. source lookups
        for i in range(self._read_ports):
            v, idx = lookup(getattr(self, f"rd_vreg{i}"))
            ok = getattr(self, f"rd_en{i}") & v
            m.d.comb += [getattr(self, f"rd_valid{i}").eq(ok),
                         getattr(self, f"rd_sidx{i}").eq(Mux(ok, idx, 0))]

        # 3. destination, 4. release port (start-of-cycle state)
        dst_mapped, dst_idx = lookup(self.dst_vreg)
        free_mapped, free_idx = lookup(self.free_vreg)
        keep = Signal()
        alloc = Signal()
        dst_freed = Signal()
        free_ok = Signal()
        m.d.comb += [
            keep.eq(self.dst_en & self.dst_uniform & dst_mapped),
            alloc.eq(self.dst_en & self.dst_uniform & ~dst_mapped & ~fl.empty),
            dst_freed.eq(self.dst_en & ~self.dst_uniform & dst_mapped),
            free_ok.eq(self.free_en & free_mapped),
            self.dst_ok.eq(keep | alloc),
            self.dst_freed.eq(dst_freed),
            self.dst_sidx.eq(Mux(keep | dst_freed, dst_idx, Mux(alloc, fl.alloc_index, 0))),
            self.free_ok.eq(free_ok),
            self.free_sidx.eq(Mux(free_ok, free_idx, 0)),
            self.free_count.eq(fl.free_count),
            self.empty.eq(fl.empty),
            # free list: one alloc, one free (never two releases in one cycle)
            fl.alloc.eq(alloc),
            fl.free.eq(dst_freed | free_ok),
            fl.free_index.eq(Mux(dst_freed, dst_idx, free_idx)),
        ]
        wp = table.write_port()
        m.d.comb += [wp.en.eq(alloc), wp.addr.eq(self.dst_vreg), wp.data.eq(fl.alloc_index)]
        with m.If(alloc):
            m.d.sync += valid.bit_select(self.dst_vreg, 1).eq(1)
        with m.If(dst_freed):
            m.d.sync += valid.bit_select(self.dst_vreg, 1).eq(0)
        with m.If(free_ok):
            m.d.sync += valid.bit_select(self.free_vreg, 1).eq(0)
        return m
