"""Linking a kernel for execution: one flat instruction array with resolved storage.

A :class:`Program` is what the SIMT executor runs. It holds

* the kernel's instructions at their own PCs (``pc = 8 * index``) followed by every
  device function the kernel can call (each followed by a synthetic function-end
  instruction where all of the function's paths meet before returning);
* register storage keys: the kernel's registers keep their names, a callee's become
  ``"func::%r1"`` so each function has its own register namespace;
* the memory layout of the kernel's ``.shared`` variables (per thread block), ``.local``
  variables and call parameters (per thread), and kernel parameters (param buffer);
* the reconvergence PC of every branch (immediate post-dominator, from the CFG).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from golden.errors import PTXError
from golden.exec.carry_ops import CARRY_REG, CARRY_TYPE
from golden.ptx.ir import Addr, Function, Instruction, Module, Sym, TYPE_SIZE

NO_RECONVERGENCE = -1
#: external functions the executor implements itself: printf and assert's failure handler
BUILTIN_EXTERNS = frozenset({"vprintf", "__assertfail"})


@dataclass
class Slot:
    """One linked instruction: the IR instruction plus link-time facts."""

    inst: Instruction | None  # None for a synthetic function-end
    pc: int
    func: str
    regs: dict[str, str]  # register name in this function -> storage key
    rpc: int = NO_RECONVERGENCE  # reconvergence PC for branches
    target: int | None = None  # branch / call target PC
    func_end: bool = False
    callee: str | None = None


@dataclass
class Program:
    """A kernel linked with its callees (see module docstring)."""

    kernel: Function
    module: Module
    slots: list[Slot]
    reg_types: dict[str, str]  # storage key -> declared PTX type
    shared_layout: dict[str, int]  # shared variable name -> offset in the TB's shared memory
    shared_static: int  # bytes of static shared memory per TB
    extern_shared: list[str]
    local_layout: dict[str, int]  # per-thread local variables and call parameters -> offset
    local_size: int
    func_entry: dict[str, int] = field(default_factory=dict)
    func_end_pc: dict[str, int] = field(default_factory=dict)
    param_offsets: dict[str, tuple[int, int]] = field(default_factory=dict)  # kernel param -> (off, size)

    def slot_at(self, pc: int) -> Slot:
        return self.slots[pc >> 3]


def _align(x: int, a: int) -> int:
    return -(-x // max(a, 1)) * max(a, 1)


def _reachable_functions(module: Module, kernel: Function) -> list[Function]:
    seen: list[str] = []
    work = [kernel]
    while work:
        f = work.pop()
        for inst in f.instructions:
            if inst.opcode == "call":
                callee = inst.operands[1]
                if not isinstance(callee, Sym):
                    raise PTXError("indirect calls (through a function pointer) are not supported",
                                   inst.loc, inst.text, supported="direct calls and vprintf (printf)")
                name = callee.name
                if name in BUILTIN_EXTERNS:
                    continue
                if name not in module.functions:
                    raise PTXError(f"call to function '{name}' which has no body in this module",
                                   inst.loc, inst.text, supported="direct calls to .func defined in "
                                   "the module, vprintf (printf) and __assertfail (assert)")
                if name not in seen and name != kernel.name:
                    seen.append(name)
                    work.append(module.functions[name])
    return [module.functions[n] for n in seen]


def _refuse_recursion(kernel: Function, funcs: list[Function]) -> None:
    """Raise :class:`PTXError` if the call graph of ``kernel`` has a cycle.

    A function's registers and parameters have one storage per thread (no call frames),
    so a recursive call would overwrite its caller's values and compute wrong results."""
    by_name = {f.name: f for f in funcs}
    calls: dict[str, list[tuple[str, Instruction]]] = {}
    for f in funcs:
        calls[f.name] = [(inst.operands[1].name, inst) for inst in f.instructions
                         if inst.opcode == "call" and inst.operands[1].name in by_name]
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[tuple[str, Instruction | None]] = []

    def visit(name: str, via: Instruction | None) -> None:
        state[name] = 1
        path.append((name, via))
        for callee, inst in calls[name]:
            if state.get(callee) == 1:
                start = next(i for i, (n, _) in enumerate(path) if n == callee)
                cycle = [n for n, _ in path[start:]] + [callee]
                sites = [c for _, c in path[start + 1:]] + [inst]
                where = "; ".join(f"{a} calls {b} at {c.loc}" for a, b, c
                                  in zip(cycle, cycle[1:], sites))
                kind = (f"'{callee}' calls itself" if len(cycle) == 2 else
                        "mutual recursion " + " -> ".join(cycle))
                raise PTXError(f"recursive device function call in kernel {kernel.name}: {kind} "
                               f"({where})", inst.loc, inst.text,
                               supported="non-recursive device-function calls (a function's "
                               "registers have one copy per thread, not one per call)")
            if callee not in state:
                visit(callee, inst)
        path.pop()
        state[name] = 2

    visit(kernel.name, None)


def _param_syms(f: Function) -> list[tuple[str, int]]:
    """Every symbol ``f`` accesses with ld.param/st.param and the bytes it needs."""
    out: list[tuple[str, int]] = []
    for inst in f.instructions:
        if inst.opcode in ("ld", "st") and "param" in inst.mods:
            addr = inst.operands[1] if inst.opcode == "ld" else inst.operands[0]
            if isinstance(addr, Addr) and isinstance(addr.base, Sym):
                t = inst.types[-1] if inst.types else "b32"
                n = 1
                for m in inst.mods:
                    if m in ("v2", "v4", "v8"):
                        n = int(m[1:])
                out.append((addr.base.name, addr.offset + n * TYPE_SIZE.get(t, 4)))
    return out


def link(module: Module, kernel_name: str) -> Program:
    """Link ``kernel_name`` with the device functions it calls."""
    kernel = module.functions[kernel_name]
    funcs = [kernel] + _reachable_functions(module, kernel)
    _refuse_recursion(kernel, funcs)
    slots: list[Slot] = []
    reg_types: dict[str, str] = {}
    func_entry: dict[str, int] = {}
    func_end_pc: dict[str, int] = {}
    shared_layout: dict[str, int] = {}
    extern_shared: list[str] = []
    local_layout: dict[str, int] = {}
    shared_top = 0
    local_top = 0
    # module-scope .shared variables are shared by all kernels of the module
    shared_vars = [v for v in module.variables.values() if v.space == "shared"]
    for f in funcs:
        shared_vars += [v for v in f.variables.values() if v.space == "shared"]
    for v in shared_vars:
        if v.extern or v.size == 0:
            extern_shared.append(v.name)
            continue
        if v.name in shared_layout:
            continue
        shared_top = _align(shared_top, v.align)
        shared_layout[v.name] = shared_top
        shared_top += v.size
    for f in funcs:
        prefix = "" if f is kernel else f"{f.name}::"
        for v in f.variables.values():
            if v.space == "local":
                local_top = _align(local_top, v.align)
                local_layout[prefix + v.name] = local_top
                local_top += v.size
        # callee parameters and caller-side call parameters live per thread
        needs: dict[str, int] = {}
        for p in (f.params + f.ret_params) if f is not kernel else f.ret_params:
            needs[p.name] = max(needs.get(p.name, 0), p.size)
        kparams = {p.name for p in kernel.params} if f is kernel else set()
        for name, n in _param_syms(f):
            if name not in kparams:
                needs[name] = max(needs.get(name, 0), n)
        for name, n in needs.items():
            local_top = _align(local_top, 8)
            local_layout[prefix + name] = local_top
            local_top += _align(n, 8)

    for f in funcs:
        prefix = "" if f is kernel else f"{f.name}::"
        base = len(slots)
        func_entry[f.name] = 8 * base
        # every function also has the condition-code carry flag (add.cc/addc...)
        regs = {**f.regs, CARRY_REG.name: CARRY_TYPE}
        regmap = {r: prefix + r for r in regs}
        for r, t in regs.items():
            reg_types[prefix + r] = t
        for inst in f.instructions:
            slots.append(Slot(inst=inst, pc=8 * len(slots), func=f.name, regs=regmap))
        end_pc = None
        if f is not kernel:
            end_pc = 8 * len(slots)
            func_end_pc[f.name] = end_pc
            slots.append(Slot(inst=None, pc=end_pc, func=f.name, regs=regmap, func_end=True))
        for inst in f.instructions:
            s = slots[base + inst.index]
            if inst.opcode == "bra":
                tgt = inst.operands[-1]
                if not isinstance(tgt, Sym) or tgt.name not in f.labels:
                    raise PTXError("branch to unknown label", inst.loc, inst.text)
                s.target = 8 * (base + f.labels[tgt.name])
                rp = f.ipdom.get(inst.pc)
                if rp is None:
                    s.rpc = NO_RECONVERGENCE if end_pc is None else end_pc
                else:
                    s.rpc = 8 * base + rp
            elif inst.opcode == "ret" and end_pc is not None:
                s.target = end_pc
                s.rpc = end_pc
            elif inst.opcode == "call":
                s.callee = inst.operands[1].name
    for s in slots:
        if s.callee is not None and s.callee not in BUILTIN_EXTERNS:
            s.target = func_entry[s.callee]

    params = {p.name: (p.offset, p.size) for p in kernel.params}
    return Program(kernel=kernel, module=module, slots=slots, reg_types=reg_types,
                   shared_layout=shared_layout, shared_static=shared_top,
                   extern_shared=extern_shared, local_layout=local_layout,
                   local_size=_align(local_top, 8), func_entry=func_entry,
                   func_end_pc=func_end_pc, param_offsets=params)

