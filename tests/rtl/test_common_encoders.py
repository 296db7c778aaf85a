# amaranth: UnusedElaboratable=no
"""Amaranth-simulator unit tests of the combinational rtl/common primitives.

PriorityEncoder, LeadingOneDetector and PopCount are each driven with corner-case and
seeded random inputs at several widths (exhaustively where the width is small) and every
output is compared with the golden class of the same name in golden/structures. The
cocotb testbenches in tb/common do the same on the exported Verilog under Icarus.
"""

from __future__ import annotations

import itertools
import os
import random

import pytest
from amaranth.sim import Simulator

from golden.errors import ConfigError, SimtlabError
from golden.structures.leading_one import LeadingOneDetector as GoldenLeadingOne
from golden.structures.popcount import PopCount as GoldenPopCount
from golden.structures.priority_encoder import PriorityEncoder as GoldenPriorityEncoder
from rtl.common.leading_one import LeadingOneDetector
from rtl.common.popcount import PopCount
from rtl.common.priority_encoder import PriorityEncoder

WIDTHS = [1, 7, 16]
RANDOM_VECTORS = 400


def _seed() -> int:
    return int(os.environ.get("SIMTLAB_SEED", "1"), 0)


def stimulus(width: int, seed: int) -> list[int]:
    """Every value for width <= 8; otherwise corners plus seeded random vectors."""
    full = (1 << width) - 1
    if width <= 8:
        return list(range(1 << width))
    rng = random.Random(seed)
    print(f"stimulus: width {width}, seed {seed}")
    vectors = [0, full]
    vectors += [1 << i for i in range(width)]
    vectors += [(1 << i) | (1 << j) for i, j in itertools.combinations(range(width), 2)]
    vectors += [full >> i for i in range(width)] + [(full << i) & full for i in range(width)]
    for _ in range(RANDOM_VECTORS):
        density = rng.choice([0.05, 0.5, 0.95])
        vectors.append(sum(1 << i for i in range(width) if rng.random() < density))
    return vectors


def simulate(dut, in_port: str, out_ports: tuple[str, ...], vectors: list[int]) -> list[tuple[int, ...]]:
    """Apply each vector to *in_port* and collect the settled values of *out_ports*."""
    responses: list[tuple[int, ...]] = []

    async def bench(ctx):
        for value in vectors:
            ctx.set(getattr(dut, in_port), value)
            responses.append(tuple(ctx.get(getattr(dut, port)) for port in out_ports))

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return responses


def assert_all_match(vectors, expected, got, what):
    bad = [(hex(v), e, g) for v, e, g in zip(vectors, expected, got) if e != g]
    assert len(got) == len(vectors)
    assert not bad, f"{what}: {len(bad)} of {len(vectors)} mismatches, first (input, expected, got): {bad[:5]}"


# --- priority encoder -------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_priority_encoder_matches_golden(width):
    dut = PriorityEncoder(width=width)
    golden = GoldenPriorityEncoder(width)
    vectors = stimulus(width, _seed())
    got = simulate(dut, "requests", ("index", "valid"), vectors)
    expected = [(r.index, int(r.valid)) for r in map(golden.encode, vectors)]
    assert_all_match(vectors, expected, got, f"PriorityEncoder(width={width})")


def test_priority_encoder_ports_and_conventions():
    dut = PriorityEncoder(width=16)
    assert dut.width == 16 and dut.index_width == 4
    assert len(dut.requests) == 16 and len(dut.index) == 4 and len(dut.valid) == 1
    assert len(PriorityEncoder(width=1).index) == 1
    assert len(PriorityEncoder(width=17).index) == 5
    golden = GoldenPriorityEncoder(16)
    assert golden.encode(0) == (0, False)             # index defined as 0 when not valid
    assert golden.encode(0b1011_0000) == (4, True)   # lowest set index wins ties
    assert golden.encode(0xFFFF) == (0, True)


# --- leading-one detector ---------------------------------------------------------------

@pytest.mark.parametrize("msb_first", [False, True])
@pytest.mark.parametrize("width", WIDTHS)
def test_leading_one_matches_golden(width, msb_first):
    dut = LeadingOneDetector(width=width, msb_first=msb_first)
    golden = GoldenLeadingOne(width, msb_first=msb_first)
    vectors = stimulus(width, _seed())
    got = simulate(dut, "bits", ("onehot", "valid"), vectors)
    expected = [(r.onehot, int(r.valid)) for r in map(golden.detect, vectors)]
    assert_all_match(vectors, expected, got, f"LeadingOneDetector(width={width}, msb_first={msb_first})")


def test_leading_one_conventions():
    mask = 0b0100000011111010                         # G-Scalar Fig. 7a active mask
    assert GoldenLeadingOne(16, msb_first=True).detect(mask) == (1 << 14, True)
    assert GoldenLeadingOne(16).detect(mask) == (1 << 1, True)
    assert GoldenLeadingOne(16).detect(0) == (0, False)
    got = simulate(LeadingOneDetector(width=16, msb_first=True), "bits", ("onehot", "valid"), [mask])
    assert got == [(1 << 14, 1)]
    dut = LeadingOneDetector(width=8)
    assert dut.width == 8 and dut.msb_first is False
    assert len(dut.bits) == len(dut.onehot) == 8 and len(dut.valid) == 1


# --- population count -------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS + [32])
def test_popcount_matches_golden(width):
    dut = PopCount(width=width)
    golden = GoldenPopCount(width)
    vectors = stimulus(width, _seed())
    got = simulate(dut, "bits", ("count",), vectors)
    expected = [(golden.count(v),) for v in vectors]
    assert_all_match(vectors, expected, got, f"PopCount(width={width})")


def test_popcount_ports():
    assert len(PopCount(width=1).count) == 1
    assert len(PopCount(width=7).count) == 3
    assert len(PopCount(width=8).count) == 4      # must hold 8 itself
    assert len(PopCount(width=32).count) == 6
    assert PopCount(width=32).count_width == 6


# --- parameter and input validation -----------------------------------------------------

@pytest.mark.parametrize("cls", [PriorityEncoder, LeadingOneDetector, PopCount])
def test_rtl_rejects_bad_width(cls):
    with pytest.raises(TypeError, match="width must be an integer"):
        cls(width="8")
    with pytest.raises(TypeError, match="width must be an integer"):
        cls(width=True)
    with pytest.raises(ValueError, match="width must be at least 1"):
        cls(width=0)
    with pytest.raises(TypeError):
        cls(8)  # keyword-only


def test_rtl_rejects_bad_msb_first():
    with pytest.raises(TypeError, match="msb_first must be a bool"):
        LeadingOneDetector(width=8, msb_first=1)


@pytest.mark.parametrize("make", [
    lambda w: GoldenPriorityEncoder(w).encode,
    lambda w: GoldenLeadingOne(w).detect,
    lambda w: GoldenPopCount(w).count,
])
def test_golden_validation(make):
    with pytest.raises(ConfigError):
        make(0)
    op = make(8)
    with pytest.raises(SimtlabError, match="does not fit in 8 bits"):
        op(256)
    with pytest.raises(SimtlabError):
        op(-1)
