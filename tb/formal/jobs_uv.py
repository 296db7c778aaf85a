"""Formal jobs of the uniform-vector design (seed 002 ch. 2): uniform detection, the SRF
rename map with its free list, and the instruction reuse buffer (IRB), at small sizes."""

from __future__ import annotations

from amaranth.hdl import Array, Signal

from rtl.uv.detect import UniformDetect
from rtl.uv.irb import IRB
from rtl.uv.srf_map import SRFMap
from tb.formal.flow import FormalJob
from tb.formal.harness import Harness, ports


def _detect(fv):
    dut = UniformDetect(sources=3, warp_size=4)

    def props(m, fv, dut, state):
        fv.cover(m, dut.uniform & (dut.n_reg_sources_uniform == 3), "uniform with three uniform registers")
        fv.cover(m, dut.cow, "copy-on-write of a uniform register")
    return Harness(dut, props), ports(dut)


def _irb(parity, fault_injection):
    def build(fv):
        dut = IRB(entries=4, tag_bits=2, opcode_bits=1, value_bits=2, sources=2,
                  parity=parity, fault_injection=fault_injection)

        def props(m, fv, dut, state):
            fv.cover(m, dut.match & (dut.hit_way == 3), "reuse hit in the last way")
            fv.cover(m, dut.hit & ~dut.match, "tag hit with different sources")
            if parity and fault_injection:
                fv.cover(m, dut.parity_error, "an injected fault is detected")
        return Harness(dut, props), ports(dut)
    return build


VREGS, SRF = 4, 2


def _srf_map(fv):
    dut = SRFMap(vregs=VREGS, srf_entries=SRF, read_ports=1)

    def props(m, fv, dut, state):
        # Environment (the pipeline's contract, golden SRFMap docstring): never two
        # releases in one cycle, and the release port never names the destination.
        fv.assume(m, ~(dut.dst_freed & dut.free_ok), "never two releases in one cycle")
        fv.assume(m, ~(dut.dst_en & dut.free_en & (dut.dst_vreg == dut.free_vreg)),
                  "the release port never names this cycle's destination")
        # Shadow map from the ports: which vreg holds which SRF index.
        mapped = Signal(VREGS, name="shadow_mapped")
        sidx = Array(Signal(range(SRF), name=f"shadow_sidx_{v}") for v in range(VREGS))
        alloc = dut.dst_ok & ~mapped.bit_select(dut.dst_vreg, 1)
        with m.If(alloc):
            m.d.sync += [mapped.bit_select(dut.dst_vreg, 1).eq(1), sidx[dut.dst_vreg].eq(dut.dst_sidx)]
        with m.If(dut.dst_freed):
            m.d.sync += mapped.bit_select(dut.dst_vreg, 1).eq(0)
        with m.If(dut.free_ok):
            m.d.sync += mapped.bit_select(dut.free_vreg, 1).eq(0)
        fv.check(m, ~dut.rd_valid0 | (mapped.bit_select(dut.rd_vreg0, 1)
                                      & (dut.rd_sidx0 == sidx[dut.rd_vreg0])),
                 "a source lookup returns the SRF entry its register was given")
        for v in range(VREGS):
            for w in range(v + 1, VREGS):
                fv.check(m, ~(mapped[v] & mapped[w]) | (sidx[v] != sidx[w]),
                         "no SRF entry is mapped by two vector registers")
        fv.check(m, dut.free_count == SRF - sum(mapped[v] for v in range(VREGS)),
                 "free SRF entries = entries - mapped registers")
        fv.check(m, ~alloc | ~sum(mapped[v] & (sidx[v] == dut.dst_sidx) for v in range(VREGS)).bool(),
                 "a new mapping takes an SRF entry no register holds")
        fv.cover(m, dut.empty & dut.dst_en & dut.dst_uniform & ~dut.dst_ok, "uniform write refused: SRF full")
        fv.cover(m, dut.dst_freed & dut.empty, "a divergent write frees an SRF entry of a full SRF")
    return Harness(dut, props), ports(dut)


JOBS = [
    FormalJob("uv_detect", "UniformDetect", "sources=3, warp_size=4", _detect, depth=2,
              cover_depth=2, rtl_files=("rtl/uv/detect.py",)),
    FormalJob("irb", "IRB", "entries=4, tag=2, opcode=1, value=2 bits, 2 sources", _irb(False, False),
              depth=3, cover_depth=6, rtl_files=("rtl/uv/irb.py",)),
    FormalJob("irb_parity", "IRB", "as irb, parity, no fault injection", _irb(True, False),
              depth=3, cover_depth=6, rtl_files=("rtl/uv/irb.py",)),
    FormalJob("srf_map", "SRFMap", f"vregs={VREGS}, srf_entries={SRF}, 1 read port", _srf_map,
              mode="bmc", depth=12, cover_depth=8, memory_map=True, timeout=120,
              rtl_files=("rtl/uv/srf_map.py",)),
]
