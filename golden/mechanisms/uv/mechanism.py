"""Uniform-vector elimination in the timing model: the token and scalar-RF (SRF) designs
and the instruction reuse buffer (seed 002 ch. 2, §2.3-§2.5; paper-facts §2.3-§2.7).

Every instruction is classified at ID from *state*, not values (§2.3): it is **uniform**
when it is eligible (golden/mechanisms/uv/decode.py), the warp's active mask is full
(all 32 lanes) and every source -- and the guard predicate -- is an immediate, a
thread-independent special register or a register marked uniform: its **token** bit is
set (token design, §2.4.1) or it is **mapped in the SRF** (SRF design, §2.4.2).

Token design
    A token bit per vector register of every resident warp. Set when a uniform
    instruction writes the register, or when a load with a full mask writes a value that
    arrived on the broadcast path (every lane read the same global, shared or constant
    address, or a ``.param`` load; a local address is per thread); reset when any other instruction redefines it. A uniform instruction computes
    on one lane (SP0) and writes only ``VRx.N`` (N = warp size - NumSP); the pipeline is
    busy for one cycle instead of ``warp_size / NumSP``, so the scheduler may issue the
    next instruction in the next cycle (:class:`~golden.timing.hooks.IssueOverride`).
    Uniform sources of any instruction are read from one VRF lane and broadcast.
SRF design
    A per-SM rename map from physical vector register (``warp slot x registers + index``)
    to an SRF entry, with a free list of SRF entries (golden/structures/uv/srf_map.py). A
    uniform instruction maps its destination (keeping an existing mapping, else taking a
    free entry); if the free list is empty it executes as a vector (the structural
    hazard). A vector redefinition unmaps and frees. Uniform sources are read from the SRF.
    Broadcast-path load results are written to the SRF as well (the SRF is wired to the
    broadcast path). Because PTX registers are never reused, a mapping is also freed at
    the register's death when the instruction ran with a full mask
    (:func:`golden.simt.liveness.dying_registers`; ``free_dead=False`` frees only on
    redefinition and warp exit) -- what the chapter's register-allocated code does by
    redefining physical registers.
    ``param_constants`` (issue 67.4; the SRF design's default, ``false`` is the PTX-register
    ablation): parameter-derived registers
    (:mod:`golden.mechanisms.uv.register_class`: ``ld.param`` results and pure functions
    of them and of launch-constant special registers) are constant operands, as an
    SASS-level design reads kernel parameters from a constant bank: once marked uniform
    (by the same rules as every register) they hold no SRF entry, so they never fill the
    SRF. Their instructions still issue and execute as before.
Copy-on-write (§2.4.1-§2.4.2, with the safe rule of paper-facts §2.4)
    An instruction with a partial mask that writes a uniform register is preceded by an
    injected copy that writes the scalar to all 32 lanes (one vector-pipeline slot ahead
    of it and one VRF write); the register is then a vector.
Instruction reuse buffer (§2.4.3, inter-warp; golden/structures/uv/irb.py)
    One per SM, accessed at RR by uniform instructions only. A hit on the partial PC and
    opcode whose three stored sources equal the current scalar sources skips EX: the
    stored result is written in one cycle (latency 1, no lanes). A mismatch executes
    (scalar) and rewrites the entry; a miss executes and fills the LRU victim after
    execution. ``mode="inter"``: a uniform instruction that misses is *not* scalarised (it
    runs as a vector); ``"intra"``: no IRB; ``"combined"``: both.
Opportunistic reliability (§2.4.4), ``reliability=True``
    A scalarised instruction is computed on two lanes (two SPs) and both copies are
    stored (token: the first two VRF lanes; SRF: the SRF and the first VRF lane); the IRB
    carries a parity bit per entry. Coverage counters for the report: ALU thread-ops
    computed twice or served by a parity-protected IRB hit, and live uniform registers
    that have a second copy.

The functional step of every instruction still runs, so results are bit-identical to the
baseline; with ``check=True`` every token / SRF mapping is checked against the register's
real lane values and every IRB hit against the computed result (a failure is an internal
error: the model would have produced a wrong value).

Counters (``uv.*``): ``uniform`` (detected), ``scalar`` (executed on one lane),
``irb_lookups``, ``irb_hits`` (reused), ``irb_mismatches``, ``irb_misses``,
``srf_full`` (structural hazards), ``cow`` (copies injected), ``broadcast`` (registers
marked uniform by the broadcast path), ``vrf_lane_reads`` / ``vrf_lane_writes``,
``srf_reads`` / ``srf_writes``, ``cow_vrf_writes``, ``alu_ops`` / ``alu_ops_covered``
(thread-ops on ALU/SFU and those checked by reliability), ``thread_ops_saved``, and with
reliability ``live_regs`` / ``live_regs_covered``: at every issue, the warp's registers
live at that PC (:func:`golden.simt.liveness.live_registers`) and those held in two copies
(marked uniform) -- the VRF live-register coverage, sampled per issued instruction.
"""

from __future__ import annotations

import zlib
from collections import deque
from dataclasses import dataclass

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.mechanisms.arguments import takes
from golden.mechanisms.claims import ELIMINATION, ISSUE, REGISTER_STORAGE, WARP_FORMATION
from golden.mechanisms.uv.decode import IMM, REG, decode_uv
from golden.ptx.ir import Imm, SpecialReg, Sym
from golden.timing.hooks import IssueOverride, Mechanism
from golden.timing.stats import PIPE_MEM

FULL = 0xFFFFFFFF
DESIGNS = ("token", "srf")
MODES = ("intra", "inter", "combined")


@dataclass(frozen=True)
class UVParams:
    """Parameters of the UV mechanism (defaults: the chapter's design point).

    design: ``"token"`` or ``"srf"``; mode: ``"intra"``, ``"inter"`` or ``"combined"``;
    irb_entries: IRB entries (8; swept 2-16); irb_value_bits: bits of each stored value
    (64 here: our PTX has 64-bit addresses where GT200's SASS had 32-bit ones; the synth
    row keeps the chapter's 32); srf_entries: SRF size (128; swept 16-256);
    reliability: dual-lane execution, two copies and IRB parity; free_dead: free SRF
    mappings at register death; check: verify uniformity and IRB hits against values;
    eliminate: a uniform instruction is removed at issue instead of scalarised (no
    operand read, pipeline or writeback), as DARSIE §5 models UV for its comparison
    (registry name ``uv``; with ``mode="intra"``); param_constants: SRF design only --
    parameter-derived registers are constant operands that hold no SRF entry (see the
    module docstring); None = the design's default: True for the SRF design (the chapter's
    hardware reads SASS, where kernel parameters are not registers; docs/results/uv.md),
    False for the token design (which has no capacity to spare).
    """

    design: str = "token"
    mode: str = "combined"
    irb_entries: int = 8
    irb_value_bits: int = 64
    srf_entries: int = 128
    reliability: bool = False
    free_dead: bool = True
    check: bool = False
    eliminate: bool = False
    param_constants: bool | None = None

    def __post_init__(self):
        if self.design not in DESIGNS:
            raise ConfigError(f"uv: design must be one of {DESIGNS}, not {self.design!r}")
        if self.mode not in MODES:
            raise ConfigError(f"uv: mode must be one of {MODES}, not {self.mode!r}")
        if self.param_constants is None:
            object.__setattr__(self, "param_constants", self.design == "srf")
        if self.param_constants and self.design != "srf":
            raise ConfigError("uv: param_constants applies to the SRF design (uv-srf*) only")
        for name in ("irb_entries", "srf_entries", "irb_value_bits"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ConfigError(f"uv: {name} must be a positive integer, not {v!r}")


@dataclass
class _Issued:
    """What the mechanism decided for one issued instruction (on_issue -> after_step)."""

    uniform: bool         # detected uniform at ID
    run: str              # "vector", "scalar" (one lane) or "hit" (IRB reuse, no EX)
    irb: str | None       # IRB outcome: "hit", "mismatch", "miss" or None (no lookup)
    way: int              # IRB way hit or to fill
    srcs: tuple           # IRB source values
    stored: int           # IRB value of a hit
    cow: int              # copies injected before a divergent write


def _bits(arr, lane: int) -> int:
    v = np.asarray(arr[lane])
    if v.dtype == np.bool_:
        return int(v)
    return int(v.view(f"u{v.dtype.itemsize}"))


class UVMechanism(Mechanism):
    """``uv-token`` / ``uv-srf`` (see module docstring)."""

    name = "uv"
    #: scalarises or eliminates uniform instructions at issue and keeps uniform values in
    #: the IRB / scalar RF
    claims = frozenset({ISSUE, REGISTER_STORAGE})
    #: detects uniformity from the static warp's SIMT stack and register rows
    assumes = frozenset({WARP_FORMATION})

    #: sampled timing (whole-launch): the instruction reuse buffer is shared by the warps of an SM; rebuilt per launch
    sampling = "whole-launch"
    sampling_reason = "the instruction reuse buffer is shared by the warps of an SM; rebuilt per launch"

    def __init__(self, config, params: UVParams | None = None, *, recorder_factory=None,
                 census=None):
        self.config = config
        self.p = params or UVParams()
        if self.p.eliminate:   # DARSIE's UV comparison point: no execution, no write-back
            self.claims = type(self).claims | {ELIMINATION}
        #: (structure name, SM id, params) -> trace recorder or None (golden/mechanisms/uv/trace.py)
        self.recorder_factory = recorder_factory
        #: observer of SRF occupancy and IRB lookups, or None (golden/mechanisms/uv/census.py)
        self.census = census

    def _recorder(self, name, sm, params):
        return self.recorder_factory(name, sm.id, params) if self.recorder_factory else None

    # ------------------------------------------------------------------ state
    def launch_begin(self, launch, sms) -> None:
        prog = launch.program
        # every SM of a run decodes the program alike (SMs of several kinds: the pipeline
        # classes differ, the registers do not)
        self.dec = decode_uv(prog, sms[0].decoded)
        if self.census is not None:
            self.census.launch_begin()
        self.keys = sorted(prog.reg_types)
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.nregs = len(self.keys)
        self.dying = None
        if self.p.design == "srf" and self.p.free_dead:
            from golden.simt.liveness import dying_registers
            d = dying_registers(prog)
            if d is not None:
                self.dying = [tuple(self.index[k] for k in s) for s in d]
        self.classes = None           # register class (register_class.py), SRF design
        self.pconst = frozenset()     # registers that are constant operands
        if self.p.param_constants or self.census is not None:
            from golden.mechanisms.uv.register_class import PARAM, register_classes
            self.classes = register_classes(prog, self.dec)
            if self.p.param_constants:
                self.pconst = frozenset(i for i, c in enumerate(self.classes) if c == PARAM)
        self.live = None              # reliability: registers live at each PC (coverage)
        if self.p.reliability:
            from golden.simt.liveness import live_registers
            lv = live_registers(prog)
            if lv is not None:
                self.live = [frozenset(self.index[k] for k in s) for s in lv]
        self.uniform_regs: dict = {}  # WarpSlot -> set of register indices marked uniform
        self.irbs: dict = {}          # SM id -> IRB
        self.srfs: dict = {}          # SM id -> SRFMap
        self.pending: dict = {}       # WarpSlot -> _Issued (on_issue -> after_step)
        self.reads: dict = {}         # WarpSlot -> source registers read as scalars
        self.inflight: dict = {}      # (WarpSlot, pc) -> deque of writeback kinds
        self.detectors: dict = {}     # SM id -> UniformDetect being recorded, or None

    def _irb(self, sm):
        irb = self.irbs.get(sm.id)
        if irb is None:
            from golden.structures.uv.irb import IRB, IRBParams
            params = IRBParams(entries=self.p.irb_entries, value_bits=self.p.irb_value_bits,
                               parity=self.p.reliability)
            rec = self._recorder("uv_irb", sm, params)
            irb = self.irbs[sm.id] = IRB(params, recorder=rec, check=rec is not None)
        return irb

    def _srf(self, sm):
        srf = self.srfs.get(sm.id)
        if srf is None:
            from golden.structures.uv.srf_map import SRFMap, SRFMapParams
            vregs = self.config.core.max_warps_per_sm * max(1, self.nregs)
            params = SRFMapParams(vregs=vregs, srf_entries=self.p.srf_entries)
            rec = self._recorder("uv_srf_map", sm, params)
            srf = SRFMap(params, recorder=rec, check=rec is not None)
            if self.census is not None:
                srf = self.census.wrap_srf(sm, srf, self.nregs, self.classes)
            self.srfs[sm.id] = srf
        return srf

    def _uset(self, w) -> set:
        t = self.uniform_regs.get(w)
        if t is None:
            t = self.uniform_regs[w] = set()
        return t

    def _lanes(self, w, key):
        return w.wave.regs[key][w.widx * 32:(w.widx + 1) * 32]

    def _value(self, sm, w, s, kind, leaf) -> int:
        if kind == REG:
            return _bits(self._lanes(w, s.regs[leaf.name]), 0)
        if isinstance(leaf, Imm):
            if leaf.bits is not None:
                return leaf.bits
            if isinstance(leaf.value, float):
                return int(np.asarray(leaf.value, dtype=np.float64).view(np.uint64))
            return leaf.value
        if isinstance(leaf, Sym):
            return zlib.crc32(leaf.name.encode())
        if isinstance(leaf, SpecialReg):
            return int(sm.launch.special_values(w.wave, leaf)[w.widx * 32])
        raise SimtlabError(f"uv: no value for source {leaf!r}")

    # ------------------------------------------------------------------ ID / RR
    def on_issue(self, sm, w, pc: int, inst):
        if inst is None:
            return None
        u = self.dec[pc >> 3]
        d = sm.decoded[pc >> 3]
        st = w.wave.stacks
        depth = int(st.depth[w.widx])
        full = depth > 0 and int(st.mask[w.widx, depth - 1]) == FULL
        uset = self._uset(w)
        self.reads[w] = tuple(r for r in d.srcs if r in uset)
        cow = 0 if full else sum(1 for r in u.dsts if r in uset)
        uniform = (u.eligible and full and not u.thread_special
                   and all(r in uset for r in u.src_regs)
                   and (u.guard is None or u.guard in uset))
        if self.recorder_factory is not None:
            self._detect(sm, w, pc, u, uset, int(st.mask[w.widx, depth - 1]) if depth else 0,
                         uniform, cow)
        iss = _Issued(uniform, "vector", None, 0, (), 0, cow)
        self.pending[w] = iss
        mech = sm.stats.count_mechanism
        if self.live is not None:  # VRF coverage, sampled at every issue (§2.6.4)
            live = self.live[pc >> 3]
            mech("uv.live_regs", len(live))
            mech("uv.live_regs_covered", len(live & uset))
        inject = sm.pipes[d.pipe].interval * cow
        vector = IssueOverride(inject_interval=inject) if inject else None
        if cow:
            mech("uv.cow", cow)
        if not uniform:
            return vector
        mech("uv.uniform")
        if self.p.check:
            for r in u.src_regs:
                self._check_reg(w, pc, r)
        p = self.p
        if p.eliminate:
            iss.run = "eliminated"
            mech("uv.eliminated")
            return "eliminate"
        run = "vector" if p.mode == "inter" else "scalar"
        if p.mode != "intra" and u.irb_ok:
            s = sm.launch.program.slots[pc >> 3]
            vmask = (1 << p.irb_value_bits) - 1
            iss.srcs = tuple(self._value(sm, w, s, k, leaf) & vmask for k, leaf in u.leaves)
            out = self._irb(sm).lookup(u.tag, u.opcode, iss.srcs)
            mech("uv.irb_lookups")
            if self.census is not None:
                self.census.irb_lookup(sm, w, pc, inst, u, iss.srcs, out, self.classes)
            if out.hit and out.match:
                iss.irb, iss.way, iss.stored, run = "hit", out.hit_way, out.value, "hit"
                mech("uv.irb_hits")
            elif out.hit:
                iss.irb, iss.way = "mismatch", out.hit_way
                mech("uv.irb_mismatches")
            else:
                iss.irb, iss.way = "miss", out.victim
                mech("uv.irb_misses")
        if p.design == "srf" and run != "vector":
            srf = self._srf(sm)
            base = w.slot * self.nregs
            pconst = self.pconst
            need = [r for r in u.dsts if r not in pconst and srf.lookup(base + r) is None]
            if len(need) > srf.free_count:
                mech("uv.srf_full")
                if self.census is not None:
                    self.census.srf_full(sm, need, self.classes)
                run = "vector"
            else:
                for r in u.dsts:
                    if r not in pconst:
                        srf.define(base + r, True)
        iss.run = run
        if run == "hit":
            return IssueOverride(interval=1, latency=1, lanes=0, inject_interval=inject)
        if run == "scalar":
            return IssueOverride(interval=1, lanes=2 if p.reliability else 1,
                                 inject_interval=inject)
        return vector

    def on_operand_read(self, sm, w, pc: int, regs: list) -> list:
        scalar = self.reads.pop(w, ())
        if not scalar:
            return regs
        sm.stats.count_mechanism("uv.srf_reads" if self.p.design == "srf"
                                 else "uv.vrf_lane_reads", len(scalar))
        return [r for r in regs if r not in scalar]

    # ------------------------------------------------------------------ after EX
    def after_step(self, sm, w, pc: int, rec) -> None:
        iss = self.pending.pop(w, None)
        if iss is None:
            return
        u = self.dec[pc >> 3]
        d = sm.decoded[pc >> 3]
        p = self.p
        mech = sm.stats.count_mechanism
        uset = self._uset(w)
        srf = self._srf(sm) if p.design == "srf" else None
        base = w.slot * self.nregs
        active = rec.active_mask.bit_count()
        if d.pipe != PIPE_MEM and not d.is_control and d.dsts:
            mech("uv.alu_ops", active)
            if iss.run == "scalar":
                mech("uv.scalar")
                mech("uv.thread_ops_saved", active - 1)
                if p.reliability:
                    mech("uv.alu_ops_covered", active)
            elif iss.run in ("hit", "eliminated"):
                mech("uv.scalar")
                mech("uv.thread_ops_saved", active)
                if p.reliability:
                    mech("uv.alu_ops_covered", active)
        if iss.cow:
            mech("uv.cow_vrf_writes", iss.cow)
        wrote = rec.active_mask != 0
        if iss.irb is not None and wrote:
            value = _bits(self._lanes(w, u.dst_keys[0]), 0) & ((1 << p.irb_value_bits) - 1)
            if iss.irb == "hit":
                if value != iss.stored:
                    mech("uv.irb_wrong")
                    if p.check:
                        raise SimtlabError(f"uv: IRB hit at pc {pc:#x} returned "
                                           f"{iss.stored:#x}, the instruction computes "
                                           f"{value:#x}")
            else:
                self._irb(sm).update(iss.way, u.tag, u.opcode, iss.srcs, value)
        kind = "vector"
        if wrote:
            uniform_result = iss.uniform and (srf is None or iss.run != "vector")
            broadcast = (not uniform_result and u.is_load and rec.mask == FULL
                         and rec.active_mask == FULL and self._broadcast(rec, u))
            for r in u.dsts:
                if uniform_result:
                    uset.add(r)
                elif broadcast and (srf is None or r in self.pconst
                                    or srf.define(base + r, True)[0]):
                    uset.add(r)
                    mech("uv.broadcast")
                    if srf is not None:
                        kind = "srf-broadcast"
                else:
                    uset.discard(r)
                    if srf is not None:
                        srf.release(base + r)
                if p.check and r in uset:
                    self._check_reg(w, pc, r)
            if iss.run != "vector":
                kind = "scalar"
        elif iss.run != "vector" and srf is not None:
            for r in u.dsts:  # nothing written (uniform guard false): undo the mapping
                if r not in uset:
                    srf.release(base + r)
        if d.dsts and iss.run != "eliminated":  # an eliminated instruction has no writeback
            self.inflight.setdefault((w, pc), deque()).append(kind)
        if self.dying is not None and rec.mask == FULL:
            for r in self.dying[pc >> 3]:
                if r in uset and r not in u.dsts:
                    uset.discard(r)
                    srf.release(base + r)
        if rec.finished:
            if srf is not None:
                for r in uset:
                    srf.release(base + r)
            self.uniform_regs.pop(w, None)

    def on_skip(self, sm, w, pc: int) -> None:
        """Composition with a fetch-stage mechanism (:mod:`golden.mechanisms.claims`): ``pc``
        was skipped at fetch for ``w`` and never issues: it is not counted, scalarised or
        looked up in the IRB. Token design: its destinations get the token the detection
        rule (§2.3) gives them from the warp's state when the skip lands, as if it had
        issued (a skipped broadcast load is not recognised: its destinations lose the
        token). SRF design: its destinations lose their SRF mapping (the warp reads them
        from where the skipping mechanism put them, DARSIE's leader's physical register).
        Counters ``uv.skipped`` and ``uv.skipped_uniform`` (skipped instructions this
        design would have detected uniform: the overlap of the two mechanisms)."""
        u = self.dec[pc >> 3]
        uset = self._uset(w)
        st = w.wave.stacks
        depth = int(st.depth[w.widx])
        full = depth > 0 and int(st.mask[w.widx, depth - 1]) == FULL
        mech = sm.stats.count_mechanism
        mech("uv.skipped")
        uniform = (u.eligible and full and not u.thread_special
                   and all(r in uset for r in u.src_regs) and (u.guard is None or u.guard in uset))
        if uniform:
            mech("uv.skipped_uniform")
        srf = self._srf(sm) if self.p.design == "srf" else None
        for r in u.dsts:
            if uniform and srf is None:
                uset.add(r)
            elif r in uset:
                uset.discard(r)
                if srf is not None:
                    srf.release(w.slot * self.nregs + r)

    def on_writeback(self, sm, w, pc: int, regs: list) -> list:
        q = self.inflight.get((w, pc))
        if not q:
            return regs
        kind = q.popleft()
        if not q:
            del self.inflight[(w, pc)]
        if kind == "vector" or not regs:
            return regs
        mech = sm.stats.count_mechanism
        n = len(regs)
        if kind == "srf-broadcast":
            mech("uv.srf_writes", n)
            return []
        two = self.p.reliability
        if self.p.design == "srf":
            mech("uv.srf_writes", n)
            if two:
                mech("uv.vrf_lane_writes", n)
        else:
            mech("uv.vrf_lane_writes", 2 * n if two else n)
        return []

    # ------------------------------------------------------------------ helpers
    def _detect(self, sm, w, pc, u, uset, mask, uniform, cow) -> None:
        """Drive the SM's uniform-detection logic (golden/structures/uv/detect.py) with this
        instruction's inputs, for trace recording; its verdict must equal the mechanism's.
        Instructions with more than three sources (guard included) are not presented."""
        dets = self.detectors
        if sm.id not in dets:
            from golden.structures.uv.detect import DetectParams, UniformDetect
            params = DetectParams()
            rec = self._recorder("uv_detect", sm, params)
            dets[sm.id] = UniformDetect(params, recorder=rec) if rec is not None else None
        det = dets[sm.id]
        if det is None:
            return
        s = sm.launch.program.slots[pc >> 3]
        srcs = [(k, self.index[s.regs[leaf.name]] if k == REG else None) for k, leaf in u.leaves]
        if u.guard is not None:
            srcs.append((REG, u.guard))
        if len(srcs) > 3:
            return
        out = det.detect([k for k, _ in srcs], [r is not None and r in uset for _, r in srcs],
                         mask, dst=bool(u.dsts), dst_uniform=any(r in uset for r in u.dsts),
                         eligible=u.eligible)
        if bool(out.uniform) != uniform or bool(out.cow) != bool(cow):
            raise SimtlabError(f"uv: detection logic and mechanism disagree at pc {pc:#x}: "
                               f"uniform {out.uniform} vs {uniform}, cow {out.cow} vs {cow}")

    @staticmethod
    def _broadcast(rec, u) -> bool:
        if u.param_load:
            return True
        m = rec.mem
        # local memory is per thread: one address names a different word in every lane
        if m is None or m.space not in ("global", "shared", "const") or not m.active.all():
            return False
        a = m.addrs[m.active]
        return bool((a == a[0]).all())

    def _check_reg(self, w, pc, r) -> None:
        v = self._lanes(w, self.keys[r])
        if not (v == v[0]).all():
            raise SimtlabError(f"uv: register {self.keys[r]} of warp {w.gid} marked uniform "
                               f"at pc {pc:#x} holds different lane values")




def _factory(design, mode):
    def make(config, **kw):
        return UVMechanism(config, UVParams(design=design, mode=mode, **kw))
    make.__name__ = f"make_uv_{design}_{mode}"
    return takes(UVParams, fixed=("design", "mode"))(make)


make_uv_token = _factory("token", "combined")
make_uv_token_intra = _factory("token", "intra")
make_uv_token_inter = _factory("token", "inter")
make_uv_srf = _factory("srf", "combined")
make_uv_srf_intra = _factory("srf", "intra")
make_uv_srf_inter = _factory("srf", "inter")


@takes(UVParams, fixed=("design", "mode", "eliminate"))
def make_uv_darsie(config, **kw):
    """``uv``: DARSIE's UV comparison point (seed 000 §5: "eliminates" uniform vector
    instructions at issue, never memory instructions) as a configuration of this model --
    token detection, intra-warp only, uniform instructions eliminated rather than run on
    one lane."""
    return UVMechanism(config, UVParams(design="token", mode="intra", eliminate=True, **kw))
