"""G-Scalar as a timing-model mechanism (seed 003 §3-§5; paper-facts 6.2-6.6).

:class:`GScalarMechanism` plugs into the cycle-level SM (:mod:`golden.timing.hooks`) and,
for every issued warp instruction, decides from the *actual register state* of the warp
whether it executes as a scalar, which RF arrays its reads and writes activate, and what
the compressed register file stores afterwards. Variants (:data:`VARIANTS`, by name):

============== =============================================================================
``gscalar``     full-register byte-wise compression (BVR/EBR/D per register); scalar
                execution of non-divergent ALU, SFU and memory instructions whose sources
                are all scalar (§4.1) and of divergent instructions whose sources are scalar
                with respect to the current active mask (§4.2); +3 pipeline cycles.
``gscalar-half`` the above plus half-register compression (encL/encH, §3.2) and half-warp
                scalar execution (§4.3); its larger metadata entry costs more per access.
``alu-scalar``  prior work ([3] in the paper, the "ALU scalar" bar of Fig. 9/11): a separate
                scalar RF holds values written uniform by non-divergent instructions, and only
                non-divergent ALU instructions with every source scalar run on one lane. The
                paper gives no costs for [3]; ``costs=design`` (default) charges what its
                design implies: +2 cycles, one scalar-RF bank, comparator energy and leakage
                (:class:`GScalarVariant` ``prior_costs``; docs/gscalar-costs.md);
                ``costs=free`` none of them (the model before issue 67).
============== =============================================================================

What the hooks do
-----------------
* ``on_dispatch`` (first TB of a launch): new per-launch RF metadata
  (:class:`~.regstate.RegisterEncodingTracker`, one row per warp of the launch).
* ``on_issue`` returns an :class:`~golden.timing.hooks.IssueOverride` per instruction:
  **+3 cycles** as ``extra_latency`` (three more pipelined stages: BVR/EBR read before the
  RF read, decompression after it, compression before the write-back), so every result is
  written back 3 cycles later and dependants wait 3 cycles longer while the initiation
  interval (throughput) is unchanged; for a memory instruction the cycles come before the
  request reaches the memory hierarchy (stores pay them too although they need only two
  of the three stages). A scalar instruction's ``lanes`` (1, or the half-scalar count) are
  what the execution unit is charged. A divergent write to a register holding a
  compressed value first needs the **special move** of §3.3: it is injected ahead of the
  instruction as one pass of the instruction's pipeline (``inject_interval``), delaying it
  and its dependants and spending the unit's throughput (``inject_moves=false``: moves
  are counted in energy only, the model before issue 13). ``special_moves=liveness``
  (default) is the paper's compiler-assisted option: no move where the destination's old
  value is dead for every thread of the warp (:mod:`.dead_dst`, counted as
  ``moves_dead``); ``special_moves=all`` is the hardware-only option.
* ``on_issue`` (before the functional step): the instruction's active mask (SIMT TOS mask
  AND guard) and the warp's launched threads give divergence; the sources' metadata
  (``nc`` = common MSB bytes, D bit, stored mask, per-half ``ncg``) give the scalar class:
  ``scalar_alu`` / ``scalar_sfu`` / ``scalar_mem`` (§4.1), ``half`` (§4.3), ``div_scalar``
  (§4.2, a D = 1 source is scalar only if its stored mask equals the current mask) or
  vector. A scalar instruction uses one lane; a half-scalar one uses one lane for each
  scalar half and the active lanes of the other. Predicate sources count like registers;
  special registers are scalar when equal over the warp's threads; immediates and
  parameters are scalar.
* ``on_operand_read`` (after the functional step): RF read events of the registers the
  timing model reads (arrays activated by the stored encoding + one metadata access), then
  the register writes of this instruction: the compressor's comparison over the active
  lanes of the value just written, the new metadata, write events, and the special move of
  §3.3 when a divergent instruction writes a compressed register.

Counters go to ``stats.count_mechanism("<variant>.<counter>")`` at the end of every launch
(:data:`COUNTERS`); :func:`energy_report` turns them into an
:class:`~golden.timing.energy.EnergyReport` whose register-file term replaces the
baseline's and which adds the compressor/decompressor energy per access and their leakage
(Table 3, §5.1).

Approximations (documented; see also the report):

* one timing-model RF access is one PTX register (a 64-bit register is one access, as the
  baseline counts it); its G-Scalar cost is the mean of its two 32-bit halves, each of
  which has its own metadata. Predicate registers live in the banked RF (as in the
  baseline timing model) and are compressed like any register.
* an access by a write with no active lane (guard false everywhere) costs what the
  baseline charges (one full access), with no metadata change.
* the special move of §3.3 is a micro-op dispatched with the divergent instruction: it
  occupies the pipeline for one pass but takes no scheduler issue slot of its own.
* scalar execution changes FU energy only: lanes still occupy the pipeline for the
  same interval (the paper clock-gates lanes, it does not shorten the pass). Scalar
  memory instructions charge one lane to the address-generation units too.
* an instruction another mechanism eliminates still updates the metadata (its results
  are written functionally) but is charged no RF energy.
* composed with a fetch-stage mechanism (DARSIE, DAC-IDEAL; :mod:`golden.mechanisms.claims`):
  an instruction skipped at fetch never issues, so it is neither counted nor classified;
  ``on_skip`` sets its destinations' metadata from the values the skip wrote (as the write
  would have: the follower reads the leader's physical register, written by the same
  values) and charges no RF energy. ``skipped`` / ``skipped_scalar`` (counted only when
  skips happen) are the skipped instructions and those that would have run as scalars
  (from the sources' metadata when the skip lands): the overlap of the two mechanisms.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from golden.configs.sourced import load_sourced
from golden.errors import ConfigError
from golden.mechanisms.claims import ISSUE, REGISTER_STORAGE, WARP_FORMATION
from golden.mechanisms.gscalar.dead_dst import move_free_destinations
from golden.mechanisms.gscalar.regstate import HALF_LANES, WARP_LANES, RegisterEncodingTracker
from golden.mechanisms.gscalar.rf_energy import RFEnergyParams, load_rf_energy
from golden.ptx.ir import SpecialReg, Vec
from golden.simt.liveness import operand_regs
from golden.simt.stats import OPCODE_CLASS
from golden.timing.energy import PJ, EnergyComponent, EnergyModel, EnergyReport, EnergyTerm
from golden.timing.hooks import IssueOverride, Mechanism
from golden.timing.pipelines import pipe_of
from golden.timing.rtl_energy import Charge, load_rtl_energy
from golden.timing.sm import NO_DST_OPCODES
from golden.timing.stats import PIPE_ALU, PIPE_MEM, PIPE_SFU, TimingStats

DEFAULT_PARAMS_PATH = Path(__file__).with_name("timing.yaml")
_FULL32 = 0xFFFFFFFF
_ARRAYS = 8                     # 128-bit arrays per 32-lane vector register
_PER_BYTE = _ARRAYS // 4        # arrays per byte position
_PIPES = {PIPE_ALU: "alu", PIPE_SFU: "sfu", PIPE_MEM: "mem"}

#: ``special_moves`` settings (§3.3): ``liveness`` -- the paper's compiler-assisted option,
#: no move when the destination's old value is dead for every thread of the warp
#: (:func:`~.dead_dst.move_free_destinations`); ``all`` -- the hardware-only option, a move
#: for every divergent write to a compressed destination.
SPECIAL_MOVES = ("liveness", "all")

#: counters (suffix after ``<variant>.``), all additive over launches
COUNTERS = (
    "instructions",          # warp instructions seen at issue
    "thread_lanes",          # their active lanes (equals stats.thread_instructions)
    "divergent",             # issued with an active mask that is not all launched threads
    "scalar_alu", "scalar_sfu", "scalar_mem",   # non-divergent, every source scalar (§4.1)
    "half",                  # half-warp scalar (§4.3, gscalar-half only)
    "div_scalar",            # divergent scalar (§4.2)
    "lanes_saved_alu", "lanes_saved_sfu", "lanes_saved_mem",   # lanes clock-gated
    "rf_reads", "rf_writes",                 # timing-model RF accesses accounted
    "rf_read_arrays", "rf_write_arrays",     # 128-bit arrays activated (fractional: 64-bit)
    "rf_read_meta", "rf_write_meta",         # BVR/EBR metadata accesses
    "srf_reads", "srf_writes",               # scalar-RF accesses (alu-scalar)
    "rf_writes_empty",                       # writes with no active lane (baseline cost)
    "special_moves", "move_read_arrays", "move_write_arrays", "move_meta", "move_srf",
    "moves_dead",                            # moves dropped: old value dead (liveness rule)
    "srf_wait_cycles",                       # operand-read cycles added by the single SRF bank
    "decompressions", "compressions",        # 32-bit register passes through the Table 3 units
)


# ----------------------------------------------------------------------------- parameters
@dataclass(frozen=True)
class GScalarTimingParams:
    """Timing-model constants of G-Scalar (``timing.yaml``; each entry carries its source).

    extra_latency_cycles: pipeline cycles added for compress, decompress and BVR/EBR read.
    decompressor_power_mw / decompressors_per_sm, compressor_power_mw /
    compressors_per_sm: Table 3 power of the added logic at ``table3_clock_mhz``; one
    unit busy for one cycle costs ``power / clock`` (:attr:`decompression_pj`,
    :attr:`compression_pj`), charged per decompression / compression.
    logic_area_share: the added logic's share of SM area (§5.1: 0.16 mm², 0.7%); its
    leakage is that share of the configuration's per-SM leakage, charged per active
    SM-second like the SM's own.
    """

    extra_latency_cycles: int = 3
    decompressor_power_mw: float = 15.86
    decompressors_per_sm: int = 16
    compressor_power_mw: float = 16.22
    compressors_per_sm: int = 4
    table3_clock_mhz: float = 1400.0
    logic_area_share: float = 0.007
    decompressor_area_um2: float = 7332.0
    compressor_area_um2: float = 11624.0
    alu_scalar_extra_latency_cycles: int = 2
    alu_scalar_srf_ports: int = 1

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            kind = int if f.type in ("int", int) else (int, float)
            if isinstance(v, bool) or not isinstance(v, kind) or v < 0:
                raise ConfigError(f"gscalar timing.{f.name}: must be a non-negative "
                                  f"{'integer' if kind is int else 'number'}, not {v!r}")

    @property
    def logic_watts_per_sm(self) -> float:
        """Power of one SM's decompressors and compressors in watts, all of them busy every
        cycle (Table 3 summed: the always-on upper bound)."""
        return (self.decompressor_power_mw * self.decompressors_per_sm
                + self.compressor_power_mw * self.compressors_per_sm) / 1000.0

    @property
    def comparator_area_share(self) -> float:
        """SM-area share of the compressors alone (the comparison logic ALU-scalar [3] also
        needs): ``logic_area_share`` scaled by their part of Table 3's area."""
        comp = self.compressor_area_um2 * self.compressors_per_sm
        total = comp + self.decompressor_area_um2 * self.decompressors_per_sm
        return self.logic_area_share * comp / total if total else 0.0

    @property
    def decompression_pj(self) -> float:
        """Energy of one decompression (one unit busy one cycle): mW / GHz = pJ."""
        return self.decompressor_power_mw / (self.table3_clock_mhz / 1000.0)

    @property
    def compression_pj(self) -> float:
        """Energy of one compression (one unit busy one cycle)."""
        return self.compressor_power_mw / (self.table3_clock_mhz / 1000.0)


def load_timing_params(path: str | Path | None = None) -> GScalarTimingParams:
    """Read ``timing.yaml`` (or ``path``): ``key: {value: ..., source: "..."}`` per field."""
    return load_sourced(path if path is not None else DEFAULT_PARAMS_PATH, GScalarTimingParams,
                        "the G-Scalar timing constants")


@dataclass(frozen=True)
class GScalarVariant:
    """One design point: which instructions run as scalars and how the RF stores values.

    classes: opcode classes eligible for scalar execution (``alu``, ``sfu``, ``mem``: the
        unit the configuration routes an instruction to, :func:`~golden.timing.pipelines.pipe_of`).
    divergent: divergent-scalar execution (§4.2).
    half: half-register compression and half-warp scalar execution (§3.2, §4.3).
    rf: RF organisation: ``gscalar`` (full-register compression), ``gscalar_half``,
        ``scalar_rf`` (separate scalar RF of prior work [3]).
    extra_latency: pipeline cycles added; ``None`` takes ``extra_latency_cycles``.
    logic_power: charge the compressor/decompressor power of Table 3.
    prior_costs: the costs prior work [3]'s own design implies (``scalar_rf`` only; see
        :func:`make_alu_scalar`): ``alu_scalar_extra_latency_cycles`` of pipeline, a
        single-bank scalar RF (``alu_scalar_srf_ports`` reads per cycle per SM), and the
        comparators' energy and leakage; False = none of them (the model before issue 67).
    """

    name: str
    classes: frozenset
    divergent: bool
    half: bool
    rf: str
    extra_latency: int | None
    logic_power: bool
    prior_costs: bool = False

    def __post_init__(self):
        if not self.classes <= {"alu", "sfu", "mem"}:
            raise ConfigError(f"gscalar variant {self.name}: classes must be alu/sfu/mem")
        if self.rf not in ("gscalar", "gscalar_half", "scalar_rf"):
            raise ConfigError(f"gscalar variant {self.name}: unknown rf '{self.rf}'")
        if self.prior_costs and self.rf != "scalar_rf":
            raise ConfigError(f"gscalar variant {self.name}: prior-design costs apply to the "
                              f"scalar-RF design only")
        if self.half and self.rf != "gscalar_half":
            raise ConfigError(f"gscalar variant {self.name}: half-warp scalar execution needs "
                              f"half-register compression (rf gscalar_half)")


#: The registered variants (names are also the counter prefixes).
VARIANTS = {
    "gscalar": GScalarVariant("gscalar", frozenset({"alu", "sfu", "mem"}), divergent=True,
                              half=False, rf="gscalar", extra_latency=None, logic_power=True),
    "gscalar-half": GScalarVariant("gscalar-half", frozenset({"alu", "sfu", "mem"}),
                                   divergent=True, half=True, rf="gscalar_half",
                                   extra_latency=None, logic_power=True),
    "alu-scalar": GScalarVariant("alu-scalar", frozenset({"alu"}), divergent=False, half=False,
                                 rf="scalar_rf", extra_latency=None, logic_power=False,
                                 prior_costs=True),
}

#: ALU-scalar as modelled before issue 67: no latency, no logic energy, an SRF without port
#: limit (``alu-scalar:costs=free``).
ALU_SCALAR_FREE = GScalarVariant("alu-scalar", frozenset({"alu"}), divergent=False, half=False,
                                 rf="scalar_rf", extra_latency=0, logic_power=False,
                                 prior_costs=False)


# ----------------------------------------------------------------------------- encoding
def common_msb_bytes(x: np.ndarray) -> int:
    """Common most-significant bytes (0..4) of the uint32 lane values ``x`` (the active
    lanes only); 0 for no lane. Same result as :func:`~golden.structures.gscalar.encoding.byte_enc`
    for one row (the compressor's comparison, §3.1 / §4.2), without its per-call overhead."""
    if x.size == 0:
        return 0
    d = int(np.bitwise_or.reduce(x ^ x[0]))
    if d == 0:
        return 4
    if d < 0x100:
        return 3
    if d < 0x10000:
        return 2
    if d < 0x1000000:
        return 1
    return 0


def _msb_of_diff(d: int) -> int:
    """Common most-significant bytes of lanes whose pairwise differences OR to ``d``."""
    return 4 if d == 0 else 3 if d < 0x100 else 2 if d < 0x10000 else 1 if d < 0x1000000 else 0


def full_warp_common_bytes(x: np.ndarray) -> tuple[int, list]:
    """``(common bytes of all 32 lanes, [common bytes of lanes 0-15, of lanes 16-31])`` of
    the uint32 lane values ``x`` of a full warp, with one XOR and one reduction: the
    highest bit where any two lanes differ is the highest bit of either half's spread or
    of ``x[0] ^ x[16]``. Same result as :func:`full_warp_common_bytes_reference` (three
    :func:`common_msb_bytes`; tests/mechanisms/test_gscalar_timing.py compares them)."""
    y = x.reshape(2, HALF_LANES)
    d0, d1 = np.bitwise_or.reduce(y ^ y[:, :1], axis=1).tolist()
    return (_msb_of_diff(d0 | d1 | (int(x[0]) ^ int(x[HALF_LANES]))),
            [_msb_of_diff(d0), _msb_of_diff(d1)])


def full_warp_common_bytes_reference(x: np.ndarray) -> tuple[int, list]:
    """:func:`full_warp_common_bytes` as the compressor compares: the whole warp, then each half."""
    return common_msb_bytes(x), [common_msb_bytes(x[:HALF_LANES]), common_msb_bytes(x[HALF_LANES:])]


def parts32(values: np.ndarray) -> list:
    """The physical 32-bit registers (uint32 lane arrays) holding one register's lanes:
    two (low, high word) for a 64-bit register, one otherwise (narrow values and
    predicates zero-extended)."""
    size = values.dtype.itemsize
    if values.dtype == np.bool_:
        return [values.astype(np.uint32)]
    if size == 8:
        u = values.view(np.uint64)
        return [(u & np.uint64(_FULL32)).astype(np.uint32), (u >> np.uint64(32)).astype(np.uint32)]
    if size == 4:
        return [values.view(np.uint32)]
    return [values.view(np.uint16 if size == 2 else np.uint8).astype(np.uint32)]


def _pack(lanes: np.ndarray) -> int:
    return int(np.packbits(lanes, bitorder="little").view("<u4")[0])


_LANE_BITS = np.uint32(1) << np.arange(WARP_LANES, dtype=np.uint32)


def _unpack(mask: int) -> np.ndarray:
    return (np.uint32(mask) & _LANE_BITS) != 0


# ----------------------------------------------------------------------------- static decode
@dataclass
class _Static:
    """Per-PC facts: opcode class, pipeline, guard, eligibility sources, destinations."""

    opclass: str
    pipe: int
    guard: str | None
    guard_negated: bool
    src_cols: tuple          # tracker columns of register/predicate sources (not the guard)
    src_groups: tuple        # the same columns, one tuple per source register
    specials: tuple          # (name, component) of special-register sources
    dsts: tuple              # (storage key, (tracker columns...)) of register destinations
    move_free: frozenset     # destinations whose old value is dead for the whole warp (§3.3)


def _operand_regs(ops) -> tuple:
    regs, specials = [], []
    for o in ops:
        if o is None:
            continue
        if isinstance(o, SpecialReg):
            specials.append((o.name, o.component))
            continue
        if isinstance(o, Vec):
            for e in o.elems:
                if isinstance(e, SpecialReg):
                    specials.append((e.name, e.component))
        regs += operand_regs(o)
    return regs, specials


# ----------------------------------------------------------------------------- mechanism
class GScalarMechanism(Mechanism):
    """G-Scalar (or a comparison variant) on the cycle-level SM model; see module docstring."""

    #: runs eligible instructions as scalars at issue and stores registers compressed
    #: (or in a scalar RF)
    claims = frozenset({ISSUE, REGISTER_STORAGE})
    #: divergence and encodings come from the static warp's SIMT stack and register rows
    assumes = frozenset({WARP_FORMATION})

    #: sampled timing (whole-launch): per-warp register-compression state and SRF ports, rebuilt when a launch begins
    sampling = "whole-launch"
    sampling_reason = "per-warp register-compression state and SRF ports, rebuilt when a launch begins"

    def __init__(self, config, variant: GScalarVariant | str = "gscalar",
                 params: GScalarTimingParams | None = None, energy: RFEnergyParams | None = None,
                 inject_moves: bool = True, special_moves: str = "liveness"):
        if isinstance(variant, str):
            if variant not in VARIANTS:
                raise ConfigError(f"unknown G-Scalar variant '{variant}'; known: "
                                  f"{', '.join(VARIANTS)}")
            variant = VARIANTS[variant]
        if config.core.warp_size != WARP_LANES:
            raise ConfigError(f"G-Scalar timing model: core.warp_size must be {WARP_LANES} "
                              f"(the compressed bank holds 32 lanes), not {config.core.warp_size}")
        self.config = config
        self.variant = variant
        self.name = variant.name
        self.params = params if params is not None else load_timing_params()
        self.energy = energy if energy is not None else load_rf_energy()
        lat = variant.extra_latency
        if lat is None:
            lat = (self.params.alu_scalar_extra_latency_cycles if variant.rf == "scalar_rf"
                   else self.params.extra_latency_cycles)
        self.extra_latency = lat
        self._srf_ports = self.params.alu_scalar_srf_ports if variant.prior_costs else 0
        if variant.prior_costs and self._srf_ports < 1:
            raise ConfigError(f"{variant.name}: alu_scalar_srf_ports must be at least 1")
        self._srf_busy: dict = {}      # SM id -> {cycle: SRF reads granted} (single bank)
        if not isinstance(inject_moves, bool):
            raise ConfigError(f"{variant.name}: inject_moves must be true or false, "
                              f"not {inject_moves!r}")
        self.inject_moves = inject_moves
        if special_moves not in SPECIAL_MOVES:
            raise ConfigError(f"{variant.name}: special_moves must be one of "
                              f"{', '.join(SPECIAL_MOVES)}, not {special_moves!r}")
        self.special_moves = special_moves
        self._dead_cache: dict = {}    # id(program) -> (program, move_free_destinations)
        self._overrides: dict = {}     # (lanes, injected cycles) -> IssueOverride
        self._reset()

    # ---------------------------------------------------------------- launch state
    def _reset(self) -> None:
        self._launch = None
        self.tracker: RegisterEncodingTracker | None = None
        self._static: dict = {}
        self._regcols: dict = {}       # register index -> tracker columns
        self._valid: dict = {}         # warp index in TB -> launched-threads mask
        self._special: dict = {}       # (warp index, name, comp) -> (full, half0, half1) uniform
        self._cur = None               # instruction between on_issue and on_operand_read
        self._c = dict.fromkeys(COUNTERS, 0)

    def _begin_launch(self, launch) -> None:
        geo = launch.geo
        self._launch = launch
        self.tracker = RegisterEncodingTracker(geo.num_tbs * geo.warps_per_tb, capacity=64)
        self._keys = sorted(launch.program.reg_types)
        self._types = launch.program.reg_types
        self._move_free = None
        if self.special_moves == "liveness":
            prog = launch.program
            hit = self._dead_cache.get(id(prog))
            if hit is None or hit[0] is not prog:
                hit = self._dead_cache[id(prog)] = (prog, move_free_destinations(prog))
            self._move_free = hit[1]

    def launch_begin(self, launch, sms) -> None:
        self._begin_launch(launch)

    def on_complete(self, stats) -> None:
        self._flush_pending()
        name = self.name
        for k, v in self._c.items():
            stats.count_mechanism(f"{name}.{k}", v)
        self._reset()

    # ---------------------------------------------------------------- static facts
    def _cols_of(self, key: str) -> tuple:
        ty = self._types[key]
        n = 2 if ty.endswith("64") else 1
        return tuple(self.tracker.column((key, k)) for k in range(n))

    def _static_of(self, pc: int, inst) -> _Static:
        st = self._static.get(pc)
        if st is not None:
            return st
        slot = self._launch.program.slots[pc >> 3]
        op = inst.opcode
        ops = inst.operands
        has_dst = op not in NO_DST_OPCODES and len(ops) > 0
        src_ops = () if op == "call" else (ops[1:] if has_dst else ops)
        regs, specials = _operand_regs(src_ops)
        src_keys = list(dict.fromkeys(slot.regs[r.name] for r in regs if r.name in slot.regs))
        dst_regs = operand_regs(ops[0]) if has_dst else []
        dst_keys = list(dict.fromkeys(slot.regs[r.name] for r in dst_regs if r.name in slot.regs))
        guard = slot.regs.get(inst.guard.reg.name) if inst.guard is not None else None
        # the unit the configuration routes it to (one rule with the SM: pipelines.pipe_of)
        pipe = pipe_of(op, inst.types, self.config.pipelines)
        opclass = OPCODE_CLASS.get(op, "other")
        if opclass in ("alu", "sfu"):
            opclass = _PIPES[pipe]
        st = _Static(opclass=opclass, pipe=pipe, guard=guard,
                     guard_negated=bool(inst.guard is not None and inst.guard.negated),
                     src_cols=tuple(c for k in src_keys for c in self._cols_of(k)),
                     src_groups=tuple(self._cols_of(k) for k in src_keys),
                     specials=tuple(dict.fromkeys(specials)),
                     dsts=tuple((k, self._cols_of(k)) for k in dst_keys),
                     move_free=self._move_free[pc >> 3] if self._move_free else frozenset())
        self._static[pc] = st
        return st

    def _valid_mask(self, wave, widx: int) -> int:
        m = self._valid.get(widx)
        if m is None:
            lo = widx * WARP_LANES
            m = self._valid[widx] = _pack(wave.valid[lo:lo + WARP_LANES])
        return m

    def _special_uniform(self, wave, widx: int, name: str, comp) -> tuple:
        """(whole warp, lower half, upper half): the special register is equal over the
        warp's launched threads of that part (a part with no thread is not uniform)."""
        key = (widx, name, comp)
        u = self._special.get(key)
        if u is not None:
            return u
        lo = widx * WARP_LANES
        valid = wave.valid[lo:lo + WARP_LANES]
        if name == "tid":
            v = wave.tid[{"x": 0, "y": 1, "z": 2}.get(comp or "x", 0)][lo:lo + WARP_LANES]
        elif name == "laneid" or name.startswith("lanemask_"):
            v = np.arange(WARP_LANES)
        else:                      # ctaid, ntid, nctaid, warpid, smid, clock...: per warp
            v = np.zeros(WARP_LANES)

        def uni(sel):
            x = v[sel & valid]
            return bool(x.size) and bool((x == x[0]).all())

        half = np.arange(WARP_LANES) < HALF_LANES
        u = self._special[key] = (uni(np.ones(WARP_LANES, bool)), uni(half), uni(~half))
        return u

    # ---------------------------------------------------------------- issue: scalar class
    def _masks(self, st: _Static, warp) -> tuple:
        """(SIMT path mask, active mask = path AND guard, launched-threads mask) of
        ``warp`` at the instruction ``st``."""
        wave = warp.wave
        widx = warp.widx
        depth = int(wave.stacks.depth[widx])
        path = active = int(wave.stacks.mask[widx, depth - 1]) & _FULL32
        if st.guard is not None:
            lo = widx * WARP_LANES
            g = _pack(wave.regs[st.guard][lo:lo + WARP_LANES])
            active &= (~g & _FULL32) if st.guard_negated else g
        return path, active, self._valid_mask(wave, widx)

    def on_issue(self, sm, warp, pc: int, inst):
        self._flush_pending()
        if inst is None:
            return None
        st = self._static_of(pc, inst)
        wave = warp.wave
        widx = warp.widx
        path, active, full = self._masks(st, warp)
        c = self._c
        nact = active.bit_count()
        c["instructions"] += 1
        c["thread_lanes"] += nact
        nondiv = active == full
        if st.opclass == "ctrl":     # a branch diverges by its path, not by its guard (Fig. 1)
            if path != full:
                c["divergent"] += 1
        elif not nondiv and nact:
            c["divergent"] += 1
        v = self.variant
        lanes = None
        if nact and st.opclass in v.classes:
            lanes = self._scalar_lanes(st, warp, wave, widx, active, nondiv)
            if lanes is not None:
                c[f"lanes_saved_{_PIPES[st.pipe]}"] += nact - lanes
        self._cur = (warp, pc, st, active, full)
        moves = self._moves_needed(st, warp.gid, nondiv) if nact and self.inject_moves else 0
        wait = self._srf_wait(sm, warp.gid, st) if self._srf_ports else 0
        if lanes is None and not moves and not self.extra_latency and not wait:
            return None
        key = (lanes, sm.pipes[st.pipe].interval * moves, self.extra_latency + wait)
        ov = self._overrides.get(key)
        if ov is None:   # a handful of distinct overrides per run: build each once
            ov = self._overrides[key] = IssueOverride(lanes=lanes, extra_latency=key[2],
                                                      inject_interval=key[1])
        return ov

    def _srf_wait(self, sm, g: int, st: _Static) -> int:
        """Cycles the single scalar-RF bank of prior work [3] adds to this instruction's
        operand read (seed 003 §4.1: "it always takes multiple cycles for an instruction
        eligible for scalar execution to retrieve its register values because there is only
        one bank for scalar values"; bursts from several warps queue at it). Each source
        register held in the SRF takes one of the bank's ``alu_scalar_srf_ports`` read slots
        per cycle, from the cycle the operand read starts; the wait beyond one cycle is
        returned (added to the result latency: the collector unit is not held longer -- an
        approximation in ALU-scalar's favour)."""
        T = self.tracker
        n = 0
        for cols in st.src_groups:
            for col in cols:
                if not T.d[g, col] and T.nc[g, col] == 4:
                    n += 1
                    break
        if not n:
            return 0
        busy = self._srf_busy.get(sm.id)
        if busy is None:
            busy = self._srf_busy[sm.id] = {}
        first = sm.now + sm.operand_read_delay
        t = first
        done = first
        for _ in range(n):
            while busy.get(t, 0) >= self._srf_ports:
                t += 1
            busy[t] = busy.get(t, 0) + 1
            done = t + 1
        if len(busy) > 256:
            for k in [k for k in busy if k < sm.now]:
                del busy[k]
        self._c["srf_wait_cycles"] += done - first - 1
        return done - first - 1

    def _moves_needed(self, st: _Static, g: int, nondiv: bool) -> int:
        """Special moves (§3.3) a divergent write of ``st``'s destinations needs: one per
        destination register with a compressed part (the move decompresses it before the
        divergent instruction writes some of its lanes). The same rule as the counting in
        :meth:`_apply_writes`, evaluated on the metadata before the write."""
        if nondiv or not st.dsts:
            return 0
        T = self.tracker
        rf = self.variant.rf
        n = 0
        for key, cols in st.dsts:
            if key in st.move_free:
                continue
            for col in cols:
                if T.d[g, col]:
                    continue
                if (rf == "gscalar" and T.nc[g, col] > 0) \
                        or (rf == "gscalar_half" and int(T.ncg[g, col].max()) > 0) \
                        or (rf == "scalar_rf" and T.nc[g, col] == 4):
                    n += 1
                    break
        return n

    def on_skip(self, sm, warp, pc: int) -> None:
        """``pc`` was skipped at fetch for ``warp`` (see the module docstring)."""
        inst = sm.launch.program.slots[pc >> 3].inst
        if inst is None:
            return
        cur = self._cur
        if cur is not None and cur[0] is warp:   # the older, issued instruction wrote first
            self._cur = None
            self._apply_writes(cur, charge=True)
        st = self._static_of(pc, inst)
        _path, active, full = self._masks(st, warp)
        count = sm.stats.count_mechanism
        count(f"{self.name}.skipped")
        if active and st.opclass in self.variant.classes and self._scalar_lanes(
                st, warp, warp.wave, warp.widx, active, active == full, count=False) is not None:
            count(f"{self.name}.skipped_scalar")
        self._apply_writes((warp, pc, st, active, full), charge=False)

    def _scalar_lanes(self, st: _Static, warp, wave, widx: int, active: int, nondiv: bool,
                      count: bool = True):
        """Lanes the instruction uses if it runs (partly) scalar, after counting its class
        (unless ``count`` is False); None when it runs as a vector instruction."""
        v = self.variant
        T = self.tracker
        g = warp.gid
        full_ok = nondiv
        div_ok = v.divergent and not nondiv
        half_ok = [v.half and nondiv, v.half and nondiv]
        for col in st.src_cols:
            sc = T.nc[g, col] == 4
            d = bool(T.d[g, col])
            if full_ok and not (sc and not d):
                full_ok = False
            if div_ok and not (sc and (not d or int(T.mask[g, col]) == active)):
                div_ok = False
            if half_ok[0] or half_ok[1]:
                ncg = T.ncg[g, col]
                for h in (0, 1):
                    if half_ok[h] and (d or ncg[h] != 4):
                        half_ok[h] = False
            if not (full_ok or div_ok or half_ok[0] or half_ok[1]):
                return None
        for name, comp in st.specials:
            u = self._special_uniform(wave, widx, name, comp)
            full_ok = full_ok and u[0]
            div_ok = div_ok and u[0]
            half_ok = [half_ok[0] and u[1], half_ok[1] and u[2]]
        c = self._c if count else dict.fromkeys(COUNTERS, 0)
        if full_ok:
            c[f"scalar_{st.opclass}"] += 1
            return 1
        if half_ok[0] or half_ok[1]:
            c["half"] += 1
            lanes = 0
            for h in (0, 1):
                part = (active >> (HALF_LANES * h)) & 0xFFFF
                lanes += (1 if part else 0) if half_ok[h] else part.bit_count()
            return lanes
        if div_ok:
            c["div_scalar"] += 1
            return 1
        return None

    # ---------------------------------------------------------------- RF reads and writes
    def on_operand_read(self, sm, warp, pc: int, regs: list) -> list:
        cur = self._cur
        if cur is not None and (cur[0] is not warp or cur[1] != pc):
            self._flush_pending()
            cur = None
        if regs:
            self._account_reads(warp.gid, regs)
        if cur is not None:
            self._cur = None
            self._apply_writes(cur, charge=True)
        return regs

    def _flush_pending(self) -> None:
        """Apply the writes of an issued instruction whose operand read never came (it was
        eliminated by another mechanism): metadata only, no RF energy."""
        cur = self._cur
        if cur is not None:
            self._cur = None
            self._apply_writes(cur, charge=False)

    def _account_reads(self, g: int, regs: list) -> None:
        T = self.tracker
        c = self._c
        rf = self.variant.rf
        for r in regs:
            cols = self._regcols.get(r)
            if cols is None:
                cols = self._regcols[r] = self._cols_of(self._keys[r])
            w = 1.0 / len(cols)
            c["rf_reads"] += 1
            c["decompressions"] += len(cols)
            for col in cols:
                d = bool(T.d[g, col])
                if rf == "gscalar":
                    c["rf_read_arrays"] += w * (_ARRAYS if d else _PER_BYTE * (4 - int(T.nc[g, col])))
                    c["rf_read_meta"] += w
                elif rf == "gscalar_half":
                    c["rf_read_arrays"] += w * (_ARRAYS if d else _ARRAYS - sum(T.ncg[g, col].tolist()))
                    c["rf_read_meta"] += w
                elif not d and T.nc[g, col] == 4:       # scalar_rf: value in the scalar RF
                    c["srf_reads"] += w
                else:
                    c["rf_read_arrays"] += w * _ARRAYS

    def _apply_writes(self, cur, charge: bool) -> None:
        warp, pc, st, active, full = cur
        if not st.dsts:
            return
        c = self._c
        if not active:
            if charge:
                c["rf_writes"] += len(st.dsts)
                c["rf_writes_empty"] += len(st.dsts)
                c["rf_write_arrays"] += _ARRAYS * len(st.dsts)
            return
        T = self.tracker
        g = warp.gid
        wave = warp.wave
        lo = warp.widx * WARP_LANES
        nondiv = active == full
        act = None if active == _FULL32 else _unpack(active)
        rf = self.variant.rf
        half = rf == "gscalar_half"
        for key, cols in st.dsts:
            parts = parts32(wave.regs[key][lo:lo + WARP_LANES])
            w = 1.0 / len(cols)
            dead = key in st.move_free
            if charge:
                c["rf_writes"] += 1
                c["compressions"] += len(cols)
            for col, vals in zip(cols, parts):
                x = vals if act is None else vals[act]
                if half and act is None:   # full warp (nondiv): both halves in one pass
                    nc, ncg = full_warp_common_bytes(x)
                else:
                    nc = common_msb_bytes(x)
                prev_nc, prev_d = int(T.nc[g, col]), bool(T.d[g, col])
                if half:
                    prev_ncg = T.ncg[g, col].tolist()
                    if act is not None:   # (act is None: ncg above)
                        ncg = [0, 0]
                        if nondiv:
                            for h in (0, 1):
                                hv = vals[h * HALF_LANES:(h + 1) * HALF_LANES]
                                ncg[h] = common_msb_bytes(hv[act[h * HALF_LANES:
                                                                 (h + 1) * HALF_LANES]])
                    T.ncg[g, col] = ncg
                T.nc[g, col] = nc
                T.d[g, col] = not nondiv
                T.mask[g, col] = 0 if nondiv else active
                T.base[g, col] = x[0]
                if not charge:
                    continue
                if rf == "gscalar":
                    c["rf_write_arrays"] += w * (_PER_BYTE * (4 - nc) if nondiv else _ARRAYS)
                    c["rf_write_meta"] += w
                    if not nondiv and not prev_d and prev_nc > 0 and dead:
                        c["moves_dead"] += w
                    elif not nondiv and not prev_d and prev_nc > 0:   # §3.3 special move
                        c["special_moves"] += w
                        c["decompressions"] += 1
                        c["compressions"] += 1
                        c["move_read_arrays"] += w * _PER_BYTE * (4 - prev_nc)
                        c["move_write_arrays"] += w * _ARRAYS
                        c["move_meta"] += 2 * w
                elif half:
                    c["rf_write_arrays"] += w * (_ARRAYS - sum(ncg) if nondiv else _ARRAYS)
                    c["rf_write_meta"] += w
                    if not nondiv and not prev_d and max(prev_ncg) > 0 and dead:
                        c["moves_dead"] += w
                    elif not nondiv and not prev_d and max(prev_ncg) > 0:
                        c["special_moves"] += w
                        c["decompressions"] += 1
                        c["compressions"] += 1
                        c["move_read_arrays"] += w * (_ARRAYS - sum(prev_ncg))
                        c["move_write_arrays"] += w * _ARRAYS
                        c["move_meta"] += 2 * w
                else:                                                # scalar_rf
                    if nondiv and nc == 4:
                        c["srf_writes"] += w
                    else:
                        c["rf_write_arrays"] += w * _ARRAYS
                    if not nondiv and not prev_d and prev_nc == 4 and dead:
                        c["moves_dead"] += w
                    elif not nondiv and not prev_d and prev_nc == 4:  # scalar leaves the SRF
                        c["special_moves"] += w
                        c["move_srf"] += w
                        c["move_write_arrays"] += w * _ARRAYS


# ----------------------------------------------------------------------------- factories
def make_gscalar(config, inject_moves: bool = True,
                 special_moves: str = "liveness") -> GScalarMechanism:
    """Full G-Scalar: all-scalar + divergent-scalar execution, full-register compression.
    ``gscalar:inject_moves=false`` lets the special moves of §3.3 pass without occupying
    the pipeline (the model before issue 13; counted in energy only).
    ``gscalar:special_moves=all`` is the hardware-only option of §3.3 (a move for every
    divergent write to a compressed destination); the default ``liveness`` is the paper's
    compiler-assisted option (no move when the old value is dead, :mod:`.dead_dst`)."""
    return GScalarMechanism(config, "gscalar", inject_moves=inject_moves,
                            special_moves=special_moves)


def make_gscalar_half(config, inject_moves: bool = True,
                      special_moves: str = "liveness") -> GScalarMechanism:
    """G-Scalar with half-register compression and half-warp scalar execution."""
    return GScalarMechanism(config, "gscalar-half", inject_moves=inject_moves,
                            special_moves=special_moves)


def make_alu_scalar(config, inject_moves: bool = True, special_moves: str = "liveness",
                    costs: str = "design") -> GScalarMechanism:
    """Prior work: scalar RF and scalar execution of non-divergent ALU instructions only.
    ``costs=design`` (default) charges what [3]'s design implies (see
    :class:`GScalarVariant` ``prior_costs``, docs/gscalar-costs.md); ``costs=free`` is
    the model before issue 67 (no latency, no comparator energy, unlimited SRF ports).
    Special moves (a scalar leaving the SRF on a divergent write) follow the same
    ``special_moves`` rule as G-Scalar."""
    if costs not in ("design", "free"):
        raise ConfigError(f"alu-scalar: costs must be design or free, not {costs!r}")
    return GScalarMechanism(config, VARIANTS["alu-scalar"] if costs == "design" else ALU_SCALAR_FREE,
                            inject_moves=inject_moves, special_moves=special_moves)


# ----------------------------------------------------------------------------- energy
def mechanism_counters(stats: TimingStats, variant: str) -> dict:
    """The ``<variant>.*`` counters of ``stats`` (zeros for absent ones), by suffix."""
    m = stats.mechanism
    return {k: m.get(f"{variant}.{k}", 0) for k in COUNTERS}


#: ``energy.structures: rtl``: the synthesis targets (and operation types) whose energy on our
#: RTL is charged per compression / decompression instead of Table 3's power x one cycle.
#: Measured on real-kernel register traces (synth/gscalar_traces.py): one compressor cycle
#: per register write, one decompressor cycle per register read.
RTL_CHARGES = {"compression": Charge("gscalar_compressor_32", "compress"),
               "decompression": Charge("gscalar_decompressor_32", "decompress")}


def logic_energy_per_access(config, params: GScalarTimingParams) -> tuple:
    """``(compression pJ, decompression pJ, their two constants' names, source)`` by
    ``config.energy.structures``:
    Table 3's power for one cycle (``papers``), or the RTL-measured energy of
    :data:`RTL_CHARGES` scaled to 40 nm (``rtl``, :mod:`golden.timing.rtl_energy`)."""
    if config.energy.structures == "rtl":
        table = load_rtl_energy()
        comp, dec = RTL_CHARGES["compression"], RTL_CHARGES["decompression"]
        src = (f"our RTL ({comp.target}, {dec.target}), OpenSTA on osu018, "
               f"{table.method(comp).replace('_', '-')}, scaled to 40 nm "
               f"(golden/timing/rtl_energy.yaml, {table.generated})")
        return (table.per_access_pj(comp), table.per_access_pj(dec), f"rtl {comp}",
                f"rtl {dec}", src)
    return (params.compression_pj, params.decompression_pj,
            "compressor_power_mw / table3_clock_mhz", "decompressor_power_mw / table3_clock_mhz",
            "seed 003 Table 3 (timing.yaml)")


def energy_report(stats: TimingStats, config, variant: str | GScalarVariant,
                  params: GScalarTimingParams | None = None,
                  energy: RFEnergyParams | None = None,
                  logic_energy: str = "per_access") -> EnergyReport:
    """Energy of a run with ``variant`` attached: the baseline model's report with the
    register-file component recomputed from the mechanism's counters and the added
    compressor/decompressor logic charged.

    Register file: every counted array activation costs ``array_access`` (1/8) of the
    configuration's per-access read or write energy, every metadata access
    ``metadata_access`` (``metadata_access_half`` with half-register compression), every
    scalar-RF access ``scalar_rf_access``; RF accesses the mechanism did not account
    (eliminated by another mechanism) keep the baseline cost. ALU, SFU and AGU energy come
    from the run's own lane counts: the mechanism tells the SM how many lanes each scalar
    instruction uses (:class:`~golden.timing.hooks.IssueOverride` ``lanes``).

    Added logic (``gscalar_logic``), ``logic_energy``:

    * ``"per_access"`` (default): ``decompression_pj`` per decompression (every 32-bit
      register read) and ``compression_pj`` per compression (every 32-bit register write,
      and one of each per special move); their leakage, ``logic_area_share`` of the SM
      leakage, goes to the ``static`` component.
    * ``"always_on"``: Table 3's power of every unit of every SM over the run time (the
      model before issue 13: an upper bound, as if every unit switched every cycle).
    """
    if logic_energy not in ("per_access", "always_on"):
        raise ConfigError(f"gscalar energy: logic_energy must be per_access or always_on, "
                          f"not {logic_energy!r}")
    v = VARIANTS[variant] if isinstance(variant, str) else variant
    params = params if params is not None else load_timing_params()
    e = energy if energy is not None else load_rf_energy()
    cfg_e = config.energy
    base = EnergyModel(cfg_e).compute(stats, config)
    c = mechanism_counters(stats, v.name)
    rd, wr = cfg_e.rf_read, cfg_e.rf_write
    meta = e.metadata_access_half if v.rf == "gscalar_half" else e.metadata_access
    if v.rf == "scalar_rf":
        meta = 0.0
    un_r = max(0, stats.rf_reads_total - c["rf_reads"])
    un_w = max(0, stats.rf_writes_total - c["rf_writes"])
    a = e.array_access
    src_rf = "rf_energy.yaml (fractions of one vector-register access) x config rf_read/rf_write"
    rf_terms = [
        ("RF read: 128-bit arrays activated", "rf_read", c["rf_read_arrays"] + c["move_read_arrays"], a * rd.pj),
        ("RF read: BVR/EBR metadata accesses", "rf_read", c["rf_read_meta"] + c["move_meta"] / 2, meta * rd.pj),
        ("RF read: scalar-RF accesses", "rf_read", c["srf_reads"] + c["move_srf"], e.scalar_rf_access * rd.pj),
        ("RF read: not accounted by the mechanism", "rf_read", un_r, rd.pj),
        ("RF write: 128-bit arrays activated", "rf_write", c["rf_write_arrays"] + c["move_write_arrays"], a * wr.pj),
        ("RF write: BVR/EBR metadata accesses", "rf_write", c["rf_write_meta"] + c["move_meta"] / 2, meta * wr.pj),
        ("RF write: scalar-RF accesses", "rf_write", c["srf_writes"], e.scalar_rf_access * wr.pj),
        ("RF write: not accounted by the mechanism", "rf_write", un_w, wr.pj),
    ]
    comps = []
    seconds = base.seconds
    src3 = "seed 003 Table 3 (timing.yaml)"
    (compression_pj, decompression_pj, const_c, const_d,
     src_logic) = logic_energy_per_access(config, params)
    for comp in base.components:
        if comp.name == "register_file":
            terms = tuple(EnergyTerm(event=ev, constant=const, count=n, per_event=pj, unit="pJ",
                                     source=src_rf, joules=n * pj * PJ)
                          for ev, const, n, pj in rf_terms)
            comps.append(EnergyComponent("register_file", terms))
        elif comp.name == "static" and v.logic_power:
            if logic_energy == "always_on":
                watts = params.logic_watts_per_sm * config.core.num_sms
                comps.append(EnergyComponent("gscalar_logic", (EnergyTerm(
                    event=f"compressors + decompressors of {config.core.num_sms} SMs, always on",
                    constant="timing.yaml logic power", count=seconds, per_event=watts,
                    unit="W", source=src3, joules=watts * seconds),)))
                comps.append(comp)
                continue
            dyn = tuple(EnergyTerm(event=ev, constant=const, count=n, per_event=pj, unit="pJ",
                                   source=src_logic, joules=n * pj * PJ)
                        for ev, const, n, pj in (
                            ("decompressions (32-bit register reads, special moves)",
                             const_d, c["decompressions"], decompression_pj),
                            ("compressions (32-bit register writes, special moves)",
                             const_c, c["compressions"], compression_pj)))
            comps.append(EnergyComponent("gscalar_logic", dyn))
            leak = base.term("sm_leakage")
            watts = leak.per_event * params.logic_area_share
            comps.append(EnergyComponent("static", comp.terms + (EnergyTerm(
                event=f"G-Scalar logic leakage: {params.logic_area_share:.1%} of SM area",
                constant="logic_area_share x sm_leakage", count=leak.count, per_event=watts,
                unit="W", source="seed 003 §5.1 (timing.yaml) x " + leak.source,
                joules=watts * leak.count),)))
        elif comp.name == "static" and v.prior_costs:
            # prior work [3]: the word-wise uniformity comparators at write-back (seed 003
            # §3.1: G-Scalar's comparison logic "is almost the same as the logic depicted in
            # prior work [3]"), charged as Table 3's compressor per 32-bit register write (an
            # upper bound: it includes the Fig. 7 broadcast logic [3] lacks), and their leakage
            # by area share; no decompressor (a scalar reaches the lanes by broadcast).
            comps.append(EnergyComponent("gscalar_logic", (EnergyTerm(
                event="uniformity comparisons (32-bit register writes, [3])",
                constant=const_c, count=c["compressions"], per_event=compression_pj, unit="pJ", source=src_logic,
                joules=c["compressions"] * compression_pj * PJ),)))
            leak = base.term("sm_leakage")
            share = params.comparator_area_share
            watts = leak.per_event * share
            comps.append(EnergyComponent("static", comp.terms + (EnergyTerm(
                event=f"[3] comparator leakage: {share:.2%} of SM area",
                constant="comparator_area_share x sm_leakage", count=leak.count, per_event=watts,
                unit="W", source="seed 003 §5.1 + Table 3 areas (timing.yaml) x " + leak.source,
                joules=watts * leak.count),)))
        else:
            comps.append(comp)
    return EnergyReport(components=tuple(comps), seconds=seconds)
