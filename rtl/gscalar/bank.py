"""G-Scalar byte-reordered compressed register-file bank (seed 003 §3.1-§3.3).

Reference model: :class:`golden.structures.gscalar.bank.CompressedBank` (its module
docstring specifies every port, the three write kinds and the activation rule).
"""

from __future__ import annotations

from functools import reduce
from operator import or_

from amaranth.hdl import Cat, Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from rtl.common.lanes import bytes_of, lane_bytes
from rtl.common.params import check_int
from rtl.gscalar._checks import check_lanes_groups

__all__ = ["CompressedBank", "LANES_PER_ARRAY", "READ_OUTPUTS", "READ_LATENCY"]

#: Lanes whose byte ``b`` share one 128-bit array.
LANES_PER_ARRAY = 16

#: Output ports that arrive READ_LATENCY cycles after the read request.
READ_OUTPUTS = ("rd_data", "rd_enc", "rd_bvr", "rd_d", "rd_fs", "rd_arrays", "rd_meta")
READ_LATENCY = 1


class CompressedBank(wiring.Component):
    """Compressed register-file bank: byte arrays with byte write enables plus BVR/EBR/D/FS.

    Storage. ``4 * ceil(lanes / 16)`` byte arrays (8 for 32 lanes), array ``(b, a)``
    holding byte ``b`` of lanes ``16 a .. 16 a + 15`` for every register, each with one
    write enable per byte (``amaranth.lib.memory.Memory`` with 8-bit granularity); and a
    metadata array of ``32 g + 4 g + 2`` bits per register (BVR, EBR, D, FS; 38 bits for
    ``groups == 1``).

    Timing. A read returns the start-of-cycle contents one cycle later (latency 1): the
    byte arrays are synchronous-read memories (SRAM macros in the area flow), read only
    when activated; the metadata array (flip-flops, asynchronous read) is looked up in the
    request cycle to choose the arrays and check the write, and every ``rd_*`` output is
    registered. The golden model is latency 0; :data:`READ_OUTPUTS` seen through
    :class:`golden.structures.registered.Registered` is this port timing. Writes take effect
    at the next clock edge; ``wr_*`` outputs are combinational. One read and one write per
    cycle (the paper's bank is single-ported; the operand collector's arbiter never asks
    for both, the model allows it). Memories are not cleared by reset.

    Parameters
    ----------
    lanes : int
        Lanes per register, 1..32.
    registers : int
        Registers in the bank (64 in the paper).
    groups : int
        1 or 2 compression groups (half-register compression).

    Attributes
    ----------
    rd_en : Signal(1), in
        Read ``rd_reg`` this cycle; every ``rd_*`` output is 0 otherwise.
    rd_reg : Signal(range(registers)), in
        Register to read.
    rd_data : Signal(32 * lanes), out
        Bytes of the activated arrays (lane ``i`` in bits ``[32 i, 32 i + 32)``); 0 elsewhere.
    rd_enc : Signal(4 * groups), out
        EBR of the register.
    rd_bvr : Signal(32 * groups), out
        BVR of the register (the writer's active mask when ``rd_d``).
    rd_d : Signal(1), out
        D bit (last written by a divergent instruction).
    rd_fs : Signal(1), out
        FS bit (full scalar).
    rd_arrays : Signal(4 * ceil(lanes / 16)), out
        Activated byte arrays, bit ``b * ceil(lanes / 16) + a``.
    rd_meta : Signal(1), out
        The metadata array was read (= ``rd_en``).
    wr_en : Signal(1), in
        Write ``wr_reg`` at the next edge.
    wr_reg : Signal(range(registers)), in
        Register to write.
    wr_data : Signal(32 * lanes), in
        Lane values to write.
    wr_mask : Signal(lanes), in
        Active mask of the writer; not all ones = divergent write (stored uncompressed).
    wr_enc : Signal(4 * groups), in
        Codes from the compressor.
    wr_base : Signal(32 * groups), in
        Bases from the compressor.
    wr_fs : Signal(1), in
        FS from the compressor.
    wr_raw : Signal(1), in
        Special-move write: store the lanes of ``wr_mask`` uncompressed, metadata cleared.
    wr_arrays : Signal(4 * ceil(lanes / 16)), out
        Byte arrays with at least one byte write enable set.
    wr_meta : Signal(1), out
        The metadata array is written (= ``wr_en``).
    wr_conflict : Signal(1), out
        Divergent non-raw write to a compressed register (special move missing).
    """

    def __init__(self, *, lanes: int = 32, registers: int = 64, groups: int = 1):
        check_lanes_groups(lanes, groups)
        check_int("CompressedBank", "registers", registers, 1)
        self._lanes, self._registers, self._groups = lanes, registers, groups
        self._per = -(-lanes // LANES_PER_ARRAY)
        arrays = 4 * self._per
        reg = range(registers)
        super().__init__({
            "rd_en": In(1),
            "rd_reg": In(reg),
            "rd_data": Out(32 * lanes),
            "rd_enc": Out(4 * groups),
            "rd_bvr": Out(32 * groups),
            "rd_d": Out(1),
            "rd_fs": Out(1),
            "rd_arrays": Out(arrays),
            "rd_meta": Out(1),
            "wr_en": In(1),
            "wr_reg": In(reg),
            "wr_data": In(32 * lanes),
            "wr_mask": In(lanes),
            "wr_enc": In(4 * groups),
            "wr_base": In(32 * groups),
            "wr_fs": In(1),
            "wr_raw": In(1),
            "wr_arrays": Out(arrays),
            "wr_meta": Out(1),
            "wr_conflict": Out(1),
        })

    @property
    def lanes(self) -> int:
        return self._lanes

    @property
    def registers(self) -> int:
        return self._registers

    @property
    def groups(self) -> int:
        return self._groups

    def _array_lanes(self, a: int) -> list[int]:
        return list(range(a * LANES_PER_ARRAY, min(self._lanes, (a + 1) * LANES_PER_ARRAY)))

    def elaborate(self, platform):
        m = Module()
        lanes, groups, per = self._lanes, self._groups, self._per
        width = lanes // groups
        meta_bits = 32 * groups + 4 * groups + 2

        # Metadata array: Cat(bvr, ebr, d, fs); one read port for reads, one for the
        # conflict check of the write.
        m.submodules.meta = meta = Memory(shape=unsigned(meta_bits), depth=self._registers, init=[])
        meta_rd = meta.read_port(domain="comb")
        meta_chk = meta.read_port(domain="comb")
        meta_wr = meta.write_port()

        def split(word):
            bvr = word[: 32 * groups]
            ebr = word[32 * groups: 36 * groups]
            return bvr, ebr, word[36 * groups], word[36 * groups + 1]

        # ------------------------------------------------------------------ read
        # The metadata is read in the request cycle (it decides which arrays are activated);
        # every rd_* output is registered, arriving with the arrays' data one cycle later.
        m.d.comb += meta_rd.addr.eq(self.rd_reg)
        bvr_r, ebr_r, d_r, fs_r = split(meta_rd.data)
        m.d.sync += [
            self.rd_enc.eq(Mux(self.rd_en, ebr_r, 0)),
            self.rd_bvr.eq(Mux(self.rd_en, bvr_r, 0)),
            self.rd_d.eq(self.rd_en & d_r),
            self.rd_fs.eq(self.rd_en & fs_r),
            self.rd_meta.eq(self.rd_en),
        ]

        # ------------------------------------------------------------------ write decode
        m.d.comb += meta_chk.addr.eq(self.wr_reg)
        _, ebr_w, d_w, _ = split(meta_chk.data)
        divergent = Signal()
        m.d.comb += divergent.eq(self.wr_mask != (1 << lanes) - 1)
        uncompressed = Signal()
        m.d.comb += uncompressed.eq(self.wr_raw | divergent)
        # we[b][l]: byte b of lane l is written.
        we = [[Signal(name=f"we_b{b}_l{l}") for l in range(lanes)] for b in range(4)]
        for b in range(4):
            for l in range(lanes):
                g = l // width
                m.d.comb += we[b][l].eq(self.wr_en & Mux(uncompressed, self.wr_mask[l],
                                                         ~self.wr_enc[4 * g + b]))
        m.d.comb += [
            self.wr_meta.eq(self.wr_en),
            self.wr_conflict.eq(self.wr_en & ~self.wr_raw & divergent & ~d_w & ebr_w.any()),
        ]
        meta_new = Signal(meta_bits)
        m.d.comb += meta_new.eq(Mux(self.wr_raw, 0, Cat(
            Mux(divergent, self.wr_mask, self.wr_base)[: 32 * groups], self.wr_enc,
            divergent, self.wr_fs)))
        m.d.comb += [meta_wr.addr.eq(self.wr_reg), meta_wr.en.eq(self.wr_en),
                     meta_wr.data.eq(meta_new)]

        # ------------------------------------------------------------------ byte arrays
        rd_bytes = {}          # (b, lane) -> 8-bit value on rd_data
        wr_bytes = lane_bytes(self.wr_data, lanes)
        rd_act, wr_act = [], []
        for b in range(4):
            for a in range(per):
                arr_lanes = self._array_lanes(a)
                owners = sorted({l // width for l in arr_lanes})
                arr = Memory(shape=unsigned(8 * len(arr_lanes)), depth=self._registers, init=[])
                m.submodules[f"array_b{b}_a{a}"] = arr
                wp = arr.write_port(granularity=8)
                rp = arr.read_port()   # synchronous: an SRAM macro (only activated arrays read)
                act = Signal(name=f"rd_act_b{b}_a{a}")
                act_q = Signal(name=f"rd_act_q_b{b}_a{a}")
                m.d.comb += [
                    wp.addr.eq(self.wr_reg),
                    wp.data.eq(Cat(wr_bytes[l][b] for l in arr_lanes)),
                    wp.en.eq(Cat(we[b][l] for l in arr_lanes)),
                    rp.addr.eq(self.rd_reg),
                    rp.en.eq(act),
                    act.eq(self.rd_en & (d_r | reduce(or_, [~ebr_r[4 * g + b] for g in owners]))),
                ]
                m.d.sync += act_q.eq(act)
                rd_act.append(act_q)
                wr_act.append(reduce(or_, [we[b][l] for l in arr_lanes]))
                for i, l in enumerate(arr_lanes):
                    rd_bytes[b, l] = Mux(act_q, bytes_of(rp.data, len(arr_lanes))[i], 0)
        m.d.comb += [
            self.rd_arrays.eq(Cat(*rd_act)),
            self.wr_arrays.eq(Cat(*wr_act)),
            self.rd_data.eq(Cat(rd_bytes[b, l] for l in range(lanes) for b in range(4))),
        ]
        return m
