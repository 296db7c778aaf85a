"""PTX intermediate representation.

The parser (:mod:`golden.ptx.parser`) turns nvcc's PTX text into these objects; the
functional core (:mod:`golden.exec`, :mod:`golden.simt`), the timing model and the
mechanisms' compiler passes (e.g. DARSIE's redundancy marking) all read them.

Conventions
-----------
* Instruction addresses: ``pc = 8 * index`` inside a function (DESIGN.md: 64-bit
  instructions, so a DARSIE skip is ``pc += 8``).
* Register names keep their ``%`` sigil (``"%r12"``, ``"%rd3"``, ``"%p1"``, ``"%f7"``).
* Type suffixes are the PTX spellings without the dot (``"s32"``, ``"f64"``, ``"pred"``).
* Every instruction carries its source location so errors can name ``file:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

#: every PTX fundamental type suffix the front end recognises
TYPE_SUFFIXES = frozenset({
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
    "s8", "s16", "s32", "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
})

#: size in bytes of each type suffix (pred is stored as one byte)
TYPE_SIZE = {
    "pred": 1, "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2,
    "bf16": 2, "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4,
    "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16,
}

#: state spaces
SPACES = frozenset({"global", "shared", "local", "const", "param", "reg", "generic"})


@dataclass(frozen=True)
class SourceLoc:
    """Where something came from: file path (or ``"<string>"``), 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


# ----------------------------------------------------------------------------- operands

@dataclass(frozen=True)
class Reg:
    """A virtual register, e.g. ``%r5``; ``%rd1``; ``%p2``; ``%f3``."""

    name: str


@dataclass(frozen=True)
class SpecialReg:
    """A special register: ``%tid.x`` -> ``SpecialReg("tid", "x")``; ``%laneid`` -> component ``None``.

    Supported names: tid, ntid, ctaid, nctaid, laneid, warpid, nwarpid, smid, nsmid,
    gridid, clock, clock64, lanemask_eq/le/lt/ge/gt, globaltimer.
    """

    name: str
    component: str | None = None


@dataclass(frozen=True)
class Imm:
    """An immediate. ``kind`` is ``"int"`` (decimal/hex/octal/binary integers, value is a Python int,
    possibly negative), ``"f32"`` (``0fXXXXXXXX``, value is the float and ``bits`` the raw 32 bits),
    ``"f64"`` (``0dXXXXXXXXXXXXXXXX``) or ``"float"`` (decimal float literal)."""

    value: int | float
    kind: str = "int"
    bits: int | None = None


@dataclass(frozen=True)
class Sym:
    """A symbol used as a value (``mov.u64 %rd1, smem;`` or a ``.param`` name) or as a
    branch/call target (labels and function names are also ``Sym``)."""

    name: str


@dataclass(frozen=True)
class Addr:
    """A memory address expression ``[base+offset]``: base is a register, a symbol
    (variable or param name) or ``None`` for an absolute address ``[1234]``."""

    base: Union[Reg, Sym, None]
    offset: int = 0


@dataclass(frozen=True)
class Vec:
    """A vector operand ``{%f1, %f2, %f3, %f4}`` (elements may be ``_`` sinks -> ``None``)."""

    elems: tuple


@dataclass(frozen=True)
class PredGuard:
    """Instruction guard ``@%p1`` (negated=False) or ``@!%p1`` (negated=True)."""

    reg: Reg
    negated: bool = False


Operand = Union[Reg, SpecialReg, Imm, Sym, Addr, Vec]


# ----------------------------------------------------------------------------- instructions

@dataclass
class Instruction:
    """One PTX instruction.

    ``opcode`` is the base mnemonic (``"add"``, ``"ld"``, ``"setp"``, ``"bra"``,
    ``"bar"``...). ``mods`` are all dotted suffixes in source order, including the type
    suffixes (``ld.global.nc.v4.f32`` -> ``("global", "nc", "v4", "f32")``). ``types``
    is the ordered subset of ``mods`` that are type suffixes (``cvt.rn.f32.s32`` ->
    ``("f32", "s32")``). ``operands`` are in text order, the destination(s) first as
    PTX writes them (``setp`` with ``%p1|%p2`` gives a ``Vec`` of two regs as its first
    operand). For ``call``, ``operands`` is ``(Vec(ret params) | None, Sym(func),
    Vec(arg params))``; an indirect call through a register adds its prototype:
    ``(Vec | None, Reg(target), Vec(args), Sym(prototype))``. A negated predicate
    source operand (``!%p3``) is a ``PredGuard(reg, negated=True)``; a ``_`` sink
    outside a vector is ``None``.
    """

    opcode: str
    mods: tuple[str, ...]
    types: tuple[str, ...]
    operands: tuple
    guard: PredGuard | None
    pc: int
    loc: SourceLoc
    text: str

    @property
    def index(self) -> int:
        return self.pc // 8

    def has(self, mod: str) -> bool:
        return mod in self.mods

    def __str__(self) -> str:
        return self.text


# ----------------------------------------------------------------------------- declarations

@dataclass(frozen=True)
class Reloc:
    """An address inside a variable's initialiser: ``.u64 tab[2] = {generic(a), b+8}``.

    The loader writes the address of ``symbol`` (+ ``addend``) as a ``size``-byte
    little-endian integer at byte ``offset`` of the variable (``init`` holds zeros
    there). ``generic`` is True for ``generic(sym)`` (a generic address); otherwise the
    address is in the symbol's own state space (or a function address for a function).
    """

    offset: int
    size: int
    symbol: str
    generic: bool = False
    addend: int = 0


@dataclass
class Variable:
    """A state-space variable: module-scope ``.global``/``.const``, or a function's
    ``.shared``/``.local`` (including nvcc's demoted ``__shared__`` variables), or a
    call-site ``.param`` declared inside a function body (see ``Function.call_params``).

    ``size`` is in bytes (element size x array length); ``init`` is the initialiser as
    little-endian bytes of length ``size`` (``None`` when there is none). ``relocs``
    lists symbol addresses the initialiser stores (pointer tables); ``visible`` records
    ``.visible`` linkage.
    """

    name: str
    space: str
    type: str
    align: int
    size: int
    init: bytes | None
    loc: SourceLoc
    extern: bool = False
    relocs: tuple[Reloc, ...] = ()
    visible: bool = False


@dataclass
class Param:
    """A kernel or function parameter: ``.param .u64 name`` / ``.param .align 4 .b8 name[16]``."""

    name: str
    type: str
    size: int
    align: int
    offset: int  # byte offset in the parameter buffer (kernels), natural alignment applied


@dataclass
class RegDecl:
    """``.reg .b32 %r<29>;`` declares ``%r0 .. %r28`` with type ``b32``."""

    type: str
    names: tuple[str, ...]


@dataclass
class BasicBlock:
    """Maximal straight-line run of instructions ``[start, end)`` (instruction indices)."""

    id: int
    start: int
    end: int
    label: str | None
    succs: list[int] = field(default_factory=list)
    preds: list[int] = field(default_factory=list)
    #: the block can leave the function (ret/exit/trap, or falls off its end); the
    #: virtual exit node is not listed in ``succs``
    to_exit: bool = False
    #: id of the immediate post-dominator block; ``None`` = the virtual exit
    ipdom: int | None = None

    @property
    def pc(self) -> int:
        """PC of the block's first instruction."""
        return 8 * self.start


@dataclass
class Function:
    """A ``.entry`` kernel or ``.func`` device function.

    ``labels`` maps label -> instruction index of the next instruction. ``blocks`` and
    ``ipdom`` are filled by :mod:`golden.ptx.cfg`: ``ipdom[pc]`` is, for each branch
    instruction at ``pc``, the PC of the immediate post-dominator (reconvergence point);
    ``None`` means the paths only meet at function exit.

    ``call_params`` holds the ``.param`` variables declared inside the body for calls
    (nvcc's ``{ // callseq`` blocks: ``param0``, ``retval0``...). Names declared in a
    nested ``{ }`` scope that would clash with an enclosing or earlier declaration of a
    different shape are renamed ``name@N`` (N numbers the function's ``{ }`` blocks in
    source order, the body itself being 1) in ``regs``,
    ``call_params`` and every operand, so each name denotes exactly one storage.
    ``minnctapersm`` / ``maxnreg`` are the performance-tuning directives.
    """

    name: str
    is_entry: bool
    visible: bool
    params: list[Param]
    ret_params: list[Param]
    regs: dict[str, str]  # register name -> declared type
    variables: dict[str, Variable]  # function-scope .shared / .local
    instructions: list[Instruction]
    labels: dict[str, int]
    loc: SourceLoc
    maxntid: tuple[int, ...] | None = None
    reqntid: tuple[int, ...] | None = None
    blocks: list[BasicBlock] = field(default_factory=list)
    block_of: list[int] = field(default_factory=list)  # instruction index -> block id
    ipdom: dict[int, int | None] = field(default_factory=dict)
    call_params: dict[str, Variable] = field(default_factory=dict)
    minnctapersm: int | None = None
    maxnreg: int | None = None

    @property
    def param_size(self) -> int:
        if not self.params:
            return 0
        last = self.params[-1]
        return last.offset + last.size

    def pc_of(self, label: str) -> int:
        return 8 * self.labels[label]


@dataclass
class Module:
    """A parsed PTX file.

    ``functions`` holds every function with a body; ``externs`` the functions only
    declared (``.extern .func vprintf(...)``, prototypes never defined in this file),
    with empty instruction lists.
    """

    file: str
    version: str
    target: str
    address_size: int
    functions: dict[str, Function]
    variables: dict[str, Variable]  # module-scope .global / .const / .shared
    externs: dict[str, Function] = field(default_factory=dict)

    @property
    def kernels(self) -> dict[str, Function]:
        return {n: f for n, f in self.functions.items() if f.is_entry}
