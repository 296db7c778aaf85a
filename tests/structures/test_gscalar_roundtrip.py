"""Property tests of the G-Scalar golden structures (issue 6 item 5).

Compress-then-decompress returns the original lanes (a) for seeded random registers
biased toward similar values and sparse masks, through the vectorised functions, the
compressor/decompressor classes and the bank (divergent partial writes and the special
move included), and (b) for register values recorded from golden functional runs of
real workloads (MM, BFS, HS, BP, NQU). Also hand-worked cases from the paper.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from golden.errors import ConfigError, SimtlabError
from golden.structures.gscalar import (
    CompressedBank, Compressor, Decompressor, GScalarParams, arrays_read, byte_enc,
    common_bytes, decompress, group_arrays_read, group_decompress, group_enc, half_enc,
)
from golden.structures.gscalar.trace import WRITE, bank_cycles, record_register_trace
from tb.gscalar.stimulus import biased_mask, similar_values

SEED = 6003


def _random_batch(rng: random.Random, n: int, lanes: int):
    vals = np.stack([similar_values(rng, lanes)[1] for _ in range(n)])
    masks = [biased_mask(rng, lanes) for _ in range(n)]
    active = np.array([[(m >> i) & 1 for i in range(lanes)] for m in masks], dtype=bool)
    return vals, active


def _naive_common(vals: np.ndarray, act: np.ndarray) -> int:
    """Common MSB bytes over the active lanes, the slow way."""
    live = [int(v) for v, a in zip(vals, act) if a]
    if not live:
        return 0
    k = 0
    for b in (3, 2, 1, 0):
        if len({(v >> (8 * b)) & 0xFF for v in live}) != 1:
            break
        k += 1
    return k


# --------------------------------------------------------------------- hand-worked cases
def test_paper_example_and_codes():
    vals = np.array([[0xC04039C0 + 8 * i for i in range(8)]], dtype=np.uint32)
    enc, base = byte_enc(vals)
    assert enc[0] == 0b1110 and base[0] == 0xC04039C0
    assert arrays_read(enc, lanes=32)[0][0] == 2            # one byte position, 2 arrays
    assert arrays_read(np.array([0b1111]), lanes=32)[0][0] == 0
    assert arrays_read(np.array([0b1111]), d=np.array([True]), lanes=32)[0][0] == 8
    assert arrays_read(np.array([0b0000]), lanes=16)[0][0] == 4
    assert list(common_bytes(np.array([0, 8, 12, 14, 15]))) == [0, 1, 2, 3, 4]
    with pytest.raises(SimtlabError):
        common_bytes(np.array([0b0101]))


def test_divergent_compare_ignores_inactive_lanes():
    """§4.2: lanes 0, 1, 3 active compare as op0, op1, op3; first active lane is the base."""
    vals = np.array([[5, 5, 99, 5, 7, 7, 7, 7]], dtype=np.uint32)
    act = np.array([[1, 1, 0, 1, 0, 0, 0, 0]], dtype=bool)
    assert byte_enc(vals, act)[0][0] == 0b1111
    act2 = np.array([[0, 0, 1, 1, 0, 0, 0, 0]], dtype=bool)
    enc, base = byte_enc(vals, act2)
    assert enc[0] == 0b1110 and base[0] == 99
    enc, base = byte_enc(vals, np.zeros_like(act))          # no active lane
    assert enc[0] == 0 and base[0] == 0


def test_half_enc_and_fs():
    vals = np.array([[3] * 16 + [3] * 16, [3] * 16 + [4] * 16, [3] * 16 + list(range(16))],
                    dtype=np.uint32)
    enc_l, enc_h, base_l, base_h, fs = half_enc(vals)
    assert list(enc_l) == [15, 15, 15] and list(enc_h) == [15, 15, 14]
    assert list(fs) == [True, False, False]
    assert list(base_h[:2]) == [3, 4]
    # 32 lanes, halves activated separately: a scalar low half needs no array of its own.
    assert group_arrays_read(np.array([[15, 14]]), lanes=32)[0][0] == 1
    # 16 lanes: both halves share each array, so the less compressed half decides.
    assert group_arrays_read(np.array([[15, 14]]), lanes=16)[0][0] == 1
    assert group_arrays_read(np.array([[15, 0]]), lanes=16)[0][0] == 4


def test_params_and_bank_errors():
    with pytest.raises(ConfigError):
        GScalarParams(lanes=33)
    with pytest.raises(ConfigError):
        GScalarParams(lanes=15, groups=2)
    with pytest.raises(ConfigError):
        GScalarParams(registers=0)
    bank = CompressedBank(GScalarParams(lanes=8, registers=2))
    with pytest.raises(SimtlabError):
        bank.read_warp(2)
    with pytest.raises(SimtlabError):
        byte_enc(np.zeros(4, dtype=np.uint32))


def test_bank_divergent_write_special_move_and_divergent_scalar():
    """Fig. 7b flavour: compressed register, then a divergent write needs the special move;
    the divergent write stores D=1, enc over active lanes and the mask in the BVR."""
    p = GScalarParams(lanes=8, registers=4)
    bank = CompressedBank(p)
    old = np.array([0x100 + i for i in range(8)], dtype=np.uint32)
    bank.write_warp(1, old)
    assert bank.meta(1).ebr == (0b1110,) and not bank.meta(1).d
    new = np.where(np.arange(8) < 4, 0xFFFFFFFE, old).astype(np.uint32)
    cycles = bank.write_warp(1, new, 0b10001111 & 0x0F)
    assert bank.special_moves == 1 and len(cycles) == 3
    assert all(out.wr_conflict == 0 for _, out in cycles)
    m = bank.meta(1)
    assert m.d and m.ebr == (0b1111,) and m.bvr == (0x0F,) and m.fs
    got = bank.read_warp(1)
    assert np.array_equal(got.values, new) and got.arrays_activated == 4
    # A second divergent write to a D=1 register needs no move.
    bank.write_warp(1, old, 0xF0)
    assert bank.special_moves == 1
    assert np.array_equal(bank.read_warp(1).values, np.where(np.arange(8) < 4, new, old))


# --------------------------------------------------------------------- random properties
@pytest.mark.parametrize("lanes", [32, 16, 8])
def test_roundtrip_random_vectorised(lanes):
    rng = random.Random(SEED + lanes)
    vals, act = _random_batch(rng, 1500, lanes)
    full = np.ones_like(act)
    for a in (full, act):
        enc, base = byte_enc(vals, a)
        k = common_bytes(enc)
        assert [int(x) for x in k] == [_naive_common(v, m) for v, m in zip(vals, a)]
        # Only the uncovered bytes are stored: garbage in covered bytes must not matter.
        cover = np.array([(0xFFFFFFFF << (8 * (4 - int(c)))) & 0xFFFFFFFF if c else 0
                          for c in k], dtype=np.uint32)
        noise = np.array([[rng.getrandbits(32) for _ in range(lanes)] for _ in range(len(vals))],
                         dtype=np.uint32)
        stored = (vals & ~cover[:, None]) | (noise & cover[:, None])
        rebuilt = decompress(stored, enc, base)
        assert np.array_equal(rebuilt[a], vals[a])
    # Group (half-register) compression.
    genc, gbase = group_enc(vals, None, groups=2)
    assert np.array_equal(group_decompress(vals, genc, gbase), vals)
    assert np.all(group_arrays_read(genc, lanes=lanes)[0] <= 4 * -(-lanes // 16))


@pytest.mark.parametrize(("lanes", "groups"), [(32, 1), (32, 2), (16, 1), (16, 2)])
def test_roundtrip_random_bank(lanes, groups):
    """Random full and divergent partial writes to a small bank; every read returns the
    register a plain (uncompressed) model holds, and the activated arrays match arrays_read."""
    p = GScalarParams(lanes=lanes, registers=6, groups=groups)
    rng = random.Random(SEED * 3 + lanes + groups)
    bank = CompressedBank(p)
    shadow = np.zeros((p.registers, lanes), dtype=np.uint32)
    reads = divergent = 0
    for _ in range(600):
        reg = rng.randrange(p.registers)
        if rng.random() < 0.55:
            _, vals = similar_values(rng, lanes)
            mask = biased_mask(rng, lanes)
            cycles = bank.write_warp(reg, vals, mask)
            live = np.array([(mask >> i) & 1 for i in range(lanes)], dtype=bool)
            shadow[reg][live] = vals[live]
            divergent += int(mask != p.full_mask)
            assert all(out.wr_conflict == 0 for _, out in cycles)
        else:
            got = bank.read_warp(reg)
            assert np.array_equal(got.values, shadow[reg]), (reg, got.values, shadow[reg])
            m = bank.meta(reg)
            if groups == 1:
                expect = arrays_read(np.array(m.ebr, dtype=np.uint8), np.array([m.d]), lanes)[0][0]
            else:
                expect = group_arrays_read(np.array([m.ebr], dtype=np.uint8), np.array([m.d]), lanes)[0][0]
            assert got.arrays_activated == int(expect)
            reads += 1
    assert reads > 100 and divergent > 50 and bank.special_moves > 5


def test_compressor_decompressor_classes_agree_with_functions():
    p = GScalarParams(lanes=32, registers=1, groups=2)
    rng = random.Random(SEED + 99)
    comp, dec = Compressor(p), Decompressor(p)
    for _ in range(200):
        _, vals = similar_values(rng, 32)
        c = comp.compress(vals)
        enc_l, enc_h, base_l, base_h, fs = half_enc(vals[None, :])
        assert c.enc_groups == (enc_l[0], enc_h[0]) and c.base_groups == (base_l[0], base_h[0])
        assert c.fs == bool(fs[0]) == (byte_enc(vals[None, :])[0][0] == 15)
        assert np.array_equal(dec.decompress(vals, c.enc_groups, c.base_groups, False), vals)


# --------------------------------------------------------------------- real register values
@pytest.mark.parametrize(("workload", "warp"), [("MM", 0), ("BFS", 0), ("HS", 3), ("BP", 0), ("NQU", 0)])
def test_roundtrip_real_register_values(workload, warp):
    """Register writes recorded from a golden functional run: the vectorised round trip on
    every write (over its active lanes), and a bank replay in which every recorded read
    returns the recorded value (bank_cycles raises otherwise)."""
    trace = record_register_trace(workload, warps=(warp,), max_events=500)
    writes = trace.kind == WRITE
    vals = trace.values[writes]
    masks = trace.mask[writes]
    act = ((masks[:, None] >> np.arange(32, dtype=np.uint64)) & 1).astype(bool)
    enc, base = byte_enc(vals, act)
    assert np.array_equal(decompress(vals, enc, base)[act], vals[act])
    assert [int(x) for x in common_bytes(enc)] == [_naive_common(v, a) for v, a in zip(vals, act)]
    cycles, bank = bank_cycles(trace, GScalarParams(lanes=32, registers=64))
    assert sum(c.expect is not None for c in cycles) == int((~writes).sum()) > 0
    if workload == "NQU":
        assert bank.special_moves > 0 and (masks != 0xFFFFFFFF).any()
