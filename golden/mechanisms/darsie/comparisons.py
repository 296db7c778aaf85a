"""The two comparison points of DARSIE's evaluation (seed 000 §5, §6.1) as mechanisms.

``uv`` -- uniform-vector elimination (seed 002 ch. 2, as DARSIE §5 describes it) is a
configuration of the full UV model: :func:`golden.mechanisms.uv.mechanism.make_uv_darsie`
(token detection, intra-warp, uniform instructions eliminated at issue, never memory
instructions). Before the UV chapter was built, ``uv`` compared source *values* at issue;
the token design detects uniformity from register state as the chapter's hardware does,
so it finds somewhat fewer uniform instructions (no value-coincidental uniformity, no
``%tid`` of a size-1 block dimension).

``dac-ideal`` -- idealised decoupled affine computation (Wang & Lin, as DARSIE models it)
-------------------------------------------------------------------------------------------
"Every affine instruction, redundant or not, is executed once" per TB, removed before
fetch, with zero cost to synchronise the affine and non-affine streams:

* an instruction *is affine* at a dynamic instance when its register sources are affine
  in the executing warp (``v[i] = v[0] + i * s`` over the 32 lanes as integers; float
  and predicate registers only when uniform; special registers ``%tid``/``%laneid`` and
  the uniform ones above count as affine) and so is its result; loads, stores, atomics,
  control flow and instructions without a register result are never affine;
* per TB and PC, the first warp to *fetch* its k-th dynamic instance of a
  classified-affine PC claims it and executes it (it is the affine stream, "executed
  once"); an instance nobody claimed is claimed by the warp that issues it. Executed
  instances have their operands checked; a PC is *classified affine* once an executed
  instance (in any TB of the launch) was affine and until one is found that is not;
* a warp with a full active mask reaching the k-th instance of a classified-affine PC
  that another warp claimed skips it at fetch at once, whether or not the claimant has
  executed it yet ("zero cost for synchronizing the affine and non-affine streams"): no
  fetch, decode, RF or execute; up to ``max_skips_per_fetch`` per cycle, no skip-table
  ports, no waiting. Its value comes from the idealised affine stream: the functional
  core evaluates the instruction for the warp when the warp's PC reaches it, so outputs
  stay exact. (``claim_at_fetch=false``, the model before issue 13: an instance is
  claimed only when its first execution issues, so every warp that fetched it before
  then executes it too.)

The per-warp affine test is our reading of "affine" (DAC's (base, stride) tuples per
warp); in 1D TBs it also removes per-warp-affine work that is not TB-redundant, as DAC
does and DARSIE does not (the paper: on 1D apps DAC-IDEAL ≈ DARSIE).
"""

from __future__ import annotations

import numpy as np

from golden.mechanisms.claims import FETCH, WARP_FORMATION
from golden.mechanisms.darsie.frontend import DeferredSkips, full_mask
from golden.ptx.ir import Addr, Imm, Reg, SpecialReg, Sym, Vec
from golden.timing.hooks import Mechanism

#: opcodes never eliminated by UV or DAC (memory, atomics, sync, control)
_NEVER = frozenset({"ld", "ldu", "st", "atom", "red", "bar", "barrier", "membar", "fence", "bra",
                    "call", "ret", "exit", "trap", "prefetch", "nanosleep", "vote", "activemask",
                    "match", "redux", "shfl", "tex", "tld4", "suld", "sust"})
_UNIFORM_SPECIALS = frozenset({"ctaid", "ntid", "nctaid", "smid", "nsmid", "gridid", "nwarpid",
                               "clock", "clock64", "globaltimer"})
_LANES = np.arange(32, dtype=np.int64)
_FULL = np.ones(32, dtype=bool)


def _leaves(op):
    if isinstance(op, Vec):
        return [e for e in op.elems if e is not None]
    if isinstance(op, Addr):
        return [op.base] if op.base is not None else []
    return [op]


def _sources(inst):
    ops = inst.operands
    return ops[1:] if ops else ()


def _special_kind(r: SpecialReg, block) -> str:
    """'uniform', 'affine' or 'vector' for a special register in a TB of shape ``block``."""
    if r.name in _UNIFORM_SPECIALS:
        return "uniform"
    if r.name == "tid":
        comp = {"x": 0, "y": 1, "z": 2}.get(r.component or "x", 0)
        return "uniform" if block[comp] == 1 else "affine"
    if r.name == "laneid":
        return "affine"
    return "vector"


def _lane_values(w, s, r: Reg) -> np.ndarray | None:
    key = s.regs.get(r.name)
    if key is None:
        return None
    return w.wave.launch.warp_register(w.wave, w.widx, key)


def _uniform(v: np.ndarray, active: np.ndarray) -> bool:
    a = v[active]
    return a.size == 0 or bool((a == a[0]).all())


def _affine(v: np.ndarray) -> bool:
    if v.dtype.kind in "iu":
        x = v.astype(np.int64)
        return bool((x == x[0] + _LANES * (x[1] - x[0])).all())
    return bool((v == v[0]).all())


class DacIdealMechanism(Mechanism):
    """``dac-ideal``: every affine instruction executed once per TB (see module docstring)."""

    name = "dac"
    #: register values are read through FunctionalLaunch.warp_register (deferral may stay on)
    reads_wave_registers = False
    #: skips fetch (and so issue) of affine instructions another warp of the TB executed;
    #: its on_issue only counts
    claims = frozenset({FETCH})
    #: skips by stepping the static warp (launch.next_pc / step_warp), not a formed one
    assumes = frozenset({WARP_FORMATION})

    #: sampled timing (whole-launch): affine-skip state spans the TBs of an SM; rebuilt per launch
    sampling = "whole-launch"
    sampling_reason = "affine-skip state spans the TBs of an SM; rebuilt per launch"

    def __init__(self, config, max_skips_per_fetch: int = 4, claim_at_fetch: bool = True):
        self.config = config
        self.max_skips = max_skips_per_fetch
        self.claim_at_fetch = claim_at_fetch

    def launch_begin(self, launch, sms) -> None:
        self._skips = DeferredSkips()
        self.affine: dict[int, bool] = {}
        self._tbs: dict[tuple, dict] = {}     # (sm, tb id) -> {"tb", "exec": {pc: n}, "visits": [..]}
        self._check: dict[int, tuple] = {}    # id(warp) -> (pc, sources affine)
        prog = launch.program
        self._keys = sorted(prog.reg_types)
        # every SM of a run decodes the program alike (a run over SMs of several kinds:
        # the pipeline classes differ, the destination registers do not)
        decoded = sms[0].decoded
        self.candidate = [s.inst is not None and s.inst.opcode not in _NEVER and bool(d.dsts)
                          for s, d in zip(prog.slots, decoded)]

    def _tb(self, sm, w) -> dict:
        key = (sm.id, w.tb.tb_id)
        t = self._tbs.get(key)
        if t is None or t["tb"] is not w.tb:
            t = self._tbs[key] = {"tb": w.tb, "exec": {}, "visits": [dict() for _ in w.tb.warps]}
        return t

    def on_fetch(self, sm, w, pc: int) -> bool:
        if not self.affine.get(pc) or not full_mask(w):
            return False
        t = self._tb(sm, w)
        visits = t["visits"][w.widx]
        skipped = 0
        claimed = t["exec"]
        while self.affine.get(pc):
            k = visits.get(pc, 0)
            if claimed.get(pc, 0) <= k:
                if self.claim_at_fetch and self._skips.can_skip(sm, w):
                    claimed[pc] = k + 1  # the affine stream's one execution of instance k
                return False  # this warp executes the instance (fetched normally)
            if skipped >= self.max_skips or not self._skips.can_skip(sm, w):
                return True
            visits[pc] = k + 1
            self._skips.skip(sm, w, pc, None)
            sm.stats.instructions_skipped += 1
            sm.stats.count_mechanism("dac.skipped")
            skipped += 1
            pc += 8
            w.fetch_pc = pc
        return False

    def on_issue(self, sm, w, pc: int, inst):
        if not self.candidate[pc >> 3]:
            return None
        t = self._tb(sm, w)
        visits = t["visits"][w.widx]
        k = visits.get(pc, 0)
        visits[pc] = k + 1
        ex = t["exec"]
        if ex.get(pc, 0) <= k:
            ex[pc] = k + 1
        s = sm.launch.program.slots[pc >> 3]
        block = sm.launch.geo.block
        ok = True
        ops = list(_sources(inst))
        if inst.guard is not None:
            ops.append(inst.guard.reg)
        for op in ops:
            for leaf in _leaves(op):
                if isinstance(leaf, (Imm, Sym)) or leaf is None:
                    continue
                if isinstance(leaf, SpecialReg):
                    ok = _special_kind(leaf, block) != "vector"
                elif isinstance(leaf, Reg):
                    v = _lane_values(w, s, leaf)
                    ok = v is not None and _affine(v)
                else:
                    ok = False
                if not ok:
                    break
            if not ok:
                break
        self._check[id(w)] = (pc, ok)
        return None

    def after_step(self, sm, w, pc: int, rec) -> None:
        chk = self._check.pop(id(w), None)
        if chk is not None:
            _pc, ok = chk
            if ok:
                keys = self._keys
                read = sm.launch.warp_register
                ok = all(_affine(read(w.wave, w.widx, keys[i])) for i in sm.decoded[pc >> 3].dsts)
            self.affine[pc] = ok and self.affine.get(pc, True)
        self._skips.drain(sm, w)


def make_dac_ideal(config, claim_at_fetch: bool = True):
    """``dac-ideal``; ``dac-ideal:claim_at_fetch=false`` lets every warp that reaches an
    instance before its first execution issues execute it too (the model before issue 13)."""
    if not isinstance(claim_at_fetch, bool):
        from golden.errors import ConfigError
        raise ConfigError(f"dac-ideal: claim_at_fetch must be true or false, not {claim_at_fetch!r}")
    return DacIdealMechanism(config, claim_at_fetch=claim_at_fetch)
