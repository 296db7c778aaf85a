"""Seeded stimulus for the G-Scalar structures, shared by the cocotb testbenches and the
Amaranth-simulator tests (no cocotb import here).

Values are biased toward what G-Scalar exploits (paper-facts §6.2, Fig. 8): scalars,
registers whose top 1..3 bytes are common, half-warp scalars, near misses (a common low
byte under differing high bytes, which the code cannot exploit), plus uniform random.
Masks are biased toward full warps (compressed writes) and sparse or single-lane
divergent masks.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from golden.structures.gscalar.bank import BankOps, BankOutputs, CompressedBank
from golden.structures.gscalar.compressor import Compressor, CompressorOps
from golden.structures.gscalar.decompressor import DecompressorOps
from golden.structures.gscalar.encoding import ENC_CODES
from golden.structures.gscalar.params import GScalarParams, pack_fields, pack_lanes

__all__ = ["VALUE_CLASSES", "similar_values", "biased_mask", "random_compressor_ops",
           "random_decompressor_ops", "random_bank_ops", "bank_coverage", "compressor_coverage",
           "BANK_COVERAGE_GOALS", "COMPRESSOR_COVERAGE_GOALS", "TRACE_WORKLOADS"]

#: Workloads (and the warp followed) whose register traces the bank is replayed on.
TRACE_WORKLOADS = (("BFS", 0), ("HS", 3), ("NQU", 0), ("MM", 0))

VALUE_CLASSES = (("scalar", 4), ("common3", 3), ("common2", 2), ("common1", 2), ("half", 2),
                 ("near_miss", 1), ("random", 2), ("zero", 1))


def similar_values(rng: random.Random, lanes: int) -> tuple[str, np.ndarray]:
    """Draw one register of *lanes* 32-bit values from :data:`VALUE_CLASSES`."""
    kind = rng.choices([k for k, _ in VALUE_CLASSES], [w for _, w in VALUE_CLASSES])[0]
    base = rng.choice([rng.getrandbits(32), rng.getrandbits(8), 0xFFFFFFFF, 0x3F800000])
    if kind == "zero":
        vals = [0] * lanes
    elif kind == "scalar":
        vals = [base] * lanes
    elif kind.startswith("common"):
        k = int(kind[-1])
        low_bits = 8 * (4 - k)
        high = base & ~((1 << low_bits) - 1) & 0xFFFFFFFF
        stride = rng.choice([0, 1, 4, 8, 0x100, None])
        vals = [high | ((i * stride if stride is not None else rng.getrandbits(low_bits))
                        & ((1 << low_bits) - 1)) for i in range(lanes)]
    elif kind == "half":
        other = rng.choice([base, rng.getrandbits(32)])
        vals = [base] * (lanes // 2) + [other] * (lanes - lanes // 2)
    elif kind == "near_miss":
        vals = [(rng.getrandbits(24) << 8) | (base & 0xFF) for _ in range(lanes)]
    else:
        vals = [rng.getrandbits(32) for _ in range(lanes)]
    vals = np.array(vals, dtype=np.uint32)
    if kind != "zero" and lanes > 1 and rng.random() < 0.15:     # one odd lane
        vals[rng.randrange(lanes)] ^= np.uint32(1 << rng.randrange(32))
    return kind, vals


def biased_mask(rng: random.Random, lanes: int, full_p: float = 0.5) -> int:
    """Active mask: full with probability *full_p*, else sparse, single, dense or random."""
    full = (1 << lanes) - 1
    if rng.random() < full_p:
        return full
    kind = rng.choice(["sparse", "single", "dense", "random", "half"])
    if kind == "single":
        return 1 << rng.randrange(lanes)
    if kind == "half":
        half = (1 << (lanes // 2)) - 1
        return rng.choice([half, full ^ half]) or full
    bits = sum(1 << i for i in range(lanes) if rng.random() < 0.15)
    if kind == "sparse":
        return bits or 1
    if kind == "dense":
        return (full ^ bits) or full
    return rng.getrandbits(lanes)


def random_compressor_ops(params: GScalarParams, rng: random.Random, count: int) -> list[CompressorOps]:
    """*count* compressor inputs (values biased, masks biased; 2% empty masks)."""
    out = []
    for _ in range(count):
        _, vals = similar_values(rng, params.lanes)
        mask = 0 if rng.random() < 0.02 else biased_mask(rng, params.lanes)
        out.append(CompressorOps(values=pack_lanes(vals), active=mask))
    return out


def random_decompressor_ops(params: GScalarParams, rng: random.Random, count: int) -> list[DecompressorOps]:
    """*count* decompressor inputs: stored bytes from biased values, any 4-bit code (legal
    codes favoured), random bases, D set 20% of the time."""
    out = []
    for _ in range(count):
        _, vals = similar_values(rng, params.lanes)
        encs = [rng.choice(ENC_CODES) if rng.random() < 0.8 else rng.getrandbits(4)
                for _ in range(params.groups)]
        bases = [rng.getrandbits(32) for _ in range(params.groups)]
        out.append(DecompressorOps(stored=pack_lanes(vals), enc_groups=pack_fields(encs, 4),
                                   base_groups=pack_fields(bases, 32), d=int(rng.random() < 0.2)))
    return out


def random_bank_ops(params: GScalarParams, rng: random.Random, count: int) -> list[BankOps]:
    """*count* cycles of bank requests, mostly produced by the transaction API of a shadow
    golden bank (compressed and divergent writes with their special moves, decompressed
    reads), mixed with raw cycles: a read together with a write (same or other register),
    idle cycles, and divergent writes that skip the special move (``wr_conflict``)."""
    shadow = CompressedBank(params)
    comp = Compressor(params)
    hot = rng.sample(range(params.registers), min(params.registers, 4))
    ops_list: list[BankOps] = []

    def reg() -> int:
        return rng.choice(hot) if rng.random() < 0.6 else rng.randrange(params.registers)

    while len(ops_list) < count:
        r = rng.random()
        if r < 0.45:
            _, vals = similar_values(rng, params.lanes)
            ops_list += [ops for ops, _ in shadow.write_warp(reg(), vals, biased_mask(rng, params.lanes))]
        elif r < 0.75:
            ops_list.append(shadow.read_warp(reg()).ops)
        else:
            _, vals = similar_values(rng, params.lanes)
            mask = biased_mask(rng, params.lanes)
            c = comp.compress(vals, mask)
            ops = BankOps(rd_en=int(rng.random() < 0.7), rd_reg=reg(),
                          wr_en=int(rng.random() < 0.8), wr_reg=reg(), wr_data=pack_lanes(vals),
                          wr_mask=mask, wr_enc=pack_fields(c.enc_groups, 4),
                          wr_base=pack_fields(c.base_groups, 32), wr_fs=int(c.fs),
                          wr_raw=int(rng.random() < 0.1))
            shadow.step(ops)
            ops_list.append(ops)
    return ops_list[:count]


def compressor_coverage(expected, ops: CompressorOps, params: GScalarParams, cov: Counter) -> None:
    """Count the codes seen (per whole register) and divergent / empty masks."""
    cov[f"enc_{expected.enc:04b}"] += 1
    cov["divergent"] += int(ops.active != params.full_mask)
    cov["empty"] += int(ops.active == 0)
    cov["fs"] += expected.fs


COMPRESSOR_COVERAGE_GOALS = {"enc_0000": 20, "enc_1000": 20, "enc_1100": 20, "enc_1110": 20,
                             "enc_1111": 50, "divergent": 100, "empty": 2, "fs": 50}


def bank_coverage(expected: BankOutputs, ops: BankOps, params: GScalarParams, cov: Counter) -> None:
    """Count reads by number of activated arrays, D reads, write kinds and conflicts."""
    if ops.rd_en:
        cov[f"rd_arrays_{bin(expected.rd_arrays).count('1')}"] += 1
        cov["rd_d"] += expected.rd_d
        cov["rd_scalar"] += int(expected.rd_arrays == 0)
    if ops.wr_en:
        kind = "raw" if ops.wr_raw else ("divergent" if ops.wr_mask != params.full_mask else "full")
        cov[f"wr_{kind}"] += 1
        cov["wr_conflict"] += expected.wr_conflict
    cov["rd_and_wr"] += int(bool(ops.rd_en and ops.wr_en))


BANK_COVERAGE_GOALS = {"rd_arrays_0": 20, "rd_d": 20, "rd_scalar": 20, "wr_raw": 20,
                       "wr_divergent": 50, "wr_full": 50, "wr_conflict": 3, "rd_and_wr": 20}
