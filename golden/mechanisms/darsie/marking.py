"""DARSIE's compiler pass: mark every PC definitely (DR) / conditionally (CR) redundant or
vector (V) (DARSIE §4.2, Fig. 6), then resolve CR at launch time.

Algorithm (on the PTX IR of :mod:`golden.ptx`, over the CFG of :mod:`golden.ptx.cfg`)
-------------------------------------------------------------------------------------
1. **Roots.** DR: ``%ctaid``, ``%ntid``, ``%nctaid``, immediates, symbols used as values
   (shared-memory base addresses, global variable addresses, local-frame offsets) and
   kernel parameters (``ld.param`` of a kernel parameter). CR: ``%tid.x`` (and ``%tid.y``
   with ``MarkingOptions.cr_tid_y``; the paper limits its analysis to ``.x``). Every other
   special register (``%tid.y/.z``, ``%laneid``, ``%warpid``, ``%smid``, ``%clock``...) is V
   ("all other registers are considered true vector registers").
2. **Propagation.** A forward data-flow analysis over the CFG: the state at a program
   point maps each register to the meet (weakest class, ``V < CR < DR``) of the classes of
   the definitions that reach it, so a source operand reached by several definitions takes
   the weakest one. An instruction's class is the meet of its source operands, address
   registers and guard predicate (a guarded instruction depends on its guard). An
   unguarded definition replaces the register's class; a guarded one may leave the old
   value in place and so meets with it. Iterated to the greatest fixpoint starting from
   DR (optimistic, so loop-carried DR counters stay DR). A register read before any write
   holds the simulator's zero in every thread and counts as DR.
3. **Loads** take the class of their address (DARSIE §4.2): ``ld.shared``/``ld.global``/
   ``ld.const`` from a DR address are DR, from a CR address CR. ``ld.param`` of a kernel
   parameter is DR; of a call parameter or return value it is V. Local memory is private
   to each thread, so an ``ld.local`` (and a generic ``ld`` in a kernel that has local
   storage) also meets with the weakest class of any value, address or guard stored to
   local memory (an extension the paper does not need on PTXPlus; it keeps the pass
   sound). Memory written between the warps' loads is the hardware's business (the PC
   skip table drops load entries on a store, §4.4).
4. **Never skipped**: stores, atomics and reductions, barriers and fences, branches,
   calls, returns, exits, warp-level ``vote``/``activemask``/``match`` results that
   depend on the active mask, and anything that writes no register. These are marked V
   (their data-flow class is still reported as ``value`` for information, e.g. whether a
   branch condition is DR).
5. **Calls.** Code of device functions (linked after the kernel, see
   :mod:`golden.simt.program`) is conservatively all V, and call results (``ld.param``
   of ``retval`` parameters) are V. Callees cannot write the kernel's registers, so the
   kernel's own analysis is otherwise unaffected.
6. **Launch time.** :func:`golden.mechanisms.darsie.lattice.promotion` turns CR into DR
   (2D/3D TB whose x-dimension is a power of two <= the warp size) or V.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from golden.errors import SimtlabError
from golden.exec.carry_ops import CARRY_REG
from golden.mechanisms.darsie.lattice import PromotionDecision, Redundancy, promotion
from golden.ptx.ir import Addr, Function, Instruction, PredGuard, Reg, SpecialReg, Sym, Vec

DR, CR, V = Redundancy.DR, Redundancy.CR, Redundancy.V

#: special registers uniform across a TB for any TB shape (DARSIE §4.2 DR roots)
DR_SPECIALS = frozenset({"ctaid", "ntid", "nctaid"})

#: opcodes whose every operand is a source (no register destination)
NO_DEST_OPCODES = frozenset({"st", "red", "bra", "bar", "barrier", "call", "ret", "exit", "trap",
                             "membar", "fence", "prefetch", "nanosleep", "pragma"})

#: opcodes DARSIE never skips, with the reason shown in listings
NEVER_SKIPPED = {
    "st": "store", "red": "reduction (atomic)", "atom": "atomic",
    "bar": "barrier", "barrier": "barrier", "membar": "memory fence", "fence": "memory fence",
    "bra": "branch", "call": "call", "ret": "return", "exit": "exit", "trap": "trap",
    "prefetch": "prefetch", "nanosleep": "nanosleep",
    "vote": "warp vote (depends on the active mask)",
    "activemask": "active mask read", "match": "warp match (depends on the active mask)",
    "redux": "warp reduction (depends on the active mask)",
}

#: state spaces that name a load's memory explicitly
_SPACES = ("global", "shared", "const", "local", "param")

#: opcodes that read the carry flag written by ``.cc`` instructions
_CARRY_READERS = frozenset({"addc", "subc", "madc"})


@dataclass(frozen=True)
class MarkingOptions:
    """Parameters of the pass.

    warp_size: threads per warp (the promotion test compares the x-dimension with it).
    cr_tid_y: also treat ``%tid.y`` as a CR root (the paper's 3D remark; the paper's own
        analysis, and the default, uses ``%tid.x`` only). Promotion then also needs
        ``x*y`` to be a power of two <= the warp size.
    join_taint: control dependence at reconvergence points: a register written between a
        branch whose condition is not DR and the branch's immediate post-dominator is met
        with the branch's class there (``_KernelAnalysis._divergent_joins``). The paper's
        pass (False, the default) meets only the reaching definitions, so DR meets DR at a
        join even when the two sides wrote different values. That is sound for DARSIE's
        majority path (its warps took the same direction at every non-DR branch since the
        TB started), not for warps that rejoin it at ``bar.sync``: DARSIE's
        ``rejoin_at_barrier`` marks with this on.
    """

    warp_size: int = 32
    cr_tid_y: bool = False
    join_taint: bool = False


@dataclass(frozen=True)
class PCMark:
    """The marking of one PC of a linked program.

    static: the 2-bit PTX hint (DR/CR/V) after the never-skip rules.
    value: the data-flow class of the instruction (meet of its sources and guard) before
        the never-skip rules; for a branch it tells whether its condition is TB-uniform.
    reason: why the instruction has its static class (root, propagation, rule).
    """

    pc: int
    func: str
    text: str
    static: Redundancy
    value: Redundancy
    reason: str
    line: int | None = None


@dataclass
class MarkingSummary:
    """Static counts of a marking (instructions of the linked program, not executions)."""

    instructions: int
    static_dr: int
    static_cr: int
    static_v: int
    skippable: int

    @property
    def skippable_fraction(self) -> float:
        return self.skippable / self.instructions if self.instructions else 0.0


@dataclass
class Marking:
    """DARSIE's per-PC marking of one kernel for one launch shape.

    ``marks[pc >> 3]`` is the :class:`PCMark` of ``pc`` (the linked program's PCs: the
    kernel first, then its callees and their synthetic function ends). ``decision`` is
    the launch-time promotion; ``final(pc)`` the resulting one-bit class (DR = skippable).
    """

    kernel: str
    decision: PromotionDecision
    options: MarkingOptions
    marks: list[PCMark]
    labels: dict[int, list[str]] = field(default_factory=dict)  # pc -> labels placed before it

    def mark(self, pc: int) -> PCMark:
        return self.marks[pc >> 3]

    def final(self, pc: int) -> Redundancy:
        """DR if the instruction at ``pc`` is TB-redundant for this launch, else V."""
        return self.decision.resolve(self.marks[pc >> 3].static)

    def skippable(self, pc: int) -> bool:
        return self.final(pc) is DR

    @property
    def skippable_pcs(self) -> frozenset[int]:
        return frozenset(m.pc for m in self.marks if self.decision.resolve(m.static) is DR)

    def summary(self) -> MarkingSummary:
        st = [m.static for m in self.marks]
        return MarkingSummary(instructions=len(st), static_dr=st.count(DR), static_cr=st.count(CR),
                              static_v=st.count(V),
                              skippable=sum(1 for s in st if self.decision.resolve(s) is DR))


# ----------------------------------------------------------------------------- operands

def _regs_in(o) -> list[str]:
    """Register names an operand reads (address bases, vector elements, negated predicates)."""
    if isinstance(o, Reg):
        return [o.name]
    if isinstance(o, PredGuard):
        return [o.reg.name]
    if isinstance(o, Addr):
        return [o.base.name] if isinstance(o.base, Reg) else []
    if isinstance(o, Vec):
        out: list[str] = []
        for e in o.elems:
            if e is not None:
                out.extend(_regs_in(e))
        return out
    return []


def _dest_regs(o) -> list[str]:
    if isinstance(o, Reg):
        return [o.name]
    if isinstance(o, Vec):
        return [e.name for e in o.elems if isinstance(e, Reg)]
    return []


def _space(inst: Instruction) -> str | None:
    return next((m for m in inst.mods if m in _SPACES), None)


@dataclass
class _InstInfo:
    """What the data-flow analysis needs of one instruction (precomputed once)."""

    uses: list[int]  # register indices read (sources, address bases, guard, carry)
    defs: list[int]  # register indices written
    guarded: bool
    fixed: Redundancy  # meet of the non-register operands (special registers, symbols)
    kind: str  # "plain", "load_param_kernel", "load_v", "load_local", "load_generic", "v", "local_store"
    fixed_reason: str


class _KernelAnalysis:
    """The data-flow fixpoint of §4.2 over one function (see module docstring)."""

    def __init__(self, func: Function, options: MarkingOptions):
        self.func = func
        self.options = options
        names = list(func.regs) + [CARRY_REG.name]
        self.reg_index = {n: i for i, n in enumerate(names)}
        self.reg_names = names
        self.kernel_params = {p.name for p in func.params} if func.is_entry else set()
        self.local_vars = {n for n, v in func.variables.items() if v.space == "local"}
        self.has_local = bool(self.local_vars) or any(
            i.opcode == "cvta" and "local" in i.mods for i in func.instructions)
        self.infos = [self._info(i) for i in func.instructions]

    # -- per-instruction facts
    def _special_class(self, r: SpecialReg) -> tuple[Redundancy, str]:
        if r.name in DR_SPECIALS:
            return DR, f"%{r.name} is uniform in a TB (DR root)"
        if r.name == "tid" and r.component == "x":
            return CR, "%tid.x (CR root)"
        if r.name == "tid" and r.component == "y" and self.options.cr_tid_y:
            return CR, "%tid.y (CR root, 3D option)"
        comp = f".{r.component}" if r.component else ""
        return V, f"%{r.name}{comp} is a true vector"

    def _reg(self, name: str) -> int:
        idx = self.reg_index.get(name)
        if idx is None:  # undeclared register: the parser keeps every declared one
            idx = len(self.reg_names)
            self.reg_index[name] = idx
            self.reg_names.append(name)
        return idx

    def _info(self, inst: Instruction) -> _InstInfo:
        op = inst.opcode
        ops = inst.operands
        if op in NO_DEST_OPCODES or op == "call":
            srcs, dsts = list(ops), []
        else:
            srcs, dsts = list(ops[1:]), ([ops[0]] if ops else [])
        if op == "call":
            srcs = []  # call arguments live in .param memory (st.param before the call)
        uses = [self._reg(n) for o in srcs for n in _regs_in(o)]
        if inst.guard is not None:
            uses.append(self._reg(inst.guard.reg.name))
        if op in _CARRY_READERS:
            uses.append(self._reg(CARRY_REG.name))
        defs = [self._reg(n) for o in dsts for n in _dest_regs(o)]
        if "cc" in inst.mods:
            defs.append(self._reg(CARRY_REG.name))
        fixed, reason = DR, "all sources DR (constants, parameters, TB ids)"
        for o in srcs:
            for leaf in (o.elems if isinstance(o, Vec) else (o,)):
                if isinstance(leaf, SpecialReg):
                    c, why = self._special_class(leaf)
                    if c < fixed:
                        fixed, reason = c, why
                    elif c == fixed == CR:
                        reason = why
        kind = "plain"
        space = _space(inst)
        if op in ("ld", "ldu"):
            addr = ops[1] if len(ops) > 1 else None
            if space == "param":
                if isinstance(addr, Addr) and isinstance(addr.base, Sym) and addr.base.name in self.kernel_params:
                    kind, reason = "load_param_kernel", "kernel parameter (DR root)"
                else:
                    kind, reason = "load_v", "call parameter / return value (per thread)"
            elif space == "local":
                kind = "load_local"
            elif space is None and self.has_local:
                kind = "load_generic"
        elif op in ("atom",):
            kind, reason = "v", "atomic result"
        elif op in ("st",) and (space == "local" or (space is None and self.has_local)):
            kind = "local_store"
        if op in ("mov", "cvt") and any(isinstance(o, SpecialReg) and o.name in ("clock", "clock64", "globaltimer")
                                         for o in srcs):
            kind, reason = "v", "clock read"
        if op in ("vote", "activemask", "match", "redux"):
            kind = "v"
        return _InstInfo(uses=uses, defs=defs, guarded=inst.guard is not None, fixed=fixed,
                         kind=kind, fixed_reason=reason)

    # -- transfer
    def _inst_class(self, info: _InstInfo, state: list[int], local_content: int) -> int:
        c = int(info.fixed)
        for u in info.uses:
            s = state[u]
            if s < c:
                c = s
        k = info.kind
        if k == "v" or k == "load_v":
            return int(V)
        if k in ("load_local", "load_generic"):
            return min(c, local_content)
        return c

    def _transfer(self, b, state: list[int], local_content: int, record: list | None) -> list[int]:
        infos = self.infos
        for i in range(b.start, b.end):
            info = infos[i]
            c = self._inst_class(info, state, local_content)
            if record is not None:
                record[i] = c
            for d in info.defs:
                state[d] = c if not info.guarded else min(state[d], c)
        return state

    def run(self) -> tuple[list[int], list[bool]]:
        """Instruction classes (data-flow value class) and reachability of every instruction."""
        func = self.func
        n = len(func.instructions)
        if n == 0:
            return [], []
        blocks = func.blocks
        nregs = len(self.reg_names)
        local_content = int(DR)
        joins: dict[int, dict[int, int]] = {}   # block -> {reg: class} met at its entry
        while True:
            ins: list[list[int] | None] = [None] * len(blocks)
            ins[0] = [int(DR)] * nregs
            work = [0]
            queued = {0}
            while work:
                bid = work.pop(0)
                queued.discard(bid)
                out = self._transfer(blocks[bid], list(ins[bid]), local_content, None)
                for s in blocks[bid].succs:
                    cur = ins[s]
                    if cur is None:
                        new = list(out)
                    else:
                        new = [a if a <= b else b for a, b in zip(cur, out)]
                    for r, c in joins.get(s, {}).items():
                        if new[r] > c:
                            new[r] = c
                    if new != cur:
                        ins[s] = new
                        if s not in queued:
                            queued.add(s)
                            work.append(s)
            classes = [int(V)] * n
            reached = [False] * n
            for blk in blocks:
                if ins[blk.id] is None:
                    continue
                self._transfer(blk, list(ins[blk.id]), local_content, classes)
                for i in range(blk.start, blk.end):
                    reached[i] = True
            # weakest class of anything stored to per-thread local memory
            new_local = int(DR)
            for i, info in enumerate(self.infos):
                if info.kind == "local_store" and reached[i]:
                    new_local = min(new_local, classes[i])
            new_joins = self._divergent_joins(classes, reached) if self.options.join_taint else {}
            if new_local == local_content and new_joins == joins:
                return classes, reached
            local_content = new_local
            joins = new_joins

    def _divergent_joins(self, classes: list[int], reached: list[bool]) -> dict:
        """Control dependence: a register written between a conditional branch whose class
        is below DR and the branch's reconvergence point (its block's immediate
        post-dominator) may hold different values in warps that went different ways, so at
        the reconvergence point it is met with the branch's class (a loop whose exit
        condition is V: every register the loop writes is V after it). Without this, DR
        meets DR at the join although the two sides wrote different DR values (HS: ``%rs8``
        = 0 or 1 on the two sides of a V branch)."""
        func = self.func
        blocks = func.blocks
        joins: dict[int, dict[int, int]] = {}
        for blk in blocks:
            last = blk.end - 1
            if blk.end <= blk.start or not reached[last]:
                continue
            inst = func.instructions[last]
            if inst.opcode != "bra" or inst.guard is None or len(blk.succs) < 2:
                continue
            cb = classes[last]
            j = blk.ipdom
            if cb >= int(DR) or j is None:
                continue
            seen, stack = set(), [x for x in blk.succs if x != j]
            while stack:
                b = stack.pop()
                if b in seen or b == j:
                    continue
                seen.add(b)
                stack.extend(blocks[b].succs)
            out = joins.setdefault(j, {})
            for b in seen:
                for i in range(blocks[b].start, blocks[b].end):
                    for d in self.infos[i].defs:
                        if out.get(d, int(DR)) > cb:
                            out[d] = cb
        return {k: v for k, v in joins.items() if v}


def _reason(inst: Instruction, info: _InstInfo, cls: Redundancy, reached: bool) -> tuple[Redundancy, str]:
    """Static class after the never-skip rules, and why."""
    if not reached:
        return V, "unreachable"
    op = inst.opcode
    if op in NEVER_SKIPPED:
        return V, f"{NEVER_SKIPPED[op]}: never skipped"
    if not info.defs:
        return V, "writes no register"
    if info.kind == "load_v":
        return V, info.fixed_reason
    if info.kind == "v":
        return V, info.fixed_reason
    if cls is V:
        return V, info.fixed_reason if info.fixed is V else "a source, address or guard is V"
    if info.kind == "load_param_kernel":
        return cls, info.fixed_reason
    if op in ("ld", "ldu"):
        return cls, f"load from a {cls.name} address"
    if cls is CR:
        return CR, ("%tid.x (CR root)" if info.fixed is CR else "a source is CR")
    return DR, info.fixed_reason if info.fixed is DR else "all sources DR"


def analyse_function(func: Function, options: MarkingOptions | None = None) -> list[PCMark]:
    """Static marking of one function's instructions (indexed by ``inst.index``)."""
    options = options or MarkingOptions()
    ana = _KernelAnalysis(func, options)
    classes, reached = ana.run()
    marks = []
    for inst, info, c, r in zip(func.instructions, ana.infos, classes, reached):
        value = Redundancy(c)
        static, why = _reason(inst, info, value, r)
        marks.append(PCMark(pc=inst.pc, func=func.name, text=inst.text, static=static, value=value,
                            reason=why, line=inst.loc.line if inst.loc else None))
    return marks


def _as_program(target):
    """The linked Program of a Program or of a host Kernel (``.program``); None otherwise."""
    from golden.simt.program import Program
    if isinstance(target, Program):
        return target
    prog = getattr(target, "program", None)
    if isinstance(prog, Program):
        return prog
    return None


def mark_kernel(target, block_dims, options: MarkingOptions | None = None) -> Marking:
    """DARSIE's marking of a kernel for a launch with TB shape ``block_dims``.

    ``target`` is a linked :class:`golden.simt.program.Program`, a host
    :class:`golden.host.Kernel` or a bare kernel :class:`golden.ptx.ir.Function` (then only
    the function's own PCs are marked). The returned :class:`Marking` covers every PC of
    the linked program: kernel code analysed, callee code and function ends V.
    """
    options = options or MarkingOptions()
    decision = promotion(block_dims, options.warp_size, options.cr_tid_y)
    prog = _as_program(target)
    if prog is None:
        if not isinstance(target, Function):
            raise SimtlabError(f"mark_kernel needs a Program, a Kernel or a Function, got "
                               f"{type(target).__name__}")
        func = target
        marks = analyse_function(func, options)
        labels = _labels(func, 0)
        return Marking(kernel=func.name, decision=decision, options=options, marks=marks, labels=labels)
    kernel_marks = analyse_function(prog.kernel, options)
    marks: list[PCMark] = []
    labels: dict[int, list[str]] = _labels(prog.kernel, 0)
    for s in prog.slots:
        if s.func == prog.kernel.name and s.inst is not None:
            marks.append(kernel_marks[s.inst.index])
            continue
        if s.func_end:
            marks.append(PCMark(pc=s.pc, func=s.func, text=f"<end of {s.func}>", static=V, value=V,
                                reason="function end (synthetic reconvergence point)"))
            continue
        inst = s.inst
        if inst.index == 0:
            labels.setdefault(s.pc, []).insert(0, f"// device function {s.func}")
            for pc, names in _labels(prog.module.functions[s.func], s.pc).items():
                labels.setdefault(pc, []).extend(names)
        marks.append(PCMark(pc=s.pc, func=s.func, text=inst.text, static=V, value=V,
                            reason="device-function code: conservatively V",
                            line=inst.loc.line if inst.loc else None))
    return Marking(kernel=prog.kernel.name, decision=decision, options=options, marks=marks, labels=labels)


def _labels(func: Function, base_pc: int) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for name, idx in sorted(func.labels.items(), key=lambda kv: kv[1]):
        out.setdefault(base_pc + 8 * idx, []).append(f"{name}:")
    return out
