"""Functional SIMT execution of one kernel launch.

Thread blocks run in *waves* (as many TBs as fit a thread budget). Inside a wave, all
threads' registers are numpy arrays indexed by *slot* =
``(tb_in_wave * warps_per_tb + warp) * 32 + lane``. Threads are linearised x-fastest
(``tid.x + ntid.x * (tid.y + ntid.y * tid.z)``) into warps of 32.

Scheduling: each step picks the smallest TOS PC among runnable warps and executes that
instruction for *all* runnable warps at that PC as one numpy operation (each warp with
its own active mask). While that lowest-PC group is in a synchronising loop (an atomic,
volatile/relaxed/acquire load or fence in the loop body: spin-waits, locks, CAS loops),
every :data:`FAIR_PERIOD`-th step instead runs the ready group at the next PC, round
robin, so lock holders and flag setters at higher PCs progress. A warp alone at the
lowest PC runs several instructions per scan (:meth:`FunctionalLaunch._run_alone`, same
order). Reconvergence follows the per-warp PDOM stacks of
:mod:`golden.simt.stack`; a warp at ``bar.sync`` waits until every live warp of its TB
arrived. If no warp can run but some wait, that is a deadlock and is reported. A launch
that executes more than its watchdog's warp instructions (``max_instructions``, default
:data:`DEFAULT_MAX_INSTRUCTIONS`) stops with a report of the loops its warps run.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from golden.errors import DeadlockError, KernelFault, PTXError
from golden.exec.atomics import atomic_fn
from golden.exec.ops import compile_op
from golden.exec.types import DTYPE, UINT, imm_as, read_as, write_as
from golden.ptx.ir import Addr, Imm, Reg, SpecialReg, Sym, Vec, TYPE_SIZE
from golden.simt import fastpath
from golden.simt.liveness import operand_regs
from golden.simt.memory import GLOBAL_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE
from golden.simt.observer import ExecEvent
from golden.simt.printf import _cstring, format_printf
from golden.simt.program import Program, Slot
from golden.simt.stack import SimtStacks
from golden.simt.stats import LaunchStats

LANES = np.arange(32, dtype=np.int64)
_BITS = np.int64(1) << LANES

_MEM_SPACES = ("global", "shared", "local", "const", "param")
NULL_PAGE = 4096  # a faulting global address below this is reported as a null-pointer dereference
_NOPS = {"membar", "fence", "prefetch", "nanosleep", "pragma"}
#: Opcodes that change the SIMT stack or need the vectorised step (:meth:`FunctionalLaunch._step`).
_CONTROL_OPS = frozenset({"bra", "exit", "ret", "call", "bar", "barrier"})
#: Functional scheduling: the lowest-PC warp group runs first (the most batching), except
#: that while that group is inside a *synchronising loop* (a loop whose body has an atomic,
#: a volatile / relaxed / acquire load or a fence: a spin-wait, a lock, a compare-and-swap
#: loop), every FAIR_PERIOD-th step runs the ready group at the next PC (round robin over
#: the ready PCs), so the warps a spin-wait waits for (a lock holder, a flag setter) make
#: progress. Kernels without such loops, and launches with observers (whose statistics
#: depend on the warp groups), keep the pure lowest-PC order.
FAIR_PERIOD = 8
#: Default watchdogs (issue 19): warp instructions of one functional launch, cycles of one
#: timing-mode launch. At `paper` size the largest single launch of a shipped workload
#: executes 7.5M warp instructions (LAVAMD; LUD's 31 launches total 8.1M, its whole run
#: 8.8M) and the longest timing run is 5.2M cycles (BFS on gtx285, all 14 launches).
DEFAULT_MAX_INSTRUCTIONS = 20_000_000
DEFAULT_MAX_CYCLES = 50_000_000


@dataclass(frozen=True)
class _AluPlan:
    """A register/immediate-only ALU instruction decoded for the single-warp fast path:
    ``srcs`` = (storage key or None, register type, operand type, immediate value) per
    source; ``dsts`` = (storage key, result type, register type) or None per result."""

    fn: object
    srcs: tuple
    dsts: tuple
    #: the same instruction for the compiled per-lane kernels (:func:`_native_alu`), or None
    native: tuple | None = None


_FP = fastpath.CODES
_INT_TYPES = frozenset({"s16", "s32", "s64", "u16", "u32", "u64", "b16", "b32", "b64"})
_SETP = {("eq", "s"): _FP["SETP_EQ"], ("ne", "s"): _FP["SETP_NE"],
         ("eq", "u"): _FP["SETP_EQ"], ("ne", "u"): _FP["SETP_NE"],
         ("eq", "b"): _FP["SETP_EQ"], ("ne", "b"): _FP["SETP_NE"],
         ("lt", "s"): _FP["SETP_LT_S"], ("le", "s"): _FP["SETP_LE_S"],
         ("gt", "s"): _FP["SETP_GT_S"], ("ge", "s"): _FP["SETP_GE_S"],
         ("lt", "u"): _FP["SETP_LT_U"], ("le", "u"): _FP["SETP_LE_U"],
         ("gt", "u"): _FP["SETP_GT_U"], ("ge", "u"): _FP["SETP_GE_U"]}
_INT_CODES = {"add": _FP["ADD"], "sub": _FP["SUB"], "and": _FP["AND"],
              "or": _FP["OR"], "xor": _FP["XOR"], "shl": _FP["SHL"]}
_F32_CODES = {"add": _FP["FADD"], "sub": _FP["FSUB"], "mul": _FP["FMUL"]}


def _native_alu(inst, srcs: tuple, dsts: tuple) -> tuple | None:
    """The instruction as ``(kind, code, bits, operands, destination)`` for
    :mod:`golden.simt.fastpath` (kind 0: :func:`~golden.simt.fastpath.int_op`, operands
    ``(key, bytes per lane, immediate bits)``; kind 1: :func:`~golden.simt.fastpath.f32_op`,
    operands ``(key, immediate)``; three operands, unused ones ``(None, 0, 0)``), or None
    when the form is not one of the common ones those kernels implement exactly (every
    register read and write a bit copy of the operand's size, no modifiers beyond the listed
    ones). ``srcs`` / ``dsts`` as in :class:`_AluPlan`."""
    op = inst.opcode
    types = tuple(inst.types)
    tset = set(types)
    mods = tuple(m for m in inst.mods if m not in tset)
    if not types or len(srcs) > 3:
        return None
    live = [d for d in dsts if d is not None]
    if len(live) != 1 or dsts[0] is None:
        return None
    dkey, dt, drt = dsts[0]
    if (dt == "pred") != (drt == "pred") or TYPE_SIZE[dt] != TYPE_SIZE[drt]:
        return None
    for key, rt, t, _imm in srcs:
        if key is not None and ((rt == "pred") != (t == "pred") or TYPE_SIZE[rt] != TYPE_SIZE[t]):
            return None
    t = types[-1]
    if t == "f32" and op in ("add", "sub", "mul", "fma") and mods in ((), ("rn",)) \
            and (op != "fma" or mods == ("rn",)):
        code = _FP["FFMA"] if op == "fma" else _F32_CODES[op]
        ops = [(key, 0.0 if key is not None else float(imm), 0) for key, _rt, _t, imm in srcs]
        return (1, code, 32, tuple(ops + [(None, 0.0, 0)] * (3 - len(ops))), (dkey, 4))
    code = None
    if t in _INT_TYPES or t == "pred":
        if op in _INT_CODES and not mods and (t != "pred" or op in ("and", "or", "xor")):
            code = _INT_CODES[op]
            if op == "shl" and t[0] != "b":
                return None
        elif op == "shr" and not mods and t != "pred":
            code = _FP["SHR_S"] if t[0] == "s" else _FP["SHR_U"]
        elif op == "not" and not mods:
            code = _FP["NOT_PRED"] if t == "pred" else _FP["NOT"]
        elif op == "mul" and t != "pred" and mods in ((), ("lo",)):
            code = _FP["MUL_LO"]
        elif op == "mul" and mods == ("wide",) and t in ("s32", "u32"):
            code = _FP["MUL_WIDE_S"] if t == "s32" else _FP["MUL_WIDE_U"]
        elif op == "mad" and t != "pred" and mods == ("lo",):
            code = _FP["MAD_LO"]
        elif op in ("min", "max") and not mods and t[0] in "su":
            code = {("min", "s"): _FP["MIN_S"], ("max", "s"): _FP["MAX_S"],
                    ("min", "u"): _FP["MIN_U"], ("max", "u"): _FP["MAX_U"]}[(op, t[0])]
        elif op == "setp" and len(mods) == 1 and t != "pred" and len(srcs) == 2:
            code = _SETP.get((mods[0], t[0]))
        elif op == "mov" and not mods and len(srcs) == 1:
            code = _FP["MOV"]
        elif op == "selp" and not mods and t != "pred" and len(srcs) == 3:
            code = _FP["SELP"]
        elif op == "cvt" and not mods and types in (("s64", "s32"), ("u64", "u32")):
            code = _FP["CVT_SX"] if types[1] == "s32" else _FP["CVT_ZX"]
    elif op == "mov" and not mods and len(srcs) == 1 and t in ("f32", "f64"):
        code = _FP["MOV"]   # a bit copy, immediates included
    if code is None:
        return None
    ops = []
    for key, rt, st, imm in srcs:
        size = TYPE_SIZE[st] if st != "pred" else 1
        if key is not None:
            ops.append((key, size, 0))
        else:
            ops.append((None, size, int(np.asarray(imm, dtype=DTYPE[st]).reshape(())
                                        .view(UINT[np.dtype(DTYPE[st]).itemsize]))))
    bits = 8 * (TYPE_SIZE[t] if t != "pred" else 1)
    if code in (_FP["MUL_WIDE_S"], _FP["MUL_WIDE_U"]):
        bits = 32
    wd = TYPE_SIZE[dt] if dt != "pred" else 1
    return (0, code, bits, tuple(ops + [(None, 0, 0)] * (3 - len(ops))), (dkey, wd))


_NO_PLAN = object()
#: opcodes that read or write the carry flag (a register no operand names)
_CARRY_OPS = frozenset({"addc", "subc", "madc"})

#: opcodes with their own executor paths in FunctionalLaunch._execute
_EXECUTOR_PATH = frozenset({"ld", "ldu", "st", "atom", "red", "cvta", "vote", "activemask", "shfl",
                            "match", "redux", "trap"})
#: warp-wide operations (:meth:`FunctionalLaunch._warp_op`)
_WARP_OPS = frozenset({"vote", "activemask", "shfl", "match", "redux"})


#: most deferred instructions a warp holds: a longer queue runs its oldest (with its
#: group), so the dependence walk of FunctionalLaunch._run_needed stays short even when
#: a loop keeps deferring work nothing reads until the warp ends
DEFER_DEPTH = 16


class _Deferred:
    """One warp's deferred register-only instructions: ``entries`` [pc, mask, run] in
    program order (the first is never run; at most DEFER_DEPTH, run ones included), and
    bitmasks (FunctionalLaunch._reg_bit) holding at least every register the unrun ones
    read and write."""

    __slots__ = ("entries", "reads", "writes")

    def __init__(self):
        self.entries: deque = deque()
        self.reads = 0
        self.writes = 0


def _alu_plan(program: Program, s: Slot, compiled) -> "_AluPlan | None":
    """The fast-path plan of slot ``s``, or None when :meth:`FunctionalLaunch._execute`
    must run it (memory, warp-level, special-register or symbol operands, no-ops,
    undeclared registers: the slow path also reports errors). ``compiled(s)`` gives the
    slot's cached CompiledOp."""
    inst = s.inst
    op = inst.opcode
    if op in _EXECUTOR_PATH or op in _NOPS:
        return None
    if op == "mov" and isinstance(inst.operands[1], (SpecialReg, Sym)):
        return None
    try:
        c = compiled(s)
    except PTXError:
        return None
    srcs = []
    for o, t in zip(c.src_operands, c.src_types):
        if isinstance(o, Reg):
            key = s.regs.get(o.name)
            if key is None:
                return None
            srcs.append((key, program.reg_types[key], t, None))
        elif isinstance(o, Imm):
            srcs.append((None, None, t, imm_as(o, t)))
        else:
            return None
    dsts = []
    for r, t in zip(c.dst_operands, c.dst_types):
        if r is None:
            dsts.append(None)
            continue
        key = s.regs.get(r.name)
        if key is None:
            return None
        dsts.append((key, t, program.reg_types[key]))
    return _AluPlan(c.fn_raw, tuple(srcs), tuple(dsts), _native_alu(inst, tuple(srcs), tuple(dsts)))


@dataclass(frozen=True)
class _LoadPlan:
    """A ``ld`` / ``ldu`` from an explicit ``.global`` or ``.shared`` space through a
    register base, decoded for the single-warp fast path: ``base`` = storage key of the
    address register; ``offset`` its immediate offset; ``size`` / ``dtype`` / ``op_type``
    one element; ``dsts`` = (storage key, register type) or None per vector element."""

    space: str
    base: str
    offset: np.uint64
    size: int
    dtype: object
    op_type: str
    dsts: tuple
    #: the compiled per-lane path (golden.simt.fastpath) applies: an integer base register
    #: of 4 or 8 bytes (``base_width``, ``base_signed``) and destinations of the element's
    #: size (the load is a bit copy)
    native: bool = False
    base_width: int = 0
    base_signed: bool = False


def _load_plan(program: Program, s: Slot) -> "_LoadPlan | None":
    """The fast-path plan of a load, or None when :meth:`FunctionalLaunch._load` must run
    it (generic, local, const or param space, symbol or absolute addresses, 128-bit
    elements, undeclared registers)."""
    inst = s.inst
    if inst.opcode not in ("ld", "ldu"):
        return None
    space = _state_space(inst)
    t = inst.types[-1]
    addr = inst.operands[1]
    if space not in ("global", "shared") or t == "b128" or not isinstance(addr, Addr) \
            or not isinstance(addr.base, Reg) or addr.base.name not in s.regs:
        return None
    dst = inst.operands[0]
    dsts = []
    for r in (list(dst.elems) if isinstance(dst, Vec) else [dst]):
        if r is None:
            dsts.append(None)
            continue
        if not isinstance(r, Reg) or r.name not in s.regs:
            return None
        key = s.regs[r.name]
        dsts.append((key, program.reg_types[key]))
    size = TYPE_SIZE[t]
    base_t = program.reg_types[s.regs[addr.base.name]]
    kind = np.dtype(DTYPE[base_t]).kind
    native = (kind in "iu" and TYPE_SIZE[base_t] in (4, 8)
              and all(d is None or (d[1] != "pred" and TYPE_SIZE[d[1]] == size) for d in dsts))
    return _LoadPlan(space, s.regs[addr.base.name], np.uint64(addr.offset & 0xFFFFFFFFFFFFFFFF),
                     size, DTYPE[t], t, tuple(dsts), native, TYPE_SIZE[base_t], kind == "i")


@dataclass(frozen=True)
class _StorePlan:
    """A ``st`` to an explicit ``.global`` or ``.shared`` space through an integer base
    register of 4 or 8 bytes, whose sources are registers of the element's size or
    immediates, decoded for :mod:`golden.simt.fastpath`: ``srcs`` = (storage key or None,
    immediate bits) per vector element."""

    space: str
    base: str
    offset: int
    size: int
    srcs: tuple
    base_width: int
    base_signed: bool


def _store_plan(program: Program, s: Slot) -> "_StorePlan | None":
    """The compiled-kernel plan of a store, or None when :meth:`FunctionalLaunch._store`
    must run it (other spaces, symbol or absolute addresses, 128-bit elements, converting
    sources, undeclared registers)."""
    inst = s.inst
    if inst.opcode != "st" or len(inst.operands) != 2:
        return None
    space = _state_space(inst)
    t = inst.types[-1] if inst.types else None
    addr = inst.operands[0]
    if space not in ("global", "shared") or t is None or t == "b128" or t == "pred" \
            or not isinstance(addr, Addr) or not isinstance(addr.base, Reg) \
            or addr.base.name not in s.regs:
        return None
    base_t = program.reg_types[s.regs[addr.base.name]]
    kind = np.dtype(DTYPE[base_t]).kind
    if kind not in "iu" or TYPE_SIZE[base_t] not in (4, 8):
        return None
    size = TYPE_SIZE[t]
    src = inst.operands[1]
    srcs = []
    for o in (list(src.elems) if isinstance(src, Vec) else [src]):
        if isinstance(o, Reg):
            key = s.regs.get(o.name)
            if key is None or program.reg_types[key] == "pred" \
                    or TYPE_SIZE[program.reg_types[key]] != size:
                return None
            srcs.append((key, 0))
        elif isinstance(o, Imm):
            v = np.asarray(imm_as(o, t), dtype=DTYPE[t]).reshape(())
            srcs.append((None, int(v.view(UINT[v.dtype.itemsize]))))
        else:
            return None
    return _StorePlan(space, s.regs[addr.base.name], addr.offset & 0xFFFFFFFFFFFFFFFF, size,
                      tuple(srcs), TYPE_SIZE[base_t], kind == "i")


def _state_space(inst) -> str:
    """The state space a memory instruction names (``generic`` when it names none)."""
    for m in inst.mods:
        if m in _MEM_SPACES:
            return m
    return "generic"


def _elements(buf: np.ndarray, dtype) -> np.ndarray:
    """``buf`` (uint8, 16-byte aligned) viewed as ``dtype`` elements. Accesses are checked
    to be size-aligned, so every access is one element of this view."""
    size = np.dtype(dtype).itemsize
    return buf[: buf.size - buf.size % size].view(dtype)


def _typed_view(cache: dict, buf: np.ndarray, dtype) -> np.ndarray:
    """:func:`_elements` of ``buf``, kept in ``cache`` (``dtype -> (buffer, view)``; a
    different buffer object replaces the entry)."""
    hit = cache.get(dtype)
    if hit is not None and hit[0] is buf:
        return hit[1]
    view = _elements(buf, dtype)
    cache[dtype] = (buf, view)
    return view


def _sync_loops(program: Program) -> np.ndarray:
    """Per slot (and one past the end): whether it lies in a loop (from a backward branch's
    target to the branch) whose body synchronises with other warps: ``atom``, a volatile,
    relaxed or acquire load, or a fence / membar (see FAIR_PERIOD)."""
    slots = program.slots
    n = len(slots)
    sync = np.zeros(n + 1, dtype=np.int64)
    for i, s in enumerate(slots):
        inst = s.inst
        if inst is None:
            continue
        op = inst.opcode
        if op in ("atom", "membar", "fence") or (
                op in ("ld", "ldu") and any(m in inst.mods for m in ("volatile", "relaxed", "acquire"))):
            sync[i + 1] = 1
    count = np.cumsum(sync)   # count[i]: synchronising instructions before slot i
    out = np.zeros(n + 1, dtype=bool)
    for i, s in enumerate(slots):
        if (s.inst is not None and s.inst.opcode == "bra" and s.target is not None
                and s.target <= s.pc):
            t = s.target >> 3
            if count[i + 1] > count[t]:
                out[t:i + 1] = True
    return out


def _src_range(head: Slot, br: Slot) -> str:
    """``file:first-last`` source lines of the loop from ``head`` to the back edge ``br``,
    with both instructions' text."""
    hi, bi = head.inst, br.inst
    if bi is None or bi.loc is None:
        return f"pc 0x{br.pc:x}"
    first = hi.loc.line if hi is not None and hi.loc is not None else bi.loc.line
    text = f"`{hi.text.strip()}` .. " if hi is not None and hi is not bi else ""
    return f"{bi.loc.file}:{first}-{bi.loc.line} ({text}`{bi.text.strip()}`)"


def _store_lanes(arr: np.ndarray, lanes: slice, vals: np.ndarray, active: np.ndarray) -> None:
    """Write ``vals`` (one value, ndim 0, or one per lane) into the active lanes of
    ``arr[lanes]``."""
    if vals.ndim == 0:
        arr[lanes][active] = vals
    else:
        np.copyto(arr[lanes], vals, where=active)


def lane_ranges(lanes) -> str:
    """``[0, 1, 2, 5, 7, 8]`` -> ``"0-2, 5, 7-8"``."""
    out: list[str] = []
    lanes = [int(x) for x in lanes]
    i = 0
    while i < len(lanes):
        j = i
        while j + 1 < len(lanes) and lanes[j + 1] == lanes[j] + 1:
            j += 1
        out.append(str(lanes[i]) if i == j else f"{lanes[i]}-{lanes[j]}")
        i = j + 1
    return ", ".join(out)


def _MASK_BITS(mask: int) -> np.ndarray:
    """int lane bitmask -> bool (32,)."""
    return np.unpackbits(np.array([mask], dtype="<u4").view(np.uint8), bitorder="little").astype(bool)


def pack_bits(active: np.ndarray) -> np.ndarray:
    """bool (n*32,) -> int64 lane bitmask per warp (n,)."""
    return (active.reshape(-1, 32).astype(np.int64) << LANES).sum(axis=1)


def unpack_bits(masks: np.ndarray) -> np.ndarray:
    """int64 bitmask per warp (n,) -> bool (n*32,)."""
    return ((masks[:, None] >> LANES) & 1).astype(bool).ravel()


@dataclass
class MemAccess:
    """The lane addresses of the last memory instruction (for the timing model's coalescer)."""

    space: str
    addrs: np.ndarray
    active: np.ndarray
    size: int
    is_store: bool
    is_atomic: bool


@dataclass
class StepRecord:
    """What one warp instruction did, as seen by :meth:`FunctionalLaunch.step_warp`."""

    pc: int
    slot: Slot
    mask: int  # TOS active mask before the instruction (guard not applied)
    mem: MemAccess | None
    diverged: bool
    finished: bool
    at_barrier: bool
    active_mask: int = 0  # lanes that executed (TOS mask and guard)
    #: dynamic warps (:meth:`FunctionalLaunch.step_threads`): lanes whose ``bra`` is taken,
    #: and lanes whose thread exited
    taken: int = 0
    exited: int = 0
    #: the warp's PC after the step as the step left it (-1: finished), or None when the
    #: step did not record it (ask :meth:`FunctionalLaunch.next_pc`)
    next_pc: int | None = None


@dataclass
class LaunchGeometry:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]

    @property
    def threads_per_tb(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def warps_per_tb(self) -> int:
        return -(-self.threads_per_tb // 32)

    @property
    def num_tbs(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]


def _serial_atomic(kind: str, fn, dt, view: np.ndarray, el: np.ndarray, start: np.ndarray,
                   bv: np.ndarray, cv) -> np.ndarray:
    """Apply atomics one after another in array order, where ``el`` (element indices into
    ``view``, grouped: equal addresses adjacent, in lane order; ``start`` marks each group's
    first) may repeat. Updates ``view``; returns the old value each atomic saw. Integer
    add, exch, cas and the order-independent min/max/and/or/xor are vectorised (cost
    independent of how many lanes share an address); inc/dec and float add (rounding
    depends on the order) run in rounds that touch every address once."""
    n = el.size
    heads = np.flatnonzero(start)
    seg = np.cumsum(start) - 1
    first_el = el[heads]
    init = view[first_el]             # fancy indexing: a copy
    last = np.empty_like(heads)       # each address's last lane
    last[:-1] = heads[1:] - 1
    last[-1] = n - 1
    if kind == "add" and dt.kind in "iu":
        # exclusive prefix sums per address (wrap-around arithmetic)
        csum = np.cumsum(bv, dtype=dt)
        before = (csum - bv).astype(dt)
        old = (init[seg] + (before - before[heads][seg])).astype(dt)
        view[first_el] = (old[last] + bv[last]).astype(dt)
        return old
    if kind == "exch":
        # each lane sees the previous lane's value; the first sees memory; the last stays
        old = np.empty(n, dt)
        old[1:] = bv[:-1]
        old[heads] = init
        view[first_el] = bv[last]
        return old
    if kind == "cas":
        return _serial_cas(dt, view, first_el, init, seg, heads, last, bv, cv)
    if kind in ("min", "max", "and", "or", "xor"):
        # associative and commutative: a segmented inclusive scan (Hillis-Steele), then
        # old = init (op) scan of the lanes before
        x = bv.copy()
        f = start.copy()
        k = 1
        while k < n:
            x[k:] = np.where(f[k:], x[k:], fn(x[:-k], x[k:]))
            f[k:] |= f[:-k]
            k *= 2
        old = init[seg]
        nh = ~start
        old[nh] = fn(old[nh], x[:-1][nh[1:]])
        view[first_el] = fn(init, x[last])
        return old
    # rounds in which every address is touched once, in lane order
    rank = np.arange(n) - heads[seg]
    old = np.empty(n, dt)
    for r in range(int(rank.max()) + 1):
        m = rank == r
        e = el[m]
        o = view[e].copy()
        view[e] = fn(o, bv[m], None if cv is None else cv[m])
        old[m] = o
    return old


def _serial_cas(dt, view, first_el, init, seg, heads, last, bv, cv) -> np.ndarray:
    """Lane-ordered ``atom.cas`` on shared addresses, one iteration per *successful* swap of
    an address (a contended compare-and-swap loop has one winner per address): each
    iteration finds, per address, the next lane whose compare value equals the current
    word (bitwise); the lanes up to it see the current word, then it stores its value."""
    if cv is None:
        raise PTXError("atom.cas needs the new value operand c")
    udt = UINT[dt.itemsize]
    n = bv.size
    bu = bv.view(udt)
    cur = init
    pos = heads.copy()                         # next lane to process, per address
    end = last + 1                             # one past the address's last lane
    k = np.arange(n)
    old = np.empty(n, dt)
    todo = pos < end
    while todo.any():
        live = k >= pos[seg]
        hit = live & (bu == cur.view(udt)[seg])
        lim = end - 1                          # no hit: every remaining lane sees cur
        hk = np.flatnonzero(hit)
        if hk.size:   # the first hit of each address (lanes are grouped by address)
            hseg = seg[hk]
            firsts = np.empty(hk.size, dtype=bool)
            firsts[0] = True
            np.not_equal(hseg[1:], hseg[:-1], out=firsts[1:])
            hk, hs = hk[firsts], hseg[firsts]
            lim[hs] = hk
        upto = live & (k <= lim[seg])
        old[upto] = cur[seg[upto]]
        if hk.size:
            cur[hs] = cv[hk]
        pos = np.where(todo, lim + 1, pos)
        todo = pos < end
    view[first_el] = cur
    return old


class Wave:
    """State of the thread blocks ``tb_ids`` running together."""

    def __init__(self, launch: "FunctionalLaunch", tb_ids: np.ndarray):
        self.launch = launch
        p = launch.program
        geo = launch.geo
        self.tb_ids = tb_ids
        self.ntb = tb_ids.size
        self.wpt = geo.warps_per_tb
        self.nwarps = self.ntb * self.wpt
        self.T = self.nwarps * 32
        self.regs = {k: np.zeros(self.T, dtype=DTYPE[t]) for k, t in p.reg_types.items()}
        slot = np.arange(self.T, dtype=np.int64)
        self.tb_local = slot // (self.wpt * 32)
        tlin = slot % (self.wpt * 32)
        bx, by, _ = geo.block
        self.valid = tlin < geo.threads_per_tb
        self.tid = (tlin % bx, (tlin // bx) % by, tlin // (bx * by))
        tbl = tb_ids[self.tb_local]
        gx, gy, _ = geo.grid
        self.ctaid = (tbl % gx, (tbl // gx) % gy, tbl // (gx * gy))
        self.warp_tb = np.repeat(np.arange(self.ntb), self.wpt)
        init = pack_bits(self.valid)
        self.stacks = SimtStacks(init, start_pc=0)
        self.at_barrier = np.zeros(self.nwarps, dtype=bool)
        self.call_stack = np.zeros((self.nwarps, 0), dtype=np.int64)
        self.call_depth = np.zeros(self.nwarps, dtype=np.int64)
        #: per warp: backward branches taken (loop iterations) and the PC of the last one
        self.loop_iters = np.zeros(self.nwarps, dtype=np.int64)
        self.loop_pc = np.full(self.nwarps, -1, dtype=np.int64)
        self.sh_size = launch.shared_bytes
        self.shared = np.zeros(self.ntb * self.sh_size + 16, dtype=np.uint8)
        self.shared_fast = fastpath.u8_view(self.shared)  # as the per-lane kernels take it
        self.shared_views: dict = {}  # dtype -> (shared buffer, typed view), _typed_view
        self.reg_bytes: dict = {}     # register key -> its uint8 view (golden.simt.fastpath)
        self.reg_f32: dict = {}       # register key -> its float32 view (golden.simt.fastpath)
        self.local_size = p.local_size
        self.local = np.zeros(self.T * self.local_size + 16, dtype=np.uint8)
        self.slot = slot
        self.sh_base = self.tb_local * self.sh_size
        self.local_base = slot * self.local_size
        self.ones = np.ones(self.T, dtype=bool)
        self.ones32 = self.ones[:32]  # one warp's full path (FunctionalLaunch._path_bits)
        #: deferred register-only instructions (FunctionalLaunch.defer_registers): per warp
        #: its _Deferred queue, and per PC the warps whose oldest unrun deferred
        #: instruction is that PC ({warp: mask}), the groups that run together
        self.deferred: dict[int, "_Deferred"] = {}
        self.deferred_heads: dict[int, dict] = {}
        self.special_cache: dict = {}


class FunctionalLaunch:
    """Runs one launch of ``program`` functionally and returns :class:`LaunchStats`."""

    #: single-warp steps use the compiled per-lane kernels of golden.simt.fastpath where they
    #: apply (only when that module is compiled; the numpy paths give the same results)
    use_fastpath = fastpath.COMPILED

    #: ``tap(wave, warps, mem, vec)`` called with every memory access this launch executes
    #: (``warps``: the wave's warp index, or an array of them for a group step, whose
    #: lanes ``mem.addrs`` lists in order; ``vec``: the vector width); None (default): no
    #: call. Thread-block sampling sets it while it fast-forwards TBs, to warm the caches
    #: (golden/timing/functional_warming.py); it never changes execution.
    mem_tap = None

    def __init__(self, device, program: Program, geo: LaunchGeometry, params: bytes,
                 dyn_shared: int = 0, observers=(), max_wave_threads: int = 1 << 16,
                 watchdog: int | None = None):
        self.device = device
        self.gmem = device.memory
        self._gbuf = self._gview = None   # _global_fast
        self.program = program
        self.geo = geo
        self.params = np.frombuffer(params, dtype=np.uint8).copy() if params else np.zeros(8, np.uint8)
        self.shared_bytes = -(-(program.shared_static + dyn_shared) // 16) * 16
        self.observers = list(observers)
        self.max_wave_threads = max_wave_threads
        #: warp instructions after which :meth:`run` stops the launch (``max_instructions``)
        self.watchdog = DEFAULT_MAX_INSTRUCTIONS if watchdog is None else int(watchdog)
        self.name = program.kernel.name
        self.stats = LaunchStats(kernel=self.name, grid=geo.grid, block=geo.block)
        self._ops: dict[int, object] = {}
        self._last_mem: MemAccess | None = None
        self._last_active: int | None = None
        self._one: dict[int, np.ndarray] = {}  # warp -> np.array([warp]) for single-warp steps
        self._plans: dict[int, _AluPlan | None] = {}  # pc -> single-warp ALU plan (None: no plan)
        self._load_plans: dict[int, _LoadPlan | None] = {}  # pc -> single-warp load plan
        self._store_plans: dict = {}  # pc -> _StorePlan or None (golden.simt.fastpath)
        self._global_views: dict = {}  # dtype -> (global buffer, typed view), _typed_view
        self._mask_bits: dict[int, np.ndarray] = {}  # lane mask -> read-only bool (32,) lanes
        # per slot: inside a synchronising loop (round-robin steps there, see FAIR_PERIOD).
        # Observed launches keep the pure lowest-PC order: observers (DARSIE limit study,
        # G-Scalar statistics) see warp groups, which that order fixes.
        self._sync_loop = (_sync_loops(program) if not self.observers
                           else np.zeros(len(program.slots) + 1, dtype=bool))
        self.clock = 0
        #: timing mode: execute register-only ALU instructions (no guard, a fast-path plan)
        #: lazily, in groups of the warps of a wave that reached the same PC. A warp's
        #: deferred instructions run in program order, and only when needed: before an
        #: instruction it executes eagerly (memory, control, guarded, slow path) or a skip
        #: that touches a register they read or write, when a mechanism reads a register
        #: they write, when its queue passes DEFER_DEPTH, or at a dynamic-warp step; they
        #: touch only the warp's own registers, so results and statistics are those of
        #: eager execution. Only for
        #: callers that read registers through this class alone, or through
        #: warp_register / force_registers (the timing model turns it on when
        #: GPU.defer_registers is set and no mechanism reads wave registers directly).
        self.defer_registers = False
        self._reg_bit = {k: i for i, k in enumerate(program.reg_types)}
        self._rw_bits: dict[int, tuple[int, int]] = {}   # pc -> plan (reads, writes) bits
        self._touch: dict[int, int | None] = {}          # pc -> registers named, bits

    # ------------------------------------------------------------------ driver
    def run(self) -> LaunchStats:
        # floating-point warnings off for the whole launch (NaN/inf/overflow are PTX
        # results, not errors); _run_plan relies on it instead of a per-call errstate
        with np.errstate(all="ignore"):
            return self._run()

    def _run(self) -> LaunchStats:
        t0 = time.perf_counter()
        tbs_per_wave = max(1, self.max_wave_threads // (self.geo.warps_per_tb * 32))
        n = self.geo.num_tbs
        for start in range(0, n, tbs_per_wave):
            wave = Wave(self, np.arange(start, min(n, start + tbs_per_wave), dtype=np.int64))
            self._run_wave(wave)
            self.stats.thread_blocks += wave.ntb
            self.stats.warps += wave.nwarps
        self.stats.wall_seconds = time.perf_counter() - t0
        return self.stats

    # ------------------------------------------------------------------ per-warp stepping
    def make_wave(self, tb_ids) -> Wave:
        """State for thread blocks ``tb_ids`` (linear ids) for a caller that steps warps itself,
        e.g. the timing model (execution-driven: it calls :meth:`step_warp` when a warp's
        instruction executes)."""
        return Wave(self, np.asarray(tb_ids, dtype=np.int64))

    @staticmethod
    def next_pc(w: Wave, warp: int) -> int | None:
        """PC the warp executes next, or None if it finished."""
        d = int(w.stacks.depth[warp])
        return None if d == 0 else int(w.stacks.pc[warp, d - 1])

    @staticmethod
    def next_mask(w: Wave, warp: int) -> int:
        """Active mask of the warp's next instruction before its guard (SIMT-stack top), 0
        if it finished."""
        d = int(w.stacks.depth[warp])
        return 0 if d == 0 else int(w.stacks.mask[warp, d - 1])

    def step_warp(self, w: Wave, warp: int) -> "StepRecord | None":
        """Execute the next instruction of one warp (index within the wave).

        Returns None when the warp has finished or waits at a barrier; otherwise a
        :class:`StepRecord` with what the timing model needs (instruction, masks, memory
        addresses, whether it diverged, finished or now waits at a barrier).
        """
        st = w.stacks
        d = int(st.depth[warp])
        if d == 0 or w.at_barrier[warp]:
            return None
        pc = int(st.pc[warp, d - 1])
        mask = int(st.mask[warp, d - 1])
        s = self.program.slots[pc >> 3]
        self._last_mem = None
        self._last_active = None
        inst = s.inst
        if (inst is not None and not s.func_end and not self.observers
                and inst.opcode not in _CONTROL_OPS):
            if self.defer_registers and inst.guard is None and mask:
                plan = self._plans.get(pc, _NO_PLAN)
                if plan is _NO_PLAN:
                    plan = self._plans[pc] = _alu_plan(self.program, s, self._compiled)
                if plan is not None:
                    stats = self.stats
                    stats.warp_instructions += 1
                    stats.thread_instructions += mask.bit_count()
                    stats.by_opcode[inst.opcode] += 1
                    self._defer(w, warp, pc, mask)
                    nxt = w.stacks.advance_one(warp, pc + 8)
                    if nxt < 0:
                        self.flush_warp(w, warp)
                    return StepRecord(pc, s, mask, None, False, nxt < 0, False, mask, 0, 0, nxt)
            if w.deferred:
                self._force(w, warp, s)
            nxt = self._step_one(w, warp, pc, mask, s)
            act = self._last_active
            # a non-control instruction neither diverges nor reaches a barrier
            return StepRecord(pc, s, mask, self._last_mem, False, nxt < 0, False,
                              mask if act is None else act, 0, 0, nxt)
        else:
            if w.deferred:
                self._force(w, warp, s)   # no instruction (function end): flushes all
            if (inst is not None and inst.opcode == "bra" and not s.func_end
                    and not self.observers and self._branch_one(w, warp, pc, s)):
                diverged = False   # uniform: the scalar SIMT-stack update of _branch_one
            else:
                div_before = self.stats.divergent_branches
                self._step(w, np.array([warp], dtype=np.int64), pc)
                diverged = self.stats.divergent_branches > div_before
        act = self._last_active
        return StepRecord(pc=pc, slot=s, mask=mask, mem=self._last_mem, diverged=diverged,
                          finished=bool(st.depth[warp] == 0), at_barrier=bool(w.at_barrier[warp]),
                          active_mask=mask if act is None else act)

    @staticmethod
    def skip_warp(w: Wave, warp: int, values: dict) -> int:
        """Advance ``warp`` past the instruction at its PC *without executing it*, writing
        ``values`` into its registers instead (a DARSIE follower skipping a TB-redundant
        instruction receives the leader's result). ``values`` maps a register storage key
        to ``(lane values (32,), lanes written (32,) bool)``. Returns the skipped PC. Only
        for non-control instructions (the SIMT stack advances by one slot)."""
        if w.deferred:   # the values overwrite registers deferred work may read or write
            FunctionalLaunch.force_registers(w.launch, w, warp, values, write=True)
        st = w.stacks
        d = int(st.depth[warp])
        pc = int(st.pc[warp, d - 1])
        lanes = slice(warp * 32, warp * 32 + 32)
        for key, (vals, written) in values.items():
            np.copyto(w.regs[key][lanes], vals, where=written)
        st.advance_one(warp, pc + 8)
        return pc

    def step_threads(self, w: Wave, slots: np.ndarray, mask: int, pc: int) -> StepRecord:
        """Execute the instruction at ``pc`` for a *dynamic warp*: an arbitrary set of the
        threads of one thread block of ``w``, at most one per lane, each in its home lane
        (``slots[l]`` is the wave slot of the thread in lane ``l``, ``slots[l] % 32 ==
        l``; lanes without a thread are off in ``mask``). Thread block compaction forms
        such warps (seed 004 §2.2); executing them changes only which threads run
        together, never a thread's semantics, so with race-free kernels the results are
        bit-identical to static warps.

        The SIMT stacks are neither read nor changed: the caller (a warp-formation
        policy, :mod:`golden.timing.dynamic_warps`) owns PCs, masks and reconvergence.
        ``bra`` evaluates its guard and returns the taken lanes (``record.taken``);
        ``exit`` / kernel-level ``ret`` return the lanes that exited
        (``record.exited``); ``bar.sync`` returns ``at_barrier=True`` for the caller to
        synchronise. Instructions whose meaning depends on which threads form a warp
        (``shfl``, ``vote``, ``activemask``, ``match``, ``redux``), device-function
        calls and returns, and ``bar.arrive`` are refused with a :class:`PTXError`.
        """
        if w.deferred:   # any home warp of the threads may have deferred work
            self.flush_wave(w)
        s = self.program.slots[pc >> 3]
        inst = s.inst
        self._last_mem = None
        if s.func_end or inst is None:
            raise PTXError("dynamic warps: device functions are not supported (the program "
                           f"reached the end of function {s.func} at pc 0x{pc:x})")
        op = inst.opcode
        if (op in _WARP_OPS or op == "call" or (op == "ret" and s.target is not None)
                or (op in ("bar", "barrier") and ("arrive" in inst.mods or len(inst.operands) > 1))
                or (op == "bra" and s.target is None)):
            raise PTXError(f"dynamic warps cannot execute '{op}': its meaning depends on "
                           "which threads form a warp (or it needs a per-warp call stack)",
                           inst.loc, inst.text)
        path = self._path_bits(w, mask)
        lanes = slots
        active = path
        if inst.guard is not None:
            pv = w.regs[s.regs[inst.guard.reg.name]][lanes]
            active = path & (~pv if inst.guard.negated else pv)
        act = int(pack_bits(active)[0]) if inst.guard is not None else mask
        stats = self.stats
        stats.warp_instructions += 1
        stats.thread_instructions += act.bit_count()
        stats.by_opcode[op] += 1
        taken = exited = 0
        at_bar = False
        diverged = False
        if op == "bra":
            stats.branches += 1
            taken = act
            diverged = taken != 0 and taken != mask
            stats.divergent_branches += int(diverged)
        elif op in ("exit", "ret"):
            exited = act
        elif op in ("bar", "barrier"):
            if act and act != mask:
                raise PTXError("predicated bar.sync with a divergent guard is not supported",
                               inst.loc, inst.text)
            stats.barriers += 1
            at_bar = True
        elif act:
            if self.use_fastpath and self.mem_tap is None and self._home_step(w, s, pc, slots,
                                                                                  active, path, act):
                return StepRecord(pc=pc, slot=s, mask=mask, mem=self._last_mem, diverged=False,
                                  finished=False, at_barrier=False, active_mask=act, taken=0,
                                  exited=0)
            g = np.unique(slots[active] // 32)
            try:
                self._execute(w, s, lanes, active, path, g)
            except KernelFault as e:
                if e.lane is None:
                    raise
                home = int(slots[e.lane]) // 32   # _fault named the group's first warp
                raise KernelFault(e.message, kernel=e.kernel, pc=e.pc, loc=e.loc,
                                  warp=(f"{home % w.wpt} of thread block "
                                        f"{int(w.tb_ids[home // w.wpt])} (the thread's home "
                                        "warp; it ran in a dynamic warp)"),
                                  lane=e.lane, address=e.address, nearest=e.nearest) from None
        return StepRecord(pc=pc, slot=s, mask=mask, mem=self._last_mem, diverged=diverged,
                          finished=False, at_barrier=at_bar, active_mask=act, taken=taken,
                          exited=exited)

    def _home_step(self, w: Wave, s: Slot, pc: int, slots: np.ndarray, active: np.ndarray,
                   path: np.ndarray, act: int) -> bool:
        """:meth:`step_threads`' common case through the per-lane kernels of static warps:
        when every thread on ``path`` belongs to one home warp (a dynamic warp that is a
        static warp, possibly with lanes off), an ALU instruction, a load or a store with a
        compiled kernel (:meth:`_alu_fast`, :meth:`_load_fast`, :meth:`_store_fast`) runs
        on that warp's lane slice, exactly as :meth:`_step_one` runs it. Returns False,
        having changed nothing, otherwise (the generic path then runs it). The plain
        reference is ``use_fastpath = False`` (tests/simt/test_fastpath.py compares whole
        TBC / CAPRI runs with and without)."""
        home = slots[path] >> 5
        warp = int(home[0])
        if int(home[-1]) != warp or (home.size > 2 and not (home == warp).all()):
            return False
        lanes = slice(warp * 32, warp * 32 + 32)
        plan = self._plans.get(pc, _NO_PLAN)
        if plan is _NO_PLAN:
            plan = self._plans[pc] = _alu_plan(self.program, s, self._compiled)
        if plan is not None:
            nat = plan.native
            return nat is not None and self._alu_fast(w, nat, warp * 32, act)
        lp = self._load_plans.get(pc, _NO_PLAN)
        if lp is _NO_PLAN:
            lp = self._load_plans[pc] = _load_plan(self.program, s)
        if lp is not None:
            return bool(lp.native) and self._load_fast(w, lp, lanes, active, act)
        if s.inst.opcode != "st":
            return False
        sp = self._store_plans.get(pc, _NO_PLAN)
        if sp is _NO_PLAN:
            sp = self._store_plans[pc] = _store_plan(self.program, s)
        return sp is not None and self._store_fast(w, sp, lanes, active, act)

    # ------------------------------------------------------------------ deferred registers
    def _defer(self, w: Wave, warp: int, pc: int, mask: int) -> None:
        """Queue ``warp``'s register-only instruction at ``pc`` (see ``defer_registers``)."""
        q = w.deferred.get(warp)
        if q is None:
            q = w.deferred[warp] = _Deferred()
        if not q.entries:
            heads = w.deferred_heads.get(pc)
            if heads is None:
                heads = w.deferred_heads[pc] = {}
            heads[warp] = mask
        reads, writes = self._plan_bits(pc)
        q.entries.append([pc, mask, False])
        q.reads |= reads
        q.writes |= writes
        if len(q.entries) > DEFER_DEPTH:
            self._run_entry(w, warp, q.entries[0])
            self._settle(w, warp)

    def _plan_bits(self, pc: int) -> tuple[int, int]:
        """(registers read, registers written) of the planned instruction at ``pc`` as
        bitmasks over the program's storage keys."""
        rw = self._rw_bits.get(pc)
        if rw is None:
            plan = self._plans[pc]
            bit = self._reg_bit
            rw = self._rw_bits[pc] = (
                sum(1 << bit[k] for k in {k for k, _rt, _t, _i in plan.srcs if k is not None}),
                sum(1 << bit[d[0]] for d in {d for d in plan.dsts if d is not None}))
        return rw

    def _touch_bits(self, s: Slot) -> int | None:
        """Every register an instruction names (read or written, guard included) as a
        bitmask, or None when it may touch registers it does not name (the carry flag)."""
        t = self._touch.get(s.pc, _NO_PLAN)
        if t is _NO_PLAN:
            inst = s.inst
            if inst is None or inst.opcode in _CARRY_OPS or "cc" in inst.mods:
                t = None
            else:
                regs = [r for o in inst.operands for r in operand_regs(o)]
                if inst.guard is not None:
                    regs.append(inst.guard.reg)
                keys = {s.regs.get(r.name) for r in regs}
                if None in keys:
                    t = None
                else:
                    t = sum(1 << self._reg_bit[k] for k in keys)
            self._touch[s.pc] = t
        return t

    def _force(self, w: Wave, warp: int, s: Slot) -> None:
        """Before ``warp`` executes ``s`` eagerly: run the deferred instructions it depends
        on (they write a register ``s`` names, or read or write one it may write), with
        everything those depend on in turn; the others stay deferred."""
        q = w.deferred.get(warp)
        if q is None:
            return
        t = self._touch_bits(s)
        if t is None:
            self.flush_warp(w, warp)
            return
        if t & (q.reads | q.writes):
            self._run_needed(w, warp, q, t, t)

    def force_registers(self, w: Wave, warp: int, keys, write: bool = False) -> None:
        """Bring registers ``keys`` (storage keys) of ``warp`` up to date: run the deferred
        instructions that write them (and, with ``write``, those that read them: the
        caller is about to overwrite them), with everything those depend on, so the
        registers hold what eager execution would. A mechanism that reads wave registers
        while deferral is on calls this (or :meth:`warp_register`) first (see
        :attr:`golden.timing.hooks.Mechanism.reads_wave_registers`)."""
        q = w.deferred.get(warp)
        if q is None:
            return
        bit = self._reg_bit
        need = 0
        for k in keys:
            need |= 1 << bit[k]
        if need & (q.writes | q.reads if write else q.writes):
            self._run_needed(w, warp, q, need, need if write else 0)

    def warp_register(self, w: Wave, warp: int, key: str) -> np.ndarray:
        """The 32 lane values of register ``key`` of ``warp`` (a view into the wave's
        registers), with its deferred writes applied (:meth:`force_registers`)."""
        if w.deferred:
            self.force_registers(w, warp, (key,))
        return w.regs[key][warp * 32:warp * 32 + 32]

    def _run_needed(self, w: Wave, warp: int, q: "_Deferred", need_r: int, need_w: int) -> None:
        """Run ``warp``'s deferred entries that write a register in ``need_r`` or read or
        write one in ``need_w``, closed over their own dependences, in program order."""
        needed = []
        rest_r = rest_w = 0
        rw = self._rw_bits
        for e in reversed(q.entries):
            if e[2]:
                continue
            r, wr = rw[e[0]]
            if wr & need_r or (r | wr) & need_w:
                needed.append(e)
                need_r |= r
                need_w |= wr
            else:
                rest_r |= r
                rest_w |= wr
        q.reads, q.writes = rest_r, rest_w   # exact for what stays deferred
        for e in reversed(needed):
            if not e[2]:
                self._run_entry(w, warp, e)
        self._settle(w, warp)
        if needed and warp in w.deferred:   # drop the run entries behind the live head
            q.entries = deque(e for e in q.entries if not e[2])

    def flush_warp(self, w: Wave, warp: int) -> None:
        """Execute every deferred instruction of ``warp`` (in program order)."""
        q = w.deferred.get(warp)
        if q is None:
            return
        for e in q.entries:
            if not e[2]:
                self._run_entry(w, warp, e)
        self._settle(w, warp)

    def flush_wave(self, w: Wave) -> None:
        """Execute every deferred instruction of the wave."""
        for x in list(w.deferred):
            self.flush_warp(w, x)

    def _run_entry(self, w: Wave, warp: int, e: list) -> None:
        """Run deferred entry ``e`` of ``warp`` together with every warp of the wave whose
        oldest deferred instruction is the same PC (each warp's earlier instructions have
        run, so the group is independent: register-only, each warp its own registers)."""
        pc = e[0]
        heads = w.deferred_heads.get(pc)
        group = dict(heads) if heads else {}
        group[warp] = e[1]
        self._run_group(w, self._plans[pc], group)
        e[2] = True
        if heads:
            del w.deferred_heads[pc]
            queues = w.deferred
            for x in heads:
                if x != warp:
                    queues[x].entries[0][2] = True
                    self._settle(w, x)

    def _settle(self, w: Wave, warp: int) -> None:
        """Drop ``warp``'s leading run entries and register its new oldest entry as a
        head. Its register sets are left as they are: a superset of what its unrun
        entries touch is enough for :meth:`_force`'s first check, which tightens them."""
        q = w.deferred[warp]
        ents = q.entries
        heads = w.deferred_heads
        old = ents[0][0]
        if heads.get(old, {}).get(warp) is not None and ents[0][2]:
            h = heads[old]
            del h[warp]
            if not h:
                del heads[old]
        while ents and ents[0][2]:
            ents.popleft()
        if not ents:
            del w.deferred[warp]
            return
        head = ents[0]
        h = heads.get(head[0])
        if h is None:
            h = heads[head[0]] = {}
        h[warp] = head[1]

    def _run_group(self, w: Wave, plan: "_AluPlan", group: dict) -> None:
        """Run ``plan`` for the warps ``group`` ({warp: lane mask}) of ``w`` at once, over
        the lanes from the lowest to the highest of them; only the group's active lanes
        are written (lanes of other warps in between are computed and discarded)."""
        if len(group) == 1:
            for x, m in group.items():
                self._run_plan(w, plan, slice(x * 32, x * 32 + 32), self._path_bits(w, m),
                               m == 0xFFFFFFFF)
            return
        lo, hi = min(group), max(group)
        lanes = slice(lo * 32, hi * 32 + 32)
        if hi - lo + 1 == len(group) and all(m == 0xFFFFFFFF for m in group.values()):
            self._run_plan(w, plan, lanes, None, True)
            return
        masks = np.zeros(hi - lo + 1, dtype="<u4")
        for x, m in group.items():
            masks[x - lo] = m
        active = np.unpackbits(masks.view(np.uint8), bitorder="little").view(bool)
        self._run_plan(w, plan, lanes, active, False)

    def _path_bits(self, w: Wave, mask: int) -> np.ndarray:
        """Read-only bool (32,) lanes of a 32-bit lane mask (cached per mask)."""
        if mask == 0xFFFFFFFF:
            return w.ones32
        path = self._mask_bits.get(mask)
        if path is None:
            path = _MASK_BITS(mask)
            path.flags.writeable = False  # shared by every step with this mask
            if len(self._mask_bits) < 4096:
                self._mask_bits[mask] = path
        return path

    def _step_one(self, w: Wave, warp: int, pc: int, mask: int, s: Slot) -> int:
        """:meth:`_step` for one warp and a non-control instruction (the timing model's
        common case), with scalar SIMT-stack updates instead of vectorised ones. Returns
        the warp's next PC (-1 if it finished)."""
        inst = s.inst
        lanes = slice(warp * 32, warp * 32 + 32)
        path = self._path_bits(w, mask)
        active = path
        if inst.guard is not None:
            pv = w.regs[s.regs[inst.guard.reg.name]][lanes]
            active = path & (~pv if inst.guard.negated else pv)
            self._last_active = int(np.packbits(active, bitorder="little").view(np.uint32)[0])
        stats = self.stats
        op = inst.opcode
        stats.warp_instructions += 1
        nact = (mask if self._last_active is None else self._last_active).bit_count()
        stats.thread_instructions += nact
        stats.by_opcode[op] += 1
        if nact:
            plan = self._plans.get(pc, _NO_PLAN)
            if plan is _NO_PLAN:
                plan = self._plans[pc] = _alu_plan(self.program, s, self._compiled)
            if plan is not None:
                nat = plan.native
                if nat is None or not self.use_fastpath or not self._alu_fast(
                        w, nat, lanes.start, mask if self._last_active is None else self._last_active):
                    self._run_plan(w, plan, lanes, active, nact == 32)
                return w.stacks.advance_one(warp, pc + 8)
            lp = self._load_plans.get(pc, _NO_PLAN)
            if lp is _NO_PLAN:
                lp = self._load_plans[pc] = _load_plan(self.program, s)
            amask = mask if self._last_active is None else self._last_active
            if lp is None:
                if self.use_fastpath and inst.opcode == "st":
                    sp = self._store_plans.get(pc, _NO_PLAN)
                    if sp is _NO_PLAN:
                        sp = self._store_plans[pc] = _store_plan(self.program, s)
                    if sp is not None and self._store_fast(w, sp, lanes, active, amask):
                        return w.stacks.advance_one(warp, pc + 8)
            if lp is None or not (
                    self._load_fast(w, lp, lanes, active, amask)
                    if lp.native and self.use_fastpath else self._load_one(w, lp, lanes, active, nact)):
                g = self._one.get(warp)
                if g is None:
                    g = self._one[warp] = np.array([warp], dtype=np.int64)
                self._execute(w, s, lanes, active, path, g)
        return w.stacks.advance_one(warp, pc + 8)

    def _branch_one(self, w: Wave, x: int, pc: int, s: Slot) -> bool:
        """:meth:`_step` of a branch for warp ``x`` alone when the branch is uniform (every
        active lane goes the same way): scalar SIMT-stack update. Returns False, changing
        nothing, when it diverges."""
        st = w.stacks
        d = int(st.depth[x]) - 1
        mask = int(st.mask[x, d])
        inst = s.inst
        if s.target is None:
            return False
        taken = mask
        if inst.guard is not None:
            pv = w.regs[s.regs[inst.guard.reg.name]][x * 32: x * 32 + 32]
            bits = int(np.packbits(pv, bitorder="little").view(np.uint32)[0])
            taken = mask & ((~bits if inst.guard.negated else bits) & 0xFFFFFFFF)
            if taken and taken != mask:
                return False
            self._last_active = taken   # the lanes the guard lets through, as _step records
        stats = self.stats
        stats.warp_instructions += 1
        stats.thread_instructions += taken.bit_count()
        stats.by_opcode["bra"] += 1
        stats.branches += 1
        if taken:
            if s.target <= pc:
                w.loop_iters[x] += 1
                w.loop_pc[x] = pc
            st.advance_one(x, s.target)
        else:
            st.advance_one(x, pc + 8)
        return True

    @staticmethod
    def _alu_fast(w: Wave, nat: tuple, lane0: int, amask: int) -> bool:
        """One warp's ALU instruction through :func:`golden.simt.fastpath.alu` (``nat``
        from :func:`_native_alu`). False, having changed nothing, when the kernel declines
        (an f32 NaN result): :meth:`_run_plan` then runs it."""
        return fastpath.alu(nat, w.regs, w.reg_bytes, w.reg_f32, lane0, amask)

    @staticmethod
    def _run_plan(w: Wave, plan: "_AluPlan", lanes: slice, active: np.ndarray, full: bool) -> None:
        """Execute an ALU instruction of one warp from its precompiled :class:`_AluPlan`
        (same semantics as :meth:`_execute`'s generic path: read_as / fn / write_as)."""
        regs = w.regs
        vals = []
        for key, rt, t, imm in plan.srcs:
            if key is None:
                vals.append(imm)
            else:
                v = regs[key][lanes]
                vals.append(v if rt == t else read_as(v, rt, t))
        res = plan.fn(*vals)  # callers run under np.errstate(all="ignore") (run, GPU)
        for d, v in zip(plan.dsts, res):
            if d is None:
                continue
            key, t, rt = d
            arr = regs[key]
            v = write_as(np.asarray(v), t, rt)
            if full:
                arr[lanes] = v
            else:
                _store_lanes(arr, lanes, v.reshape(()) if v.size == 1 else v, active)

    def _run_wave(self, w: Wave) -> None:
        st = w.stacks
        fair_at = FAIR_PERIOD   # clock of the next round-robin step
        rr_pc = -1              # PC of the group the last round-robin step ran
        while True:
            tos = st.tos_pc()
            runnable = (st.depth > 0) & ~w.at_barrier
            if not runnable.any():
                if w.at_barrier.any():
                    self._release_barriers(w)
                    if not ((st.depth > 0) & ~w.at_barrier).any():
                        raise DeadlockError(self._deadlock_report(w))
                    continue
                return
            pc = int(tos[runnable].min())
            if self.clock >= fair_at and not self._sync_loop[pc >> 3]:
                fair_at = self.clock + FAIR_PERIOD
            elif self.clock >= fair_at:
                # fairness: the ready group at the next PC after the last one this rule ran
                # (wrapping around), so warps above the lowest PC are never starved
                fair_at = self.clock + FAIR_PERIOD
                ready = tos[runnable]
                above = ready[ready > rr_pc]
                pc = rr_pc = int(above.min() if above.size else ready.min())
            g = np.flatnonzero(runnable & (tos == pc))
            if g.size == 1 and not self.observers:
                fair_at = self._run_alone(w, int(g[0]), pc, runnable, tos, fair_at)
                continue
            self._step(w, g, pc)
            self.clock += 1
            if self.stats.warp_instructions > self.watchdog:
                raise DeadlockError(self._watchdog_report(
                    w, f"more than {self.watchdog:,} warp instructions (max_instructions)"))

    def _run_alone(self, w: Wave, x: int, pc: int, runnable, tos, fair_at: int) -> int:
        """Step warp ``x`` (alone at ``pc``) for as long as the scheduling rule of
        :meth:`_run_wave` would pick it again, without rescanning every warp: until its PC
        reaches the lowest PC of the other ready warps (they would join its group or run
        first), it leaves a branch-free path (barrier, exit, call, return), finishes, or the
        next round-robin step is due. Returns the clock of that round-robin step."""
        st = w.stacks
        others = runnable.copy()
        others[x] = False
        alone = not others.any()      # no other ready warp: no round-robin step to make
        lim = 1 << 62 if alone else int(tos[others].min())
        slots = self.program.slots
        g = self._one.get(x)
        if g is None:
            g = self._one[x] = np.array([x], dtype=np.int64)
        while True:
            s = slots[pc >> 3]
            inst = s.inst
            if inst is not None and inst.opcode == "bra" and not s.func_end:
                if not self._branch_one(w, x, pc, s):
                    self._step(w, g, pc)   # divergent: push the paths
                cont = True
            elif inst is None or s.func_end or inst.opcode in _CONTROL_OPS:
                self._step(w, g, pc)
                cont = False
            else:
                d = int(st.depth[x])
                self._last_active = None
                self._step_one(w, x, pc, int(st.mask[x, d - 1]), s)
                cont = True
            self.clock += 1
            if self.stats.warp_instructions > self.watchdog:
                raise DeadlockError(self._watchdog_report(
                    w, f"more than {self.watchdog:,} warp instructions (max_instructions)"))
            d = int(st.depth[x])
            if not cont or d == 0 or (self.clock >= fair_at and not alone):
                return fair_at
            pc = int(st.pc[x, d - 1])
            if pc >= lim:
                return fair_at

    # ------------------------------------------------------------------ reports
    def _watchdog_report(self, w: Wave, why: str) -> str:
        live = np.flatnonzero(w.stacks.depth > 0)
        lines = [f"kernel {self.name}: watchdog: {why}; warps appear stuck in a loop "
                 f"(if the kernel is only long, raise the limit: max_instructions= of the "
                 f"launch, --max-instructions of simtlab run)"]
        lines += self.loop_report([(w, int(x)) for x in live])
        lines.append(f"  current PCs: {self._pcs_report(w)}")
        return "\n".join(lines)

    def loop_report(self, warps, max_loops: int = 4) -> list[str]:
        """Lines describing the loops ``warps`` (``(wave, warp index)`` pairs) run: per loop
        (backward branch), its PTX source lines and instructions, and its warps with their
        iteration counts (backward branches taken), most iterated first."""
        p = self.program
        loops: dict[int, list] = {}
        for w, x in warps:
            pc = int(w.loop_pc[x])
            if pc >= 0:
                loops.setdefault(pc, []).append((int(w.loop_iters[x]), w, x))
        if not loops:
            return ["  no warp has taken a backward branch (no loop iterations counted)"]
        out = []
        ranked = sorted(loops.items(), key=lambda kv: -max(n for n, _, _ in kv[1]))
        for pc, ws in ranked[:max_loops]:
            br = p.slot_at(pc)
            head = p.slot_at(br.target) if br.target is not None else br
            where = _src_range(head, br)
            ws.sort(key=lambda t: (-t[0], int(t[1].tb_ids[t[2] // t[1].wpt]), t[2]))
            items = [f"tb {int(wv.tb_ids[x // wv.wpt])} warp {x % wv.wpt} ({n:,} iterations)"
                     for n, wv, x in ws[:6]]
            more = f" (+{len(ws) - 6} more warps)" if len(ws) > 6 else ""
            out.append(f"  loop {where}: {len(ws)} warp(s): {', '.join(items)}{more}")
        if len(ranked) > max_loops:
            out.append(f"  (+{len(ranked) - max_loops} more loops)")
        return out

    def pc_where(self, pc: int | None) -> str:
        """``pc 0x.. (file:line:col `instruction`)`` for reports; ``exited`` for None."""
        if pc is None:
            return "exited"
        s = self.program.slot_at(int(pc))
        if s.inst is None:
            return f"pc 0x{int(pc):x} (end of function {s.func})"
        return f"pc 0x{int(pc):x} ({s.inst.loc} `{s.inst.text.strip()}`)"

    def _pcs_report(self, w: Wave) -> str:
        tos = w.stacks.tos_pc()
        parts = []
        for pc in np.unique(tos[tos >= 0])[:8]:
            ws = np.flatnonzero(tos == pc)
            parts.append(f"{self.pc_where(int(pc))}: warps {self._warp_list(w, ws)}")
        return "; ".join(parts)

    def _warp_list(self, w: Wave, ws: np.ndarray) -> str:
        items = [f"tb {int(w.tb_ids[x // w.wpt])} warp {int(x % w.wpt)}" for x in ws[:6]]
        return ", ".join(items) + (f" (+{ws.size - 6} more)" if ws.size > 6 else "")

    def _deadlock_report(self, w: Wave) -> str:
        lines = [f"deadlock in kernel {self.name}: no warp can make progress"]
        tos = w.stacks.tos_pc()
        for tb in np.unique(w.warp_tb[w.at_barrier]):
            ws = np.flatnonzero(w.warp_tb == tb)
            waiting = ws[w.at_barrier[ws]]
            done = ws[w.stacks.depth[ws] == 0]
            pcs = sorted({int(tos[x]) - 8 for x in waiting})
            locs = [str(w.launch.program.slot_at(p).inst.loc) for p in pcs]
            lines.append(f"  thread block {int(w.tb_ids[tb])}: {waiting.size} warp(s) wait at barrier "
                         f"{', '.join(locs)}; {done.size} warp(s) already exited and can never arrive")
        return "\n".join(lines)

    def _release_barriers(self, w: Wave) -> None:
        live = w.stacks.depth > 0
        n_live = np.bincount(w.warp_tb[live], minlength=w.ntb)
        n_wait = np.bincount(w.warp_tb[w.at_barrier & live], minlength=w.ntb)
        n_total = np.full(w.ntb, w.wpt)
        # a TB's barrier completes when every warp that has not exited arrived, and none exited
        done = (n_wait == n_live) & (n_wait > 0) & (n_live == n_total)
        if done.any():
            w.at_barrier &= ~done[w.warp_tb]

    # ------------------------------------------------------------------ one step
    def _lanes(self, g: np.ndarray):
        if g[-1] - g[0] + 1 == g.size:
            return slice(int(g[0]) * 32, (int(g[-1]) + 1) * 32)
        return (g[:, None] * 32 + LANES).ravel()

    def _step(self, w: Wave, g: np.ndarray, pc: int) -> None:
        p = self.program
        s = p.slots[pc >> 3]
        st = w.stacks
        masks = st.tos_mask(g)
        path = w.ones[: g.size * 32] if (masks == 0xFFFFFFFF).all() else unpack_bits(masks)
        lanes = self._lanes(g)
        if s.func_end:
            self._return(w, g, s, lanes, path)
            return
        inst = s.inst
        active = path
        if inst.guard is not None:
            pv = w.regs[s.regs[inst.guard.reg.name]][lanes]
            active = path & (~pv if inst.guard.negated else pv)
            if g.size == 1:
                self._last_active = int(pack_bits(active)[0])
        stats = self.stats
        op = inst.opcode
        stats.warp_instructions += g.size
        nact = int(active.sum())
        stats.thread_instructions += nact
        stats.by_opcode[op] += g.size
        srcs = self._observe_srcs(w, s, lanes) if self.observers else None

        if op == "bra":
            taken = pack_bits(active)
            if s.target is not None and s.target <= pc:  # a loop's back edge: count the warps' iterations
                back = (taken & masks) != 0
                if back.any():
                    w.loop_iters[g] += back
                    w.loop_pc[g[back]] = pc
            div = st.branch(g, taken, s.target, pc + 8, s.rpc)
            stats.branches += g.size
            stats.divergent_branches += int(div.sum())
            st.reconverge(g)
        elif op in ("exit", "ret") and s.target is None:
            st.advance(g, pc + 8)
            st.kill_lanes(g, pack_bits(active))
            st.reconverge(g)
        elif op == "ret":  # return from a device function: branch to the function end
            st.branch(g, pack_bits(active), s.target, pc + 8, s.rpc)
            st.reconverge(g)
        elif op == "call" and s.callee == "vprintf":
            if nact:
                self._vprintf(w, s, lanes, active, g)
            st.advance(g, pc + 8)
            st.reconverge(g)
        elif op == "call" and s.callee == "__assertfail":
            if nact:
                self._assertfail(w, s, lanes, active, g)
            st.advance(g, pc + 8)
            st.reconverge(g)
        elif op == "call":
            self._call(w, g, s, lanes, active, path)
        elif op in ("bar", "barrier"):
            if nact and not np.array_equal(active, path):
                raise PTXError("predicated bar.sync with a divergent guard is not supported",
                               inst.loc, inst.text)
            stats.barriers += g.size
            st.advance(g, pc + 8)
            if "arrive" not in inst.mods:
                w.at_barrier[g] = True
                self._release_barriers(w)
        else:
            if nact:
                self._execute(w, s, lanes, active, path, g)
            st.advance(g, pc + 8)
            st.reconverge(g)
        if self.observers:
            self._emit(w, s, pc, g, lanes, active, path, srcs)

    # ------------------------------------------------------------------ observers
    def _observe_srcs(self, w: Wave, s: Slot, lanes):
        inst = s.inst
        if inst is None:
            return []
        out = []
        ops = inst.operands
        first_src = 0 if inst.opcode in ("st", "red", "bra", "bar", "barrier", "call") else 1
        for o in ops[first_src:]:
            for r in self._flat(o):
                if isinstance(r, Reg):
                    out.append((r, w.regs[s.regs[r.name]][lanes].reshape(-1, 32).copy()))
                elif isinstance(r, SpecialReg):
                    out.append((r, self._special(w, r, "u32")[lanes].reshape(-1, 32).copy()))
        return out

    @staticmethod
    def _flat(o):
        if isinstance(o, Vec):
            return [e for e in o.elems if e is not None]
        if isinstance(o, Addr):
            return [o.base] if isinstance(o.base, Reg) else []
        return [o]

    def _emit(self, w, s, pc, g, lanes, active, path, srcs):
        inst = s.inst
        dsts = []
        if inst is not None and inst.opcode not in ("st", "red", "bra", "bar", "barrier", "call", "exit", "ret") \
                and inst.operands:
            for r in self._flat(inst.operands[0]):
                if isinstance(r, Reg):
                    dsts.append((r, w.regs[s.regs[r.name]][lanes].reshape(-1, 32).copy()))
        ev = ExecEvent(inst=inst, pc=pc, warps=w.tb_ids[w.warp_tb[g]] * w.wpt + g % w.wpt,
                       tbs=w.tb_ids[w.warp_tb[g]], warp_in_tb=g % w.wpt,
                       active=active.reshape(-1, 32), path_mask=path.reshape(-1, 32),
                       srcs=srcs or [], dsts=dsts)
        for o in self.observers:
            o.on_exec(ev)

    # ------------------------------------------------------------------ values
    def special_values(self, w: Wave, r: SpecialReg, t: str = "u32") -> np.ndarray:
        """Per-thread values of special register ``r`` in wave ``w`` (as type ``t``)."""
        return self._special(w, r, t)

    def _special(self, w: Wave, r: SpecialReg, t: str) -> np.ndarray:
        key = (r.name, r.component)
        v = w.special_cache.get(key)
        if v is None:
            comp = {"x": 0, "y": 1, "z": 2}.get(r.component or "x", 0)
            geo = self.geo
            slot = np.arange(w.T, dtype=np.int64)
            lane = slot % 32
            nm = r.name
            if nm == "tid":
                v = w.tid[comp]
            elif nm == "ntid":
                v = np.full(w.T, geo.block[comp])
            elif nm == "ctaid":
                v = w.ctaid[comp]
            elif nm == "nctaid":
                v = np.full(w.T, geo.grid[comp])
            elif nm == "laneid":
                v = lane
            elif nm == "warpid":
                v = (slot // 32) % w.wpt
            elif nm == "nwarpid":
                v = np.full(w.T, self.device.max_warps_per_sm)
            elif nm == "smid":
                v = w.tb_ids[w.tb_local] % self.device.num_sms
            elif nm == "nsmid":
                v = np.full(w.T, self.device.num_sms)
            elif nm == "gridid":
                v = np.zeros(w.T)
            elif nm.startswith("lanemask_"):
                rel = nm[len("lanemask_"):]
                full = np.int64(0xFFFFFFFF)
                m = {"eq": np.int64(1) << lane, "lt": (np.int64(1) << lane) - 1,
                     "le": (np.int64(1) << (lane + 1)) - 1}
                m["ge"] = full & ~m["lt"]
                m["gt"] = full & ~m["le"]
                v = m[rel]
            elif nm in ("clock", "clock64", "globaltimer"):
                return np.full(w.T, self.clock, dtype=DTYPE[t])
            else:
                raise PTXError(f"unsupported special register %{nm}")
            v = np.asarray(v, dtype=np.int64)
            w.special_cache[key] = v
        return v.astype(DTYPE[t])

    def _sym_addr(self, w: Wave, s: Slot, name: str, space: str | None = None) -> tuple[str, int]:
        """(space, address) of a variable named in an instruction."""
        p = self.program
        if name in p.shared_layout:
            return "shared", p.shared_layout[name]
        if name in p.extern_shared:
            return "shared", p.shared_static + (-p.shared_static % 16)
        if s.func != p.kernel.name and f"{s.func}::{name}" in p.local_layout:
            return "local", p.local_layout[f"{s.func}::{name}"]
        if name in p.local_layout:
            return "local", p.local_layout[name]
        if name in p.param_offsets and space in (None, "param"):
            return "param", p.param_offsets[name][0]
        gv = self.device.module_symbol(p.module, name)
        if gv is not None:
            return "global", gv
        inst = s.inst
        raise PTXError(f"unknown symbol '{name}'", inst.loc if inst else None, inst.text if inst else None)

    def _read(self, w: Wave, s: Slot, o, t: str, lanes):
        if isinstance(o, Reg):
            key = s.regs.get(o.name)
            if key is None:
                raise PTXError(f"undeclared register {o.name}", s.inst.loc, s.inst.text)
            return read_as(w.regs[key][lanes], self.program.reg_types[key], t)
        if isinstance(o, Imm):
            return imm_as(o, t)
        if isinstance(o, SpecialReg):
            return self._special(w, o, t)[lanes]
        if isinstance(o, Sym):
            space, addr = self._sym_addr(w, s, o.name)
            if space == "param":
                raise PTXError("taking the address of a kernel parameter is not supported", s.inst.loc, s.inst.text)
            return np.asarray(addr, dtype=DTYPE[t]) if TYPE_SIZE[t] >= 4 else np.asarray(addr & 0xFFFF, DTYPE[t])
        raise PTXError(f"unsupported operand {o!r}", s.inst.loc, s.inst.text)

    def _write(self, w: Wave, s: Slot, r, values, t: str, lanes, active) -> None:
        if r is None:
            return
        key = s.regs[r.name]
        arr = w.regs[key]
        vals = write_as(np.asarray(values), t, self.program.reg_types[key])
        if vals.ndim and vals.size == 1 and active.size != 1:
            vals = vals.reshape(())
        if isinstance(lanes, slice):
            _store_lanes(arr, lanes, vals, active)
        else:
            idx = lanes[active]
            arr[idx] = vals if vals.ndim == 0 else vals[active]

    # ------------------------------------------------------------------ execution
    def _execute(self, w: Wave, s: Slot, lanes, active, path, g) -> None:
        inst = s.inst
        op = inst.opcode
        if op in ("ld", "ldu"):
            self._load(w, s, lanes, active, g)
        elif op == "st":
            self._store(w, s, lanes, active, g)
        elif op in ("atom", "red"):
            self._atomic(w, s, lanes, active, g)
        elif op == "cvta":
            self._cvta(w, s, lanes, active)
        elif op == "mov" and isinstance(inst.operands[1], (SpecialReg, Sym)):
            t = inst.types[-1]
            self._write(w, s, inst.operands[0], self._read(w, s, inst.operands[1], t, lanes), t, lanes, active)
        elif op in _WARP_OPS:
            self._warp_op(w, s, lanes, active, path)
        elif op == "trap":
            self._trap(w, s, active, g)
        elif op in _NOPS:
            return
        else:
            c = self._compiled(s)
            vals = [self._read(w, s, o, t, lanes) for o, t in zip(c.src_operands, c.src_types)]
            with np.errstate(all="ignore"):
                res = c.fn_raw(*vals)
            for r, t, v in zip(c.dst_operands, c.dst_types, res):
                self._write(w, s, r, v, t, lanes, active)

    def _compiled(self, s: Slot):
        """The :class:`~golden.exec.compiled.CompiledOp` of slot ``s`` (compiled once per PC)."""
        c = self._ops.get(s.pc)
        if c is None:
            c = self._ops[s.pc] = compile_op(s.inst)
        return c

    def _cvta(self, w, s, lanes, active):
        inst = s.inst
        t = inst.types[-1]
        v = self._read(w, s, inst.operands[1], t, lanes).astype(np.uint64)
        space = next((m for m in inst.mods if m in ("global", "shared", "local", "const", "param")), "global")
        base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
        if base:
            if "to" in inst.mods:
                v = np.where(v >= np.uint64(base), v - np.uint64(base), v)
            else:
                v = v + np.uint64(base)
        self._write(w, s, inst.operands[0], v.astype(DTYPE[t]), t, lanes, active)

    # ------------------------------------------------------------------ memory
    def _addresses(self, w, s, addr: Addr, lanes, nl: int):
        """(space_from_symbol or None, uint64 addresses per lane)."""
        off = np.uint64(addr.offset & 0xFFFFFFFFFFFFFFFF)
        if isinstance(addr.base, Reg):
            key = s.regs[addr.base.name]
            v = w.regs[key][lanes]
            v = v.view(np.uint64) if v.dtype.itemsize == 8 else v.astype(np.uint64)
            return None, v + off
        if isinstance(addr.base, Sym):
            space, a = self._sym_addr(w, s, addr.base.name, None)
            return space, np.full(nl, np.uint64(a) + off, dtype=np.uint64)
        return None, np.full(nl, off, dtype=np.uint64)

    def _fault(self, w, s, g, active, addrs, lane_bad, msg, nearest, null_page: bool = False):
        i = int(np.flatnonzero(lane_bad & active)[0])
        warp = int(g[i // 32])
        tb = int(w.tb_ids[warp // w.wpt])
        if null_page and int(addrs[i]) < NULL_PAGE:
            msg = (f"null pointer dereference: {msg} in the first {NULL_PAGE} bytes of the address "
                   f"space (a pointer argument or variable that is 0 / NULL?)")
            nearest = lambda a: None  # noqa: E731 - the distance to an allocation says nothing here
        raise KernelFault(msg, kernel=self.name, pc=s.pc, loc=s.inst.loc,
                          warp=f"{warp % w.wpt} of thread block {tb}", lane=i % 32,
                          address=int(addrs[i]), nearest=nearest(int(addrs[i])))

    def _resolve(self, w, s, g, lanes, active, addrs, space, size):
        """Map lane addresses to (lane selector, uint8 buffer, byte offsets) partitions,
        checking alignment and bounds of the active lanes."""
        inst = s.inst
        if space == "generic":
            sh = (addrs >= np.uint64(SHARED_WINDOW)) & (addrs < np.uint64(SHARED_WINDOW + WINDOW_SIZE))
            lo = (addrs >= np.uint64(LOCAL_WINDOW)) & (addrs < np.uint64(LOCAL_WINDOW + WINDOW_SIZE))
            if not (sh | lo).any():
                return self._resolve(w, s, g, lanes, active, addrs, "global", size)
            parts = []
            for sel, sp, base in ((sh, "shared", SHARED_WINDOW), (lo, "local", LOCAL_WINDOW),
                                  (~(sh | lo), "global", 0)):
                if (sel & active).any():
                    parts += self._resolve(w, s, g, lanes, active & sel,
                                           addrs - np.uint64(base), sp, size)
            return parts
        all_active = bool(active.all())
        act_addrs = addrs if all_active else addrs[active]
        if not act_addrs.size:
            return []
        if (act_addrs & np.uint64(size - 1)).any():
            bad_align = (addrs & np.uint64(size - 1)) != 0
            self._fault(w, s, g, active, addrs, bad_align, f"misaligned {size}-byte {space} access",
                        lambda a: "n/a")
        amin, amax = int(act_addrs.min()), int(act_addrs.max())
        if space in ("global", "const"):
            if not self.gmem.contains(amin, amax + size):
                bad = self.gmem.find_bad(addrs, size)
                if (bad & active).any():
                    self._fault(w, s, g, active, addrs, bad, f"out-of-bounds {space} memory access",
                                self.gmem.nearest, null_page=True)
            return [(active, self.gmem.buffer, (addrs - np.uint64(GLOBAL_BASE)).view(np.int64))]
        if space == "shared":
            if amax + size > w.sh_size:
                bad = addrs + np.uint64(size) > np.uint64(w.sh_size)
                self._fault(w, s, g, active, addrs, bad, "out-of-bounds shared memory access",
                            lambda a: f"shared memory of the thread block [0, {w.sh_size})")
            return [(active, w.shared, w.sh_base[lanes] + addrs.view(np.int64))]
        if space == "local":
            if amax + size > w.local_size:
                bad = addrs + np.uint64(size) > np.uint64(w.local_size)
                self._fault(w, s, g, active, addrs, bad, "out-of-bounds local memory access",
                            lambda a: f"local memory of the thread [0, {w.local_size})")
            return [(active, w.local, w.local_base[lanes] + addrs.view(np.int64))]
        if space == "param":
            if amax + size > self.params.size:
                bad = addrs + np.uint64(size) > np.uint64(self.params.size)
                self._fault(w, s, g, active, addrs, bad, "out-of-bounds kernel parameter access",
                            lambda a: f"parameter buffer [0, {self.params.size})")
            return [(active, self.params, addrs.view(np.int64))]
        raise PTXError(f"unsupported state space .{space}", inst.loc, inst.text)

    @staticmethod
    def _gather(buf, offs, dtype):
        return _elements(buf, dtype)[offs // np.dtype(dtype).itemsize]

    @staticmethod
    def _scatter(buf, offs, values, dtype):
        _elements(buf, dtype)[offs // np.dtype(dtype).itemsize] = values

    def _mem_setup(self, w, s, lanes, addr_op, g, active, size):
        inst = s.inst
        space = _state_space(inst)
        nl = active.size
        sym_space, addrs = self._addresses(w, s, addr_op, lanes, nl)
        if sym_space is not None and space in ("generic",):
            space = sym_space
        if space == "param" and sym_space == "local":
            space = "local"  # device-function call parameters live per thread
        self.stats.mem_warp_accesses[space] += g.size
        self.stats.mem_thread_accesses[space] += int(active.sum())
        self._last_mem = MemAccess(space=space, addrs=addrs, active=active, size=size,
                                   is_store=inst.opcode == "st", is_atomic=inst.opcode in ("atom", "red"))
        if self.mem_tap is not None:
            self.mem_tap(w, g, self._last_mem,
                         next((int(m[1:]) for m in inst.mods if m in ("v2", "v4", "v8")), 1))
        return space, addrs

    def _load_one(self, w: Wave, plan: _LoadPlan, lanes: slice, active: np.ndarray,
                  nact: int) -> bool:
        """:meth:`_load` of one warp from its :class:`_LoadPlan`. Checks alignment and
        bounds first and returns False, having changed nothing, when an active lane fails
        them (the slow path then reports the fault) or the access is not inside one
        allocation; otherwise loads, writes the destinations and returns True."""
        v = w.regs[plan.base][lanes]
        addrs = (v.view(np.uint64) if v.dtype.itemsize == 8 else v.astype(np.uint64)) + plan.offset
        full = nact == 32
        act = addrs if full else addrs[active]
        size = plan.size
        if int(np.bitwise_or.reduce(act)) & (size - 1):
            return False
        end = int(np.maximum.reduce(act)) + size * len(plan.dsts)
        space = plan.space
        if space == "global":
            if not self.gmem.contains(int(np.minimum.reduce(act)), end):
                return False
            view = _typed_view(self._global_views, self.gmem.buffer, plan.dtype)
            offs = (addrs - np.uint64(GLOBAL_BASE)).view(np.int64)
        else:  # addresses are unsigned: only the upper end can leave the TB's window
            if end > w.sh_size:
                return False
            view = _typed_view(w.shared_views, w.shared, plan.dtype)
            # one warp's lanes all belong to one TB: one shared-window base
            offs = addrs.view(np.int64) + int(w.sh_base[lanes.start])
        stats = self.stats
        stats.mem_warp_accesses[space] += 1
        stats.mem_thread_accesses[space] += nact
        self._last_mem = MemAccess(space=space, addrs=addrs, active=active, size=size,
                                   is_store=False, is_atomic=False)
        if self.mem_tap is not None:
            self.mem_tap(w, lanes.start >> 5, self._last_mem, len(plan.dsts))
        idx = offs // size
        regs = w.regs
        t = plan.op_type
        for k, d in enumerate(plan.dsts):
            if full:
                out = view[idx + k if k else idx]
            else:  # inactive lanes may hold any address: gather only the active ones
                out = np.zeros(32, dtype=plan.dtype)
                out[active] = view[(idx + k if k else idx)[active]]
            if d is None:
                continue
            key, rt = d
            vals = write_as(out, t, rt)
            if full:
                regs[key][lanes] = vals
            else:
                np.copyto(regs[key][lanes], vals, where=active)
        return True

    def _global_fast(self):
        """Global memory's buffer as the per-lane kernels take it (:func:`fastpath.u8_view`,
        made again only when a host allocation replaced the buffer)."""
        buf = self.gmem.buffer
        if buf is not self._gbuf:
            self._gbuf = buf
            self._gview = fastpath.u8_view(buf)
        return self._gview

    def _load_fast(self, w: Wave, plan: _LoadPlan, lanes: slice, active: np.ndarray,
                   amask: int) -> bool:
        """:meth:`_load_one` through the compiled per-lane kernels (``plan.native``; same
        checks, same results, same False-and-nothing-changed when the slow path must run).
        ``amask``: the active lanes as a 32-bit mask (not 0)."""
        rb = w.reg_bytes
        base = rb.get(plan.base)
        if base is None:
            base = rb[plan.base] = fastpath.u8_view(w.regs[plan.base].view(np.uint8))
        lane0 = lanes.start
        size = plan.size
        addrs = np.empty(32, dtype=np.uint64)
        acc, amin, amax = fastpath.load_addresses(base, plan.base_width, plan.base_signed, lane0,
                                                  int(plan.offset), amask, addrs)
        if acc & (size - 1):
            return False
        end = amax + size * len(plan.dsts)
        space = plan.space
        if space == "global":
            if not self.gmem.contains(amin, end):
                return False
            mem, sub, base_off = self._global_fast(), GLOBAL_BASE, 0
        else:
            if end > w.sh_size:
                return False
            mem, sub, base_off = w.shared_fast, 0, int(w.sh_base[lane0])
        stats = self.stats
        stats.mem_warp_accesses[space] += 1
        stats.mem_thread_accesses[space] += amask.bit_count()
        self._last_mem = MemAccess(space=space, addrs=addrs, active=active, size=size,
                                   is_store=False, is_atomic=False)
        if self.mem_tap is not None:
            self.mem_tap(w, lanes.start >> 5, self._last_mem, len(plan.dsts))
        for k, d in enumerate(plan.dsts):
            if d is None:
                continue
            dst = rb.get(d[0])
            if dst is None:
                dst = rb[d[0]] = fastpath.u8_view(w.regs[d[0]].view(np.uint8))
            fastpath.gather(mem, addrs, sub, base_off, size, k, amask, dst, lane0)
        return True

    def _store_fast(self, w: Wave, plan: _StorePlan, lanes: slice, active: np.ndarray,
                    amask: int) -> bool:
        """One warp's :meth:`_store` through the compiled per-lane kernels (same checks and
        memory bytes; False, having changed nothing, when the slow path must run)."""
        rb = w.reg_bytes
        base = rb.get(plan.base)
        if base is None:
            base = rb[plan.base] = fastpath.u8_view(w.regs[plan.base].view(np.uint8))
        lane0 = lanes.start
        size = plan.size
        addrs = np.empty(32, dtype=np.uint64)
        acc, amin, amax = fastpath.load_addresses(base, plan.base_width, plan.base_signed, lane0,
                                                  plan.offset, amask, addrs)
        if acc & (size - 1):
            return False
        end = amax + size * len(plan.srcs)
        space = plan.space
        if space == "global":
            if not self.gmem.contains(amin, end):
                return False
            mem, sub, base_off = self._global_fast(), GLOBAL_BASE, 0
        else:
            if end > w.sh_size:
                return False
            mem, sub, base_off = w.shared_fast, 0, int(w.sh_base[lane0])
        stats = self.stats
        stats.mem_warp_accesses[space] += 1
        stats.mem_thread_accesses[space] += amask.bit_count()
        self._last_mem = MemAccess(space=space, addrs=addrs, active=active, size=size,
                                   is_store=True, is_atomic=False)
        if self.mem_tap is not None:
            self.mem_tap(w, lanes.start >> 5, self._last_mem, len(plan.srcs))
        for k, (key, imm) in enumerate(plan.srcs):
            src = None
            if key is not None:
                src = rb.get(key)
                if src is None:
                    src = rb[key] = fastpath.u8_view(w.regs[key].view(np.uint8))
            fastpath.scatter(mem, addrs, sub, base_off, size, k, amask, src, imm, lane0)
        return True

    def _load(self, w, s, lanes, active, g):
        inst = s.inst
        t = inst.types[-1]
        size = TYPE_SIZE[t]
        dt = DTYPE[t] if t != "b128" else np.uint64
        dst = inst.operands[0]
        regs = list(dst.elems) if isinstance(dst, Vec) else [dst]
        space, addrs = self._mem_setup(w, s, lanes, inst.operands[1], g, active, size)
        for k, r in enumerate(regs):
            a = addrs + np.uint64(k * size)
            parts = self._resolve(w, s, g, lanes, active, a, space, size)
            if len(parts) == 1 and parts[0][0] is active and active.all():
                out = self._gather(parts[0][1], parts[0][2], dt)
            else:
                out = np.zeros(active.size, dtype=dt)
                for sel, buf, offs in parts:
                    out[sel] = self._gather(buf, offs[sel], dt)
            if r is not None:
                self._write(w, s, r, out, t, lanes, active)

    def _store(self, w, s, lanes, active, g):
        inst = s.inst
        t = inst.types[-1]
        size = TYPE_SIZE[t]
        dt = DTYPE[t]
        src = inst.operands[1]
        vals = list(src.elems) if isinstance(src, Vec) else [src]
        space, addrs = self._mem_setup(w, s, lanes, inst.operands[0], g, active, size)
        for k, o in enumerate(vals):
            v = np.broadcast_to(self._read(w, s, o, t, lanes), active.shape)
            a = addrs + np.uint64(k * size)
            for sel, buf, offs in self._resolve(w, s, g, lanes, active, a, space, size):
                if sel.all():
                    self._scatter(buf, offs, v, dt)
                else:
                    self._scatter(buf, offs[sel], v[sel], dt)

    def _atomic(self, w, s, lanes, active, g):
        inst = s.inst
        t = inst.types[-1]
        size = TYPE_SIZE[t]
        dt = DTYPE[t]
        ops = inst.operands
        if inst.opcode == "atom":
            dst, addr_op, rest = ops[0], ops[1], ops[2:]
        else:
            dst, addr_op, rest = None, ops[0], ops[1:]
        kind = next(m for m in inst.mods if m in ("add", "min", "max", "exch", "cas", "and", "or",
                                                     "xor", "inc", "dec"))
        space, addrs = self._mem_setup(w, s, lanes, addr_op, g, active, size)
        try:  # PTX: global (not shared) f32 atomic add flushes subnormals
            fn = atomic_fn(kind, t, ftz=(kind == "add" and t == "f32" and space != "shared"))
        except PTXError as e:
            raise PTXError(str(e), inst.loc, inst.text) from None
        b = np.broadcast_to(self._read(w, s, rest[0], t, lanes), active.shape)
        c = np.broadcast_to(self._read(w, s, rest[1], t, lanes), active.shape) if len(rest) > 1 else None
        old_all = np.zeros(active.size, dtype=dt)
        for sel, buf, offs in self._resolve(w, s, g, lanes, active, addrs, space, size):
            idx = np.flatnonzero(sel)
            if not idx.size:
                continue
            view = _elements(buf, dt)
            el = offs[idx] // size
            # serialise lanes that hit the same address, in lane order
            if idx.size > 1:
                order = np.argsort(el, kind="stable")
                idx, el = idx[order], el[order]
            start = np.empty(idx.size, dtype=bool)
            start[0] = True
            np.not_equal(el[1:], el[:-1], out=start[1:])
            if start.all():  # every lane its own address: one vectorised update
                old = view[el].copy()
                with np.errstate(all="ignore"):
                    view[el] = fn(old, b[idx], None if c is None else c[idx])
                old_all[idx] = old
                continue
            bv = b[idx].astype(dt)
            cv = None if c is None else c[idx].astype(dt)
            with np.errstate(all="ignore"):
                old_all[idx] = _serial_atomic(kind, fn, dt, view, el, start, bv, cv)
        if dst is not None:
            self._write(w, s, dst, old_all, t, lanes, active)

    # ------------------------------------------------------------------ trap / assert
    def _first_warp(self, w, g, active):
        """(warp index in the wave, its active lanes, 'warp w of thread block t') of the
        first warp of group ``g`` with an active lane."""
        k = int(np.flatnonzero(active)[0]) // 32
        warp = int(g[k])
        lanes = np.flatnonzero(active[k * 32:(k + 1) * 32])
        tb = int(w.tb_ids[warp // w.wpt])
        return warp, lanes, f"{warp % w.wpt} of thread block {tb}"

    def _thread_coords(self, w, slot: int) -> str:
        t = ",".join(str(int(c[slot])) for c in w.tid)
        b = ",".join(str(int(c[slot])) for c in w.ctaid)
        return f"block [{b}], thread [{t}]"

    def _trap(self, w, s, active, g):
        """``trap`` (``__trap()``): the kernel aborts with a :class:`KernelFault`."""
        warp, lanes, where = self._first_warp(w, g, active)
        raise KernelFault(f"trap instruction executed (__trap() or asm(\"trap;\")): the kernel "
                          f"aborted; first trapping thread: "
                          f"{self._thread_coords(w, warp * 32 + int(lanes[0]))}",
                          kernel=self.name, pc=s.pc, loc=s.inst.loc, warp=where,
                          lanes=lane_ranges(lanes))

    def _assertfail(self, w, s, lanes, active, g):
        """``assert()`` failed: nvcc calls ``__assertfail(message, file, line, function,
        charSize)``; report them as a :class:`KernelFault` (CUDA aborts the kernel)."""
        inst = s.inst
        args = [a.name for a in inst.operands[2].elems] if isinstance(inst.operands[2], Vec) else []
        warp, wl, where = self._first_warp(w, g, active)
        li = int(wl[0])
        slot = warp * 32 + int(wl[0])
        base = slot * w.local_size

        def arg(i: int, size: int) -> int | None:
            if i >= len(args):
                return None
            off = base + self._local_param(s, args[i])
            return int(w.local[off:off + size].view(np.uint64 if size == 8 else np.uint32)[0])

        def text(ptr) -> str:
            if not ptr:
                return "?"
            try:
                return _cstring(lambda a, n: self._read_generic(w, s, g, li, a, n, slot), ptr)
            except KernelFault:
                return f"<unreadable string at 0x{ptr:x}>"

        msg, file, line, func = text(arg(0, 8)), text(arg(1, 8)), arg(2, 4), text(arg(3, 8))
        raise KernelFault(f"assertion `{msg}` failed at {file}:{line} in {func}: "
                          f"{self._thread_coords(w, slot)}",
                          kernel=self.name, pc=s.pc, loc=inst.loc, warp=where,
                          lanes=lane_ranges(wl))

    # ------------------------------------------------------------------ warp-level ops
    def _warp_op(self, w, s, lanes, active, path):
        inst = s.inst
        op = inst.opcode
        n = active.size // 32
        act2 = active.reshape(n, 32)
        if op in ("match", "redux"):
            self._match_redux(w, s, lanes, active, n, act2)
            return
        if op == "activemask":
            m = pack_bits(active).astype(np.uint32)
            self._write(w, s, inst.operands[0], np.repeat(m, 32), "b32", lanes, active)
            return
        if op == "vote":
            mode = next(m for m in inst.mods if m in ("ballot", "any", "all", "uni"))
            pv = np.broadcast_to(self._read(w, s, inst.operands[1], "pred", lanes), active.shape)
            if "ballot" == mode:
                bits = pack_bits(active & pv).astype(np.uint32)
                self._write(w, s, inst.operands[0], np.repeat(bits, 32), "b32", lanes, active)
                return
            pa = (pv & active).reshape(n, 32)
            if mode == "any":
                r = pa.any(axis=1)
            elif mode == "all":
                r = (pa | ~act2).all(axis=1)
            else:
                r = (pa | ~act2).all(axis=1) | ~pa.any(axis=1)
            self._write(w, s, inst.operands[0], np.repeat(r, 32), "pred", lanes, active)
            return
        # shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask
        mode = next(m for m in inst.mods if m in ("up", "down", "bfly", "idx"))
        d = inst.operands[0]
        dregs = list(d.elems) if isinstance(d, Vec) else [d, None]
        a = np.broadcast_to(self._read(w, s, inst.operands[1], "b32", lanes), active.shape).reshape(n, 32)
        bb = np.broadcast_to(self._read(w, s, inst.operands[2], "b32", lanes), active.shape).astype(np.int64) & 0x1F
        cc = np.broadcast_to(self._read(w, s, inst.operands[3], "b32", lanes), active.shape).astype(np.int64)
        lane = np.tile(LANES, n)
        seg = (cc >> 8) & 0x1F
        cval = cc & 0x1F
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j = lane - bb
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bb
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bb
            ok = j <= max_lane
        else:
            j = min_lane | (bb & ~seg)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        rows = np.repeat(np.arange(n), 32)
        out = a[rows, j]
        self._write(w, s, dregs[0], out, "b32", lanes, active)
        if len(dregs) > 1 and dregs[1] is not None:
            self._write(w, s, dregs[1], ok, "pred", lanes, active)

    def _match_redux(self, w, s, lanes, active, n, act2):
        """``match.{any,all}.sync.{b32,b64} d[|p], a, membermask`` and
        ``redux.sync.{add,min,max}.{u32,s32}`` / ``redux.sync.{and,or,xor}.b32 d, a,
        membermask``. A lane takes part when it is active and in its ``membermask``; every
        active lane receives the result of the lanes taking part in its warp."""
        inst = s.inst
        op = inst.opcode
        ops = inst.operands
        if len(ops) != 3:
            raise PTXError(f"'{op}' expects 3 operands (d, a, membermask), got {len(ops)}",
                           inst.loc, inst.text)
        mods = set(inst.mods)
        t = inst.types[-1] if inst.types else None
        lane = np.tile(LANES, n)
        mm = np.broadcast_to(self._read(w, s, ops[2], "b32", lanes), active.shape).astype(np.int64)
        part = (active & (((mm >> lane) & 1) == 1)).reshape(n, 32)
        d = ops[0]
        if op == "match":
            mode = "any" if "any" in mods else "all" if "all" in mods else None
            if mode is None or t not in ("b32", "b64"):
                raise PTXError("unsupported form of match", inst.loc, inst.text,
                               supported="match.any.sync.b32/.b64 d, a, membermask; "
                               "match.all.sync.b32/.b64 d[|p], a, membermask")
            a = np.broadcast_to(self._read(w, s, ops[1], t, lanes), active.shape).reshape(n, 32)
            if mode == "any":
                eq = (a[:, :, None] == a[:, None, :]) & part[:, None, :]
                res = (eq.astype(np.int64) << LANES).sum(axis=2).astype(np.uint32).ravel()
                self._write(w, s, d, np.where(part.ravel(), res, 0), "b32", lanes, active)
                return
            first = a[np.arange(n), np.argmax(part, axis=1)]
            same = ((a == first[:, None]) | ~part).all(axis=1)
            pm = (part.astype(np.int64) << LANES).sum(axis=1)
            res = np.repeat(np.where(same, pm, 0).astype(np.uint32), 32)
            dregs = list(d.elems) if isinstance(d, Vec) else [d]
            self._write(w, s, dregs[0], res, "b32", lanes, active)
            if len(dregs) > 1 and dregs[1] is not None:
                self._write(w, s, dregs[1], np.repeat(same, 32), "pred", lanes, active)
            return
        kind = next((m for m in inst.mods if m in ("add", "min", "max", "and", "or", "xor")), None)
        ok = (kind in ("add", "min", "max") and t in ("u32", "s32")) or \
             (kind in ("and", "or", "xor") and t == "b32")
        if not ok:
            raise PTXError("unsupported form of redux", inst.loc, inst.text,
                           supported="redux.sync.{add,min,max}.{u32,s32} and "
                           "redux.sync.{and,or,xor}.b32")
        a = np.broadcast_to(self._read(w, s, ops[1], t, lanes), active.shape).reshape(n, 32)
        a = a.astype(np.int64)
        if kind == "add":
            r = np.where(part, a, 0).sum(axis=1)
        elif kind == "min":
            r = np.where(part, a, np.iinfo(np.int64).max).min(axis=1)
        elif kind == "max":
            r = np.where(part, a, np.iinfo(np.int64).min).max(axis=1)
        elif kind == "and":
            r = np.bitwise_and.reduce(np.where(part, a, 0xFFFFFFFF), axis=1)
        elif kind == "or":
            r = np.bitwise_or.reduce(np.where(part, a, 0), axis=1)
        else:
            r = np.bitwise_xor.reduce(np.where(part, a, 0), axis=1)
        r = (r & 0xFFFFFFFF).astype(np.uint32)
        self._write(w, s, d, np.repeat(r, 32).view(DTYPE[t]), t, lanes, active)

    # ------------------------------------------------------------------ calls
    def _call(self, w, g, s, lanes, active, path):
        inst = s.inst
        if not np.array_equal(active, path):
            raise PTXError("predicated call with a divergent guard is not supported", inst.loc, inst.text)
        p = self.program
        callee = p.module.functions[s.callee]
        args = inst.operands[2]
        arg_names = [a.name for a in args.elems] if isinstance(args, Vec) else []
        for i, an in enumerate(arg_names):
            dst_off = p.local_layout[f"{callee.name}::{callee.params[i].name}"]
            src_off = p.local_layout[an] if s.func == p.kernel.name else p.local_layout[f"{s.func}::{an}"]
            self._copy_local(w, lanes, active, src_off, dst_off, callee.params[i].size)
        if w.call_stack.shape[1] <= int(w.call_depth.max(initial=0)):
            w.call_stack = np.concatenate([w.call_stack, np.zeros((w.nwarps, 4), np.int64)], axis=1)
        w.call_stack[g, w.call_depth[g]] = s.pc + 8
        w.call_depth[g] += 1
        w.stacks.advance(g, s.target)

    def _return(self, w, g, s, lanes, path):
        p = self.program
        w.call_depth[g] -= 1
        ret_pc = w.call_stack[g, w.call_depth[g]]
        if np.unique(ret_pc).size != 1:
            raise PTXError("device-function return to different call sites in one warp group is not supported")
        call_slot = p.slot_at(int(ret_pc[0]) - 8)
        rets = call_slot.inst.operands[0]
        callee = p.module.functions[s.func]
        if isinstance(rets, Vec):
            for i, r in enumerate(rets.elems):
                src_off = p.local_layout[f"{callee.name}::{callee.ret_params[i].name}"]
                dst_key = r.name if call_slot.func == p.kernel.name else f"{call_slot.func}::{r.name}"
                self._copy_local(w, lanes, path, src_off, p.local_layout[dst_key], callee.ret_params[i].size)
        w.stacks.advance(g, ret_pc)
        w.stacks.reconverge(g)

    def _local_param(self, s, name: str) -> int:
        p = self.program
        return p.local_layout[name if s.func == p.kernel.name else f"{s.func}::{name}"]

    def _vprintf(self, w, s, lanes, active, g):
        """``printf`` (nvcc's ``vprintf(fmt, args)``): format each active lane in warp/lane order."""
        inst = s.inst
        args = [a.name for a in inst.operands[2].elems]
        slots = w.slot[lanes][active]
        lane_ids = np.flatnonzero(active)
        for slot, li in zip(slots.tolist(), lane_ids.tolist()):
            base = slot * w.local_size
            fmt_ptr, buf_ptr = (int(w.local[base + self._local_param(s, a):][:8].view(np.uint64)[0])
                                for a in args[:2])
            read = lambda addr, n: self._read_generic(w, s, g, li, addr, n, slot)
            text = format_printf(read, fmt_ptr, buf_ptr)
            self.device.printf_output.append(text)
            if self.device.echo_printf:
                print(text, end="")
        rets = inst.operands[0]
        if isinstance(rets, Vec):
            for r in rets.elems:
                off = self._local_param(s, r.name)
                for slot in slots.tolist():
                    w.local[slot * w.local_size + off: slot * w.local_size + off + 4] = 0

    def _read_generic(self, w, s, g, li, addr: int, n: int, slot: int) -> bytes:
        """Read ``n`` bytes at a generic address for one lane (printf arguments)."""
        if LOCAL_WINDOW <= addr < LOCAL_WINDOW + WINDOW_SIZE:
            off = addr - LOCAL_WINDOW
            if off + n > w.local_size:
                raise KernelFault("printf argument outside local memory", kernel=self.name, pc=s.pc,
                                  loc=s.inst.loc, lane=li % 32, address=addr)
            return w.local[slot * w.local_size + off: slot * w.local_size + off + n].tobytes()
        if SHARED_WINDOW <= addr < SHARED_WINDOW + WINDOW_SIZE:
            off = addr - SHARED_WINDOW
            b = w.sh_base[slot]
            return w.shared[b + off: b + off + n].tobytes()
        try:
            return self.gmem.read(addr, n).tobytes()
        except ValueError:
            raise KernelFault("printf reads outside any allocation", kernel=self.name, pc=s.pc,
                              loc=s.inst.loc, lane=li % 32, address=addr,
                              nearest=self.gmem.nearest(addr)) from None

    def _copy_local(self, w, lanes, active, src_off, dst_off, n):
        slots = np.arange(w.T)[lanes][active]
        base = slots * w.local_size
        for k in range(n):
            w.local[base + dst_off + k] = w.local[base + src_off + k]
