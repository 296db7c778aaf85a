"""PTX parser: tokens (:mod:`golden.ptx.lexer`) -> IR (:mod:`golden.ptx.ir`).

Accepts the PTX that ``nvcc -ptx -arch=sm_75`` (CUDA 13) emits, including ``-G`` /
``-lineinfo`` debug output and ``-rdc`` linkage:

* module directives ``.version .target .address_size``, ``.file``/``.loc`` (ignored),
  ``.section`` debug sections (skipped), ``.pragma`` (ignored);
* ``.entry`` / ``.func`` definitions, forward declarations and ``.extern .func``
  declarations, with ``.param`` lists (struct params ``.param .align 8 .b8 p[16]``) and
  ``(.param ... func_retval0)`` return parameters; parameter byte offsets use natural
  alignment (or the explicit ``.align``);
* performance directives ``.maxntid .reqntid .minnctapersm .maxnctapersm .maxnreg
  .noreturn``;
* variables in ``.global .const .shared .local`` (module or function scope, ``.extern``
  unsized arrays, ``.align``, ``.v2/.v4``, multi-dimensional arrays) with initialisers
  (nested braces, integers, ``0f``/``0d`` floats, ``generic(sym)`` and symbol addresses);
* function bodies: ``.reg`` declarations (``%r<29>`` ranges and single names), nested
  ``{ }`` scopes (nvcc's call sequences and inline-asm blocks, with scoped names),
  call-site ``.param`` declarations, labels, ``.callprototype`` declarations, and
  instructions with guards, modifier chains and every operand form.

Anything else raises :class:`golden.errors.PTXError` naming ``file:line:col``, the
source line and what is supported. The control-flow graph and post-dominators are
computed by :func:`golden.ptx.cfg.build_cfg` for each function before the module is
returned.
"""

from __future__ import annotations

import re
import struct

from golden.errors import PTXError
from golden.ptx.cfg import build_cfg
from golden.ptx.ir import (
    TYPE_SIZE, TYPE_SUFFIXES, Addr, Function, Imm, Instruction, Module, Param,
    PredGuard, Reg, Reloc, SourceLoc, SpecialReg, Sym, Variable, Vec,
)
from golden.ptx.lexer import DIR, EOF, F32, F64, FLT, INT, PUNCT, STR, WORD, Source, Token, tokenize

#: opcodes the front end accepts (issue 3 item 2 and the control/warp-level ops nvcc
#: emits for ordinary CUDA, incl. addc/subc/madc from the libdevice double-precision
#: trigonometric slow path and match from __match_any_sync)
SUPPORTED_OPCODES = frozenset({
    # integer / float arithmetic
    "add", "sub", "mul", "mad", "mul24", "mad24", "div", "rem", "abs", "neg", "min",
    "max", "fma", "sad", "addc", "subc", "madc",
    # bitwise and shifts
    "and", "or", "xor", "not", "cnot", "shl", "shr", "shf", "bfe", "bfi", "bfind",
    "prmt", "popc", "clz", "brev",
    # compare / select
    "setp", "selp", "set", "slct",
    # data movement and conversion
    "cvt", "cvta", "mov", "isspacep",
    # special functions
    "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh", "copysign", "testp",
    # memory
    "ld", "ldu", "st", "atom", "red", "prefetch",
    # control
    "bra", "ret", "exit", "call", "bar", "barrier", "membar", "fence", "trap",
    "nanosleep",
    # warp level
    "vote", "activemask", "shfl", "match", "redux",
})

#: PTX ISA versions CUDA 13.0's ptxas accepts (it rejects newer or unknown ones)
PTX_VERSIONS = frozenset(
    [(1, m) for m in range(6)] + [(2, m) for m in range(4)] + [(3, m) for m in range(3)]
    + [(4, m) for m in range(4)] + [(5, 0)] + [(6, m) for m in range(6)]
    + [(7, m) for m in range(9)] + [(8, m) for m in range(9)] + [(9, 0)])
MAX_PTX_VERSION = max(PTX_VERSIONS)
#: ``.target`` architectures ptxas knows -> the first PTX ISA version that supports each
#: (PTX ISA manual, "PTX Module Directives: .target"; checked against ptxas 13.0)
TARGET_MIN_VERSION = {
    "sm_10": (1, 0), "sm_11": (1, 0), "sm_12": (1, 2), "sm_13": (1, 2), "sm_20": (2, 0),
    "sm_30": (3, 0), "sm_32": (4, 0), "sm_35": (3, 1), "sm_37": (4, 1), "sm_50": (4, 0),
    "sm_52": (4, 1), "sm_53": (4, 2), "sm_60": (5, 0), "sm_61": (5, 0), "sm_62": (5, 0),
    "sm_70": (6, 0), "sm_72": (6, 1), "sm_75": (6, 3), "sm_80": (7, 0), "sm_86": (7, 1),
    "sm_87": (7, 4), "sm_88": (9, 0), "sm_89": (7, 8), "sm_90": (7, 8), "sm_90a": (8, 0),
    "sm_100": (8, 6), "sm_100a": (8, 6), "sm_100f": (8, 8), "sm_101": (8, 6),
    "sm_101a": (8, 6), "sm_101f": (8, 8), "sm_103": (8, 8), "sm_103a": (8, 8),
    "sm_103f": (8, 8), "sm_110": (9, 0), "sm_110a": (9, 0), "sm_110f": (9, 0),
    "sm_120": (8, 7), "sm_120a": (8, 7), "sm_120f": (8, 8), "sm_121": (8, 8),
    "sm_121a": (8, 8), "sm_121f": (8, 8),
}
TARGET_OPTIONS = frozenset({"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"})
#: instructions that need a minimum ``.target`` (ptxas: "requires .target sm_XX or higher")
OPCODE_MIN_TARGET = {"redux": 80, "match": 70}

#: special registers: name -> allowed components (empty set = no component)
SPECIAL_REGS = {
    "tid": {"x", "y", "z"}, "ntid": {"x", "y", "z"}, "ctaid": {"x", "y", "z"},
    "nctaid": {"x", "y", "z"}, "laneid": set(), "warpid": set(), "nwarpid": set(),
    "smid": set(), "nsmid": set(), "gridid": set(), "clock": set(), "clock_hi": set(),
    "clock64": set(), "lanemask_eq": set(), "lanemask_le": set(), "lanemask_lt": set(),
    "lanemask_ge": set(), "lanemask_gt": set(), "globaltimer": set(),
    "globaltimer_lo": set(), "globaltimer_hi": set(), "dynamic_smem_size": set(),
    "total_smem_size": set(),
}

MODULE_DIRECTIVES = (".version", ".target", ".address_size", ".file", ".section",
                     ".pragma", ".visible", ".extern", ".weak", ".common", ".entry",
                     ".func", ".global", ".const", ".shared")
HEADER_DIRECTIVES = (".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
                     ".maxnreg", ".noreturn", ".pragma")
BODY_DIRECTIVES = (".reg", ".local", ".shared", ".param", ".pragma", ".loc", ".file",
                   "<label>: .callprototype")

_LINKAGE = (".visible", ".extern", ".weak", ".common")
_VAR_SPACES = (".global", ".const", ".shared", ".local", ".param")
_VECTOR = {".v2": 2, ".v4": 4, ".v8": 8}
#: limits that keep malformed input from exhausting memory
MAX_INIT_BYTES = 1 << 28
MAX_REG_RANGE = 1 << 20
_WS_RE = re.compile(r"\s+")
_BRACKET_WS_RE = re.compile(r"\( | \)| ,")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _mov_compatible(t: str, rt: str) -> bool:
    """PTX operand type checking: can a register of type ``rt`` be an operand of an
    instruction of type ``t``? (same size; ``.b`` matches anything, ``.u``/``.s`` match
    each other; ``.pred`` and floats only themselves)."""
    if t == rt:
        return True
    if "pred" in (t, rt) or TYPE_SIZE.get(t) != TYPE_SIZE.get(rt):
        return False
    if t[0] == "b" or rt[0] == "b":
        return True
    return t[0] in "us" and rt[0] in "us"


def _supported_list(items) -> str:
    return " ".join(sorted(items))


def _int_value(text: str) -> int:
    t = text.rstrip("uU")
    if t[:2] in ("0x", "0X"):
        return int(t[2:], 16)
    if t[:2] in ("0b", "0B"):
        return int(t[2:], 2)
    if len(t) > 1 and t[0] == "0":
        return int(t, 8)
    return int(t)


def _f32_imm(text: str, negate: bool = False) -> Imm:
    bits = int(text[2:], 16)
    if negate:
        bits ^= 0x80000000
    return Imm(struct.unpack("<f", struct.pack("<I", bits))[0], "f32", bits)


def _f64_imm(text: str, negate: bool = False) -> Imm:
    bits = int(text[2:], 16)
    if negate:
        bits ^= 0x8000000000000000
    return Imm(struct.unpack("<d", struct.pack("<Q", bits))[0], "f64", bits)


def _align_up(x: int, a: int) -> int:
    return -(-x // a) * a


class _Scope:
    """Names declared in one ``{ }`` block: original name -> (kind, resolved name)."""

    __slots__ = ("names", "number")

    def __init__(self, number: int):
        self.names: dict[str, tuple[str, str]] = {}
        self.number = number


class _FunctionBuilder:
    """Mutable state while a function body is parsed."""

    def __init__(self, func: Function):
        self.func = func
        self.scopes: list[_Scope] = []
        self.scope_count = 0
        # resolved name -> declaration signature, to decide when a re-declaration in a
        # sibling scope may share the name
        self.decl_sig: dict[str, tuple] = {}
        self.prototypes: set[str] = set()
        self.label_refs: list[tuple[str, Token]] = []


class Parser:
    """Recursive-descent parser over the token list of one PTX file."""

    def __init__(self, text: str, file: str = "<string>"):
        self.text = text
        self.file = file
        self.src = Source(text, file)
        self.toks = tokenize(self.src)
        self.i = 0
        self.module = Module(file=file, version="", target="", address_size=64,
                             functions={}, variables={})
        # (name, token, what) symbol references checked once the whole module is known
        self.sym_refs: list[tuple[str, Token, Function | None, str]] = []

    # ------------------------------------------------------------------ helpers
    def loc(self, tok: Token) -> SourceLoc:
        return self.src.loc(tok.pos)

    def error(self, msg: str, tok: Token, supported: str | None = None) -> PTXError:
        loc = self.src.loc(tok.pos)
        return PTXError(msg, loc, self.src.line_text(loc.line), supported)

    def peek(self, k: int = 0) -> Token:
        return self.toks[self.i + k]

    def next(self) -> Token:
        t = self.toks[self.i]
        if t.kind != EOF:
            self.i += 1
        return t

    def at(self, kind: str, text: str | None = None) -> bool:
        t = self.toks[self.i]
        return t.kind == kind and (text is None or t.text == text)

    def accept(self, kind: str, text: str | None = None) -> Token | None:
        if self.at(kind, text):
            return self.next()
        return None

    def expect(self, kind: str, text: str | None = None, what: str | None = None) -> Token:
        t = self.toks[self.i]
        if t.kind == kind and (text is None or t.text == text):
            self.i += 1
            return t
        want = what or (repr(text) if text else kind.lower())
        got = "end of file" if t.kind == EOF else repr(t.text)
        raise self.error(f"malformed PTX: expected {want}, found {got}", t)

    def int_value(self, tok: Token) -> int:
        try:
            return _int_value(tok.text)
        except ValueError:
            raise self.error(f"malformed integer literal {tok.text!r}", tok,
                             "decimal, 0x hex, 0b binary and 0-prefixed octal integers") from None

    def expect_int(self, what: str) -> int:
        neg = self.accept(PUNCT, "-") is not None
        t = self.expect(INT, what=what)
        v = self.int_value(t)
        return -v if neg else v

    def skip_line(self, tok: Token) -> None:
        """Skip the rest of the line of ``tok`` (line-terminated directives: .loc, .file)."""
        end = self.src.line_end(tok.pos)
        while self.toks[self.i].kind != EOF and self.toks[self.i].pos < end:
            self.i += 1

    def skip_statement(self) -> None:
        while not self.at(PUNCT, ";"):
            if self.at(EOF):
                raise self.error("malformed PTX: missing ';'", self.peek())
            self.i += 1
        self.i += 1

    # ------------------------------------------------------------------ version / target
    def version_tuple(self) -> tuple[int, int] | None:
        v = self.module.version
        major, _, minor = v.partition(".")
        return (int(major), int(minor or 0)) if major.isdigit() and (minor or "0").isdigit() else None

    def check_version(self, tok: Token) -> None:
        """Reject a ``.version`` ptxas would: newer than it supports, or no such version."""
        major, _, minor = tok.text.partition(".")
        newest = "%d.%d" % MAX_PTX_VERSION
        if not (major.isdigit() and minor.isdigit()) or len(minor) != 1:
            raise self.error(f"malformed .version {tok.text} (expected major.minor, e.g. 9.0)", tok)
        v = (int(major), int(minor))
        if v > MAX_PTX_VERSION:
            raise self.error(f"unsupported .version {tok.text}: the newest PTX ISA version "
                             f"supported is {newest} (CUDA 13.0); produce the PTX with an "
                             f"nvcc that is not newer, or lower .version", tok,
                             f"PTX ISA versions up to {newest}")
        if v not in PTX_VERSIONS:
            raise self.error(f"unsupported .version {tok.text}: there is no PTX ISA version "
                             f"{tok.text}", tok, f"PTX ISA versions up to {newest}")

    def check_target(self, tok: Token) -> None:
        """Reject an unknown ``.target`` or one the module's ``.version`` does not support."""
        name = tok.text
        need = TARGET_MIN_VERSION.get(name)
        if need is None:
            raise self.error(f"unsupported .target '{name}'", tok,
                             "sm_XX targets up to sm_121 (" + _supported_list(TARGET_MIN_VERSION)
                             + ")")
        have = self.version_tuple()
        if have is not None and have < need:
            raise self.error(f"PTX .version {self.module.version} does not support .target "
                             f"{name} (it needs .version {need[0]}.{need[1]} or newer)", tok)

    def target_sm(self) -> int | None:
        t = self.module.target
        digits = t[3:].rstrip("af") if t.startswith("sm_") else ""
        return int(digits) if digits.isdigit() else None

    # ------------------------------------------------------------------ module level
    def parse_module(self) -> Module:
        m = self.module
        while True:
            t = self.peek()
            if t.kind == EOF:
                break
            if t.kind == PUNCT and t.text == ";":
                self.next()
                continue
            if t.kind != DIR:
                raise self.error(f"unexpected {t.text!r} at module scope (expected a directive)",
                                 t, _supported_list(MODULE_DIRECTIVES))
            d = t.text
            if d == ".version":
                self.next()
                v = self.next()
                if v.kind not in (FLT, INT):
                    raise self.error("malformed .version (expected e.g. 9.0)", v)
                self.check_version(v)
                m.version = v.text
            elif d == ".target":
                self.next()
                tt = self.expect(WORD, what="a target name such as sm_75")
                targets = [tt.text]
                while self.accept(PUNCT, ","):
                    o = self.expect(WORD, what="a target option")
                    if o.text not in TARGET_OPTIONS and o.text not in TARGET_MIN_VERSION:
                        raise self.error(f"unknown .target option '{o.text}'", o,
                                         _supported_list(TARGET_OPTIONS))
                    targets.append(o.text)
                self.check_target(tt)
                m.target = targets[0]
            elif d == ".address_size":
                self.next()
                n = self.expect_int("an address size (32 or 64)")
                if n not in (32, 64):
                    raise self.error(f"unsupported .address_size {n}", t, "32 64")
                m.address_size = n
            elif d in (".file", ".loc"):
                self.next()
                self.skip_line(t)
            elif d == ".section":
                self.skip_section()
            elif d == ".pragma":
                self.next()
                self.parse_pragma()
            else:
                self.parse_module_declaration()
        self.check_symbols()
        for name in list(m.externs):
            if name in m.functions:
                del m.externs[name]
        for f in m.functions.values():
            build_cfg(f)
        return m

    def skip_section(self) -> None:
        start = self.next()
        while not self.at(PUNCT, "{"):
            if self.at(EOF):
                raise self.error("malformed .section: missing '{'", start)
            self.next()
        depth = 0
        while True:
            t = self.next()
            if t.kind == EOF:
                raise self.error("unterminated .section: '{' has no matching '}'", start)
            if t.kind == PUNCT:
                if t.text == "{":
                    depth += 1
                elif t.text == "}":
                    depth -= 1
                    if depth == 0:
                        return

    def parse_pragma(self) -> None:
        self.expect(STR, what='a pragma string such as "nounroll"')
        while self.accept(PUNCT, ","):
            self.expect(STR, what="a pragma string")
        self.expect(PUNCT, ";")

    def parse_module_declaration(self) -> None:
        linkage = set()
        while self.at(DIR) and self.peek().text in _LINKAGE:
            linkage.add(self.next().text)
        t = self.peek()
        if t.kind == DIR and t.text in (".entry", ".func"):
            self.parse_function(linkage)
        elif t.kind == DIR and t.text in (".global", ".const", ".shared"):
            self.next()
            for v in self.parse_variable(t.text[1:], linkage):
                old = self.module.variables.get(v.name)
                if old is not None and not old.extern and not v.extern:
                    raise self.error(f"variable '{v.name}' declared twice (first at {old.loc})", t)
                if old is None or old.extern:
                    self.module.variables[v.name] = v
        elif t.kind == DIR and t.text in (".local", ".param"):
            raise self.error(f"{t.text} variables are only supported inside functions", t,
                             "module scope: .global .const .shared")
        else:
            raise self.error(f"unsupported directive {t.text!r} at module scope", t,
                             _supported_list(MODULE_DIRECTIVES))

    # ------------------------------------------------------------------ declarations
    def parse_type_and_name(self, what: str):
        """``[.align N] [.vN] [.align N] .type [.ptr [.space] [.align N]] name [dims]``.

        Returns (type, align or None, vector width, name token, dims list; None = ``[]``).
        """
        align = None
        vec = 1
        typ = None
        while self.at(DIR):
            t = self.peek()
            d = t.text
            if d == ".align":
                self.next()
                align = self.expect_int("an alignment in bytes")
                if align <= 0 or align & (align - 1):
                    raise self.error(f"alignment {align} is not a power of two", t)
            elif d in _VECTOR:
                self.next()
                vec = _VECTOR[d]
            elif d == ".attribute":
                self.next()
                self.expect(PUNCT, "(")
                while not self.accept(PUNCT, ")"):
                    if self.at(EOF):
                        raise self.error("malformed .attribute(...)", t)
                    self.next()
            elif d[1:] in TYPE_SUFFIXES and typ is None:
                self.next()
                typ = d[1:]
            elif d == ".ptr" and typ is not None:
                self.next()
                while self.at(DIR) and self.peek().text in (".global", ".const", ".shared",
                                                           ".local", ".align"):
                    if self.next().text == ".align":
                        self.expect_int("an alignment in bytes")
            elif d in (".texref", ".samplerref", ".surfref"):
                raise self.error(f"{d} (texture/surface references) is not supported", t,
                                 "types " + _supported_list("." + s for s in TYPE_SUFFIXES))
            else:
                break
        if typ is None:
            t = self.peek()
            raise self.error(f"malformed {what}: expected a type such as .b32, found {t.text!r}",
                             t, _supported_list("." + s for s in TYPE_SUFFIXES))
        name = self.expect(WORD, what=f"the name of the {what}")
        dims: list[int | None] = []
        while self.accept(PUNCT, "["):
            if self.accept(PUNCT, "]"):
                dims.append(None)
                continue
            n = self.expect_int("an array length")
            if n < 0:
                raise self.error("negative array length", name)
            dims.append(n)
            self.expect(PUNCT, "]")
        return typ, align, vec, name, dims

    def parse_variable(self, space: str, linkage: set) -> list[Variable]:
        """A variable declaration after its state-space keyword, up to and including ';'."""
        out = []
        typ, align, vec, name, dims = self.parse_type_and_name(f".{space} variable")
        while True:
            el = TYPE_SIZE[typ] * vec
            init = None
            relocs: tuple = ()
            if self.accept(PUNCT, "="):
                init, relocs, dims = self.parse_initializer(typ, vec, dims, name)
            if any(d is None for d in dims[1:]):
                raise self.error("only the first array dimension may be left unsized", name)
            count = 1
            for d in dims:
                count *= d or 0
            size = el * count
            is_extern = ".extern" in linkage
            if dims and dims[0] is None and not is_extern:
                raise self.error(f"unsized array '{name.text}' needs .extern or an initialiser", name)
            out.append(Variable(name=name.text, space=space, type=typ, align=align or el,
                                size=size, init=init, loc=self.loc(name), extern=is_extern,
                                relocs=relocs, visible=".visible" in linkage))
            if not self.accept(PUNCT, ","):
                break
            name = self.expect(WORD, what="a variable name")
            dims = []
            while self.accept(PUNCT, "["):
                dims.append(None if self.at(PUNCT, "]") else self.expect_int("an array length"))
                self.expect(PUNCT, "]")
        self.expect(PUNCT, ";")
        return out

    def parse_init_node(self):
        """One initialiser element or a ``{...}`` list (returned as a Python list)."""
        t = self.peek()
        if t.kind == PUNCT and t.text == "{":
            self.next()
            items = []
            if not self.accept(PUNCT, "}"):
                while True:
                    items.append(self.parse_init_node())
                    if self.accept(PUNCT, "}"):
                        break
                    self.expect(PUNCT, ",", what="',' or '}' in initialiser")
            return items
        neg = False
        if t.kind == PUNCT and t.text == "-":
            self.next()
            neg = True
            t = self.peek()
        if t.kind == INT:
            self.next()
            v = self.int_value(t)
            return ("int", -v if neg else v, t)
        if t.kind == F32:
            self.next()
            return ("f32", _f32_imm(t.text, neg).bits, t)
        if t.kind == F64:
            self.next()
            return ("f64", _f64_imm(t.text, neg).bits, t)
        if t.kind == FLT:
            self.next()
            v = float(t.text)
            return ("float", -v if neg else v, t)
        if t.kind == WORD and not neg:
            self.next()
            generic = False
            name = t.text
            if name == "generic" and self.accept(PUNCT, "("):
                generic = True
                name = self.expect(WORD, what="a symbol inside generic(...)").text
                self.expect(PUNCT, ")")
            addend = 0
            if self.at(PUNCT, "+") or self.at(PUNCT, "-"):
                sign = -1 if self.next().text == "-" else 1
                addend = sign * self.expect_int("an address offset")
            self.sym_refs.append((name, t, None, "symbol"))
            return ("sym", (name, generic, addend), t)
        raise self.error(f"malformed initialiser element {t.text!r}", t,
                         "integers, 0f/0d floats, decimal floats, symbols, generic(symbol), { lists }")

    def parse_initializer(self, typ: str, vec: int, dims: list, name: Token):
        """``= init`` after a variable name -> (bytes, relocations, dims with ``[]`` sized)."""
        node = self.parse_init_node()
        shape = list(dims) + ([vec] if vec > 1 else [])
        if shape and shape[0] is None:
            if not isinstance(node, list):
                raise self.error("an unsized array needs a { } initialiser", name)
            inner = 1
            for d in shape[1:]:
                inner *= d or 0
            flat_scalars = all(not isinstance(x, list) for x in node)
            if flat_scalars and len(shape) > 1:
                shape[0] = -(-len(node) // inner) if inner else 0
            else:
                shape[0] = len(node)
            dims = [shape[0]] + list(dims[1:])
        if any(d is None for d in shape):
            raise self.error("only the first array dimension may be left unsized", name)
        total = 1
        for d in shape:
            total *= d
        el = TYPE_SIZE[typ]
        if el * total > MAX_INIT_BYTES:
            raise self.error(f"initialised variable '{name.text}' is too large "
                             f"({el * total} bytes)", name, f"at most {MAX_INIT_BYTES} bytes")
        placed: list[tuple[int, tuple]] = []
        self.place_init(node, shape, 0, placed, name)
        buf = bytearray(el * total)
        relocs = []
        for k, (kind, value, tok) in placed:
            off = k * el
            if kind == "sym":
                sym, generic, addend = value
                if el not in (4, 8):
                    raise self.error(f"an address initialiser needs a 32- or 64-bit element type, "
                                     f"not .{typ}", tok)
                relocs.append(Reloc(off, el, sym, generic, addend))
                continue
            buf[off:off + el] = self.encode_scalar(typ, kind, value, tok)
        return bytes(buf), tuple(relocs), dims

    def place_init(self, node, shape: list, base: int, out: list, name: Token) -> None:
        """Initialiser tree -> (flat element index, element) pairs; missing ones stay zero.

        A ``{ }`` list of scalars fills the (sub-)array in row-major order; a list of
        lists gives one sub-list per leading-dimension row.
        """
        if not shape:
            if isinstance(node, list):
                if len(node) != 1 or isinstance(node[0], list):
                    raise self.error(f"too many initialisers (or braces) for '{name.text}'", name)
                node = node[0]
            out.append((base, node))
            return
        total = 1
        for d in shape:
            total *= d
        if not isinstance(node, list):
            raise self.error(f"array '{name.text}' needs a {{ }} initialiser", name)
        if all(not isinstance(x, list) for x in node):
            if len(node) > total:
                raise self.error(f"too many initialisers for '{name.text}' "
                                 f"({len(node)} > {total} elements)", name)
            out.extend((base + k, x) for k, x in enumerate(node))
            return
        if len(node) > shape[0]:
            raise self.error(f"too many initialisers for '{name.text}' "
                             f"({len(node)} > {shape[0]} rows)", name)
        inner = total // shape[0] if shape[0] else 0
        for r, sub in enumerate(node):
            self.place_init(sub if isinstance(sub, list) else [sub], shape[1:],
                            base + r * inner, out, name)

    def encode_scalar(self, typ: str, kind: str, value, tok: Token) -> bytes:
        el = TYPE_SIZE[typ]
        if typ in ("f32", "f64"):
            if kind == "f32" and typ == "f32":
                return struct.pack("<I", value)
            if kind == "f64" and typ == "f64":
                return struct.pack("<Q", value)
            if kind == "f32":
                value = struct.unpack("<f", struct.pack("<I", value))[0]
            elif kind == "f64":
                value = struct.unpack("<d", struct.pack("<Q", value))[0]
            return struct.pack("<f" if typ == "f32" else "<d", float(value))
        if kind == "float":
            raise self.error(f"decimal float initialiser for integer type .{typ}", tok)
        if kind in ("f32", "f64"):
            bits = value  # a bit pattern stored into a .b32/.b64 element
            if (kind == "f32" and el < 4) or (kind == "f64" and el < 8):
                raise self.error(f"{kind} constant does not fit .{typ}", tok)
            return bits.to_bytes(el, "little")
        lo, hi = -(1 << (8 * el - 1)), (1 << (8 * el)) - 1
        if not lo <= value <= hi:
            raise self.error(f"initialiser {value} does not fit .{typ}", tok)
        return (value & ((1 << (8 * el)) - 1)).to_bytes(el, "little")

    def parse_param_list(self, what: str) -> list[Param]:
        """``( .param ... , ... )`` -> params with naturally aligned byte offsets."""
        self.expect(PUNCT, "(")
        params: list[Param] = []
        offset = 0
        if self.accept(PUNCT, ")"):
            return params
        while True:
            t = self.peek()
            if t.kind == DIR and t.text == ".param":
                self.next()
            elif t.kind == DIR and t.text == ".reg":
                raise self.error(f".reg {what}s are not supported (nvcc uses .param)", t, ".param")
            else:
                raise self.error(f"malformed {what} list: expected .param, found {t.text!r}", t,
                                 ".param [.align N] .type name[N]")
            typ, align, vec, name, dims = self.parse_type_and_name(what)
            if any(d is None for d in dims):
                raise self.error(f"{what} '{name.text}' needs a size", name)
            count = 1
            for d in dims:
                count *= d
            el = TYPE_SIZE[typ] * vec
            a = align or el
            offset = _align_up(offset, a)
            params.append(Param(name=name.text, type=typ, size=el * count, align=a, offset=offset))
            offset += el * count
            if self.accept(PUNCT, ")"):
                return params
            self.expect(PUNCT, ",", what="',' or ')' in parameter list")

    # ------------------------------------------------------------------ functions
    def parse_function(self, linkage: set) -> None:
        kw = self.next()
        is_entry = kw.text == ".entry"
        ret_params: list[Param] = []
        if not is_entry and self.at(PUNCT, "("):
            ret_params = self.parse_param_list("return parameter")
        name = self.expect(WORD, what="a function name")
        params: list[Param] = []
        if self.at(PUNCT, "("):
            params = self.parse_param_list("parameter")
        func = Function(name=name.text, is_entry=is_entry, visible=".visible" in linkage,
                        params=params, ret_params=ret_params, regs={}, variables={},
                        instructions=[], labels={}, loc=self.loc(name))
        while self.at(DIR):
            t = self.next()
            d = t.text
            if d in (".maxntid", ".reqntid"):
                dims = [self.expect_int(f"a {d} dimension")]
                while self.accept(PUNCT, ","):
                    dims.append(self.expect_int(f"a {d} dimension"))
                if len(dims) > 3 or any(x <= 0 for x in dims):
                    raise self.error(f"malformed {d}: 1 to 3 positive dimensions", t)
                dims += [1] * (3 - len(dims))
                if d == ".maxntid":
                    func.maxntid = tuple(dims)
                else:
                    func.reqntid = tuple(dims)
            elif d in (".minnctapersm", ".maxnctapersm"):
                n = self.expect_int(f"a {d} count")
                if d == ".minnctapersm":
                    func.minnctapersm = n
            elif d == ".maxnreg":
                func.maxnreg = self.expect_int("a register count")
            elif d == ".noreturn":
                pass
            elif d == ".pragma":
                self.parse_pragma()
            else:
                raise self.error(f"unsupported directive {d!r} in a function header", t,
                                 _supported_list(HEADER_DIRECTIVES))
        m = self.module
        if self.accept(PUNCT, ";"):
            # declaration only (forward declaration or .extern)
            if name.text not in m.functions:
                m.externs.setdefault(name.text, func)
            return
        if ".extern" in linkage:
            raise self.error(f".extern function '{name.text}' must not have a body", name)
        if name.text in m.functions:
            raise self.error(f"function '{name.text}' defined twice "
                             f"(first at {m.functions[name.text].loc})", name)
        if not self.at(PUNCT, "{"):
            t = self.peek()
            raise self.error(f"malformed function '{name.text}': expected '{{' or ';', found {t.text!r}",
                             t, _supported_list(HEADER_DIRECTIVES))
        self.parse_body(func)
        m.functions[name.text] = func

    def parse_body(self, func: Function) -> None:
        fb = _FunctionBuilder(func)
        open_tok = self.peek()
        opens = [open_tok]
        for p in func.params + func.ret_params:
            fb.decl_sig[p.name] = ("param",)
        while True:
            t = self.peek()
            k = t.kind
            if k == PUNCT:
                if t.text == "{":
                    self.next()
                    fb.scope_count += 1
                    fb.scopes.append(_Scope(fb.scope_count))
                    opens.append(t)
                    continue
                if t.text == "}":
                    self.next()
                    fb.scopes.pop()
                    opens.pop()
                    if not fb.scopes:
                        break
                    continue
                if t.text == ";":
                    self.next()
                    continue
                if t.text == "@":
                    self.parse_instruction(fb)
                    continue
                raise self.error(f"malformed PTX: unexpected {t.text!r} in function body", t)
            if k == WORD:
                nxt = self.peek(1)
                if nxt.kind == PUNCT and nxt.text == ":":
                    self.parse_label(fb)
                else:
                    self.parse_instruction(fb)
                continue
            if k == DIR:
                self.parse_body_directive(fb)
                continue
            if k == EOF:
                o = self.loc(opens[-1])
                raise self.error(f"unterminated block: '{{' opened at {o} "
                                 f"in function '{func.name}' has no matching '}}'", t)
            raise self.error(f"malformed PTX: unexpected {t.text!r} in function body", t,
                             "instructions, labels and " + _supported_list(BODY_DIRECTIVES))
        # labels are function-scoped: check branch targets now
        for name, tok in fb.label_refs:
            if name not in func.labels:
                known = ", ".join(sorted(func.labels)) or "none"
                raise self.error(f"unknown label '{name}' in function '{func.name}'", tok,
                                 f"labels defined in this function: {known}")

    def parse_label(self, fb: _FunctionBuilder) -> None:
        t = self.next()
        self.next()  # ':'
        if self.at(DIR) and self.peek().text in (".callprototype", ".branchtargets",
                                                 ".calltargets"):
            d = self.next()
            if d.text != ".callprototype":
                raise self.error(f"{d.text} (indirect branch tables, brx.idx) is not supported"
                                 if d.text == ".branchtargets" else
                                 f"{d.text} (indirect call tables) is not supported", d,
                                 ".callprototype (brx.idx and indirect calls are not modelled)")
            fb.prototypes.add(t.text)
            self.skip_statement()
            return
        if t.text in fb.func.labels:
            raise self.error(f"label '{t.text}' defined twice", t)
        fb.func.labels[t.text] = len(fb.func.instructions)

    def declare(self, fb: _FunctionBuilder, name: str, kind: str, sig: tuple, tok: Token) -> str:
        """Declare ``name`` in the innermost scope; returns its resolved (unique) name.

        The name is kept unless it shadows a name of an enclosing scope or an earlier
        (closed) scope declared it with another shape; then it becomes ``name@N``.
        Function parameters cannot be re-declared.
        """
        scope = fb.scopes[-1]
        if name in scope.names:
            raise self.error(f"'{name}' declared twice in the same scope", tok)
        prev = fb.decl_sig.get(name)
        if prev == ("param",):
            raise self.error(f"'{name}' conflicts with a parameter of function "
                             f"'{fb.func.name}'", tok)
        resolved = name
        if prev is not None and (prev != sig or any(name in s.names for s in fb.scopes[:-1])):
            resolved = f"{name}@{scope.number}"
        if resolved not in fb.decl_sig:
            fb.decl_sig[resolved] = sig
        scope.names[name] = (kind, resolved)
        return resolved

    def parse_body_directive(self, fb: _FunctionBuilder) -> None:
        t = self.next()
        d = t.text
        func = fb.func
        if d == ".reg":
            if self.at(DIR) and self.peek().text in _VECTOR:
                raise self.error("vector registers (.reg .v2/.v4) are not supported", self.peek())
            tt = self.peek()
            if tt.kind != DIR or tt.text[1:] not in TYPE_SUFFIXES:
                raise self.error(f"malformed .reg: expected a type, found {tt.text!r}", tt,
                                 _supported_list("." + s for s in TYPE_SUFFIXES))
            self.next()
            typ = tt.text[1:]
            while True:
                n = self.expect(WORD, what="a register name")
                if self.accept(PUNCT, "<"):
                    count = self.expect_int("a register count")
                    if not 0 <= count <= MAX_REG_RANGE:
                        raise self.error(f"register range <{count}> out of bounds", n,
                                         f"0 to {MAX_REG_RANGE} registers per declaration")
                    self.expect(PUNCT, ">")
                    names = [f"{n.text}{j}" for j in range(count)]
                else:
                    names = [n.text]
                for name in names:
                    r = self.declare(fb, name, "reg", ("reg", typ), n)
                    func.regs[r] = typ
                if not self.accept(PUNCT, ","):
                    break
            self.expect(PUNCT, ";")
        elif d in (".local", ".shared", ".param"):
            space = d[1:]
            for v in self.parse_variable(space, set()):
                if v.space == "param":
                    sig = ("param", v.type, v.size, v.align)
                    v.name = self.declare(fb, v.name, "sym", sig, t)
                    func.call_params.setdefault(v.name, v)
                else:
                    sig = (space, v.type, v.size, v.align, v.init)
                    v.name = self.declare(fb, v.name, "sym", sig, t)
                    func.variables.setdefault(v.name, v)
        elif d == ".extern":
            nt = self.peek()
            if nt.kind == DIR and nt.text == ".shared":
                self.next()
                for v in self.parse_variable("shared", {".extern"}):
                    v.name = self.declare(fb, v.name, "sym", ("shared", "extern", v.type), t)
                    func.variables.setdefault(v.name, v)
            else:
                raise self.error(f"unsupported .extern {nt.text!r} in a function body", nt,
                                 ".extern .shared")
        elif d == ".pragma":
            self.parse_pragma()
        elif d in (".loc", ".file"):
            self.skip_line(t)
        else:
            raise self.error(f"unsupported directive {d!r} in a function body", t,
                             _supported_list(BODY_DIRECTIVES))

    # ------------------------------------------------------------------ instructions
    def parse_instruction(self, fb: _FunctionBuilder) -> None:
        start = self.peek()
        guard = None
        if self.accept(PUNCT, "@"):
            neg = self.accept(PUNCT, "!") is not None
            g = self.expect(WORD, what="a predicate register after '@'")
            r = self.resolve(fb, g)
            if not isinstance(r, Reg):
                raise self.error(f"guard {g.text!r} is not a declared predicate register", g)
            guard = PredGuard(r, neg)
        op_tok = self.expect(WORD, what="an opcode")
        parts = op_tok.text.split(".")
        opcode = parts[0]
        if opcode not in SUPPORTED_OPCODES:
            raise self.error(f"unsupported PTX opcode '{opcode}' (in '{op_tok.text}')", op_tok,
                             "opcodes " + _supported_list(SUPPORTED_OPCODES))
        need = OPCODE_MIN_TARGET.get(opcode)
        sm = self.target_sm()
        if need is not None and sm is not None and sm < need:
            raise self.error(f"instruction '{op_tok.text}' requires .target sm_{need} or higher "
                             f"(the module's .target is {self.module.target})", op_tok)
        mods = tuple(parts[1:])
        types = tuple(m for m in mods if m in TYPE_SUFFIXES)
        if opcode == "call":
            operands = self.parse_call_operands(fb)
        else:
            operands = []
            if not self.at(PUNCT, ";"):
                while True:
                    operands.append(self.parse_operand(fb, branch=(opcode == "bra")))
                    if not self.accept(PUNCT, ","):
                        break
            operands = tuple(operands)
            if opcode == "bra" and (len(operands) != 1 or not isinstance(operands[0], Sym)):
                raise self.error("malformed bra: expected exactly one label operand", op_tok,
                                 "bra[.uni] label")
        end = self.expect(PUNCT, ";", what="';' or ',' after an operand")
        raw = self.text[start.pos:end.pos + 1]
        if "/" in raw:
            raw = _COMMENT_RE.sub(" ", raw)
        text = _WS_RE.sub(" ", raw).strip()
        if "\n" in raw:  # multi-line statements (nvcc's call sequences): tidy brackets
            text = _BRACKET_WS_RE.sub(lambda m: m.group().strip(), text)
        func = fb.func
        if opcode == "mov":
            self.check_mov(func, types, operands, op_tok)
        func.instructions.append(Instruction(
            opcode=opcode, mods=mods, types=types, operands=operands, guard=guard,
            pc=8 * len(func.instructions), loc=self.loc(start), text=text))

    def check_mov(self, func: Function, types: tuple, operands: tuple, op_tok: Token) -> None:
        """Reject ``mov`` operands whose type does not match the instruction type, as ptxas
        does ("Arguments mismatch for instruction 'mov'"): registers must have the same
        size, and floats match only floats or ``.b`` types; integer immediates are not
        floats and float immediates are not integers."""
        if len(types) != 1 or len(operands) != 2:
            return
        t = types[0]
        for o in operands:
            why = None
            if isinstance(o, Reg):
                rt = func.regs.get(o.name)
                if rt is not None and not _mov_compatible(t, rt):
                    why = f"register {o.name} is .{rt}"
            elif isinstance(o, Imm) and t != "pred":
                if o.kind == "int" and t[0] == "f":
                    why = f"integer immediate {o.value} (write a float as 0f/0d hex or 1.0)"
                elif o.kind == "float" and t[0] != "f":
                    why = f"floating-point immediate {o.value}"
                elif o.kind in ("f32", "f64") and t[0] in "us":
                    why = "floating-point immediate (0f/0d hex)"
            if why:
                raise self.error(f"operand type mismatch in '{op_tok.text}': {why}, the "
                                 f"instruction type is .{t} (ptxas: Arguments mismatch for "
                                 f"instruction 'mov')", op_tok,
                                 "operands of the instruction's size; .b types match any type "
                                 "of their size, .u and .s match each other, floats match only "
                                 "their own type")

    def parse_call_operands(self, fb: _FunctionBuilder) -> tuple:
        """``[(rets),] target [, (args)] [, prototype]``."""
        rets = None
        if self.at(PUNCT, "("):
            rets = self.parse_paren_list(fb)
            self.expect(PUNCT, ",", what="',' after the call's return parameters")
        tt = self.expect(WORD, what="a call target")
        target = self.resolve(fb, tt)
        if isinstance(target, Sym):
            self.sym_refs.append((tt.text, tt, fb.func, "function"))
        elif not isinstance(target, Reg):
            raise self.error(f"call target {tt.text!r} is not a function or register", tt)
        args = Vec(())
        extra = ()
        if self.accept(PUNCT, ","):
            if self.at(PUNCT, "("):
                args = self.parse_paren_list(fb)
                if self.accept(PUNCT, ","):
                    pt = self.expect(WORD, what="a .callprototype label")
                    if pt.text not in fb.prototypes:
                        raise self.error(f"unknown call prototype '{pt.text}'", pt)
                    extra = (Sym(pt.text),)
            else:
                pt = self.expect(WORD, what="'(' or a .callprototype label")
                if pt.text not in fb.prototypes:
                    raise self.error(f"unknown call prototype '{pt.text}'", pt)
                extra = (Sym(pt.text),)
        if isinstance(target, Reg) and not extra:
            raise self.error("an indirect call needs a .callprototype", tt)
        return (rets, target, args) + extra

    def parse_paren_list(self, fb: _FunctionBuilder) -> Vec:
        self.expect(PUNCT, "(")
        items = []
        if not self.accept(PUNCT, ")"):
            while True:
                items.append(self.parse_operand(fb))
                if self.accept(PUNCT, ")"):
                    break
                self.expect(PUNCT, ",", what="',' or ')'")
        return Vec(tuple(items))

    def resolve(self, fb: _FunctionBuilder, tok: Token):
        """A name used as an operand -> Reg / SpecialReg / Sym (sinks ``_`` -> None)."""
        name = tok.text
        for scope in reversed(fb.scopes):
            hit = scope.names.get(name)
            if hit is not None:
                kind, resolved = hit
                return Reg(resolved) if kind == "reg" else Sym(resolved)
        if name[0] == "%":
            base, _, comp = name[1:].partition(".")
            allowed = SPECIAL_REGS.get(base)
            if allowed is not None:
                if (comp and comp not in allowed) or (not comp and allowed):
                    raise self.error(f"special register {name} needs a component "
                                     f"{'/'.join(sorted(allowed))}" if allowed else
                                     f"special register %{base} has no component '.{comp}'", tok)
                return SpecialReg(base, comp or None)
            if comp and "%" + base in fb.func.regs:
                raise self.error(f"vector register components ({name}) are not supported", tok)
            raise self.error(f"undeclared register {name} in function '{fb.func.name}'", tok,
                             "registers declared with .reg, and special registers "
                             + " ".join("%" + s for s in sorted(SPECIAL_REGS)))
        if name == "_":
            return None
        return Sym(name)

    def parse_operand(self, fb: _FunctionBuilder, branch: bool = False):
        t = self.peek()
        k = t.kind
        if k == WORD:
            self.next()
            v = self.resolve(fb, t)
            if isinstance(v, Sym):
                if branch:
                    fb.label_refs.append((v.name, t))
                elif v.name == t.text:  # not a scoped local name: check at module end
                    self.sym_refs.append((v.name, t, fb.func, "symbol"))
            if self.at(PUNCT, "|"):
                self.next()
                t2 = self.expect(WORD, what="a second destination after '|'")
                v2 = self.resolve(fb, t2)
                if not isinstance(v, (Reg, type(None))) or not isinstance(v2, (Reg, type(None))):
                    raise self.error("both sides of '|' must be registers", t)
                return Vec((v, v2))
            return v
        if k == INT:
            self.next()
            return Imm(self.int_value(t), "int")
        if k == F32:
            self.next()
            return _f32_imm(t.text)
        if k == F64:
            self.next()
            return _f64_imm(t.text)
        if k == FLT:
            self.next()
            return Imm(float(t.text), "float")
        if k == PUNCT:
            c = t.text
            if c == "[":
                return self.parse_address(fb)
            if c == "{":
                self.next()
                elems = []
                while True:
                    e = self.parse_operand(fb)
                    if isinstance(e, (Addr, Vec)):
                        raise self.error("malformed vector operand", t)
                    elems.append(e)
                    if self.accept(PUNCT, "}"):
                        break
                    self.expect(PUNCT, ",", what="',' or '}' in a vector operand")
                return Vec(tuple(elems))
            if c == "-":
                self.next()
                n = self.peek()
                if n.kind == INT:
                    self.next()
                    return Imm(-self.int_value(n), "int")
                if n.kind == F32:
                    self.next()
                    return _f32_imm(n.text, True)
                if n.kind == F64:
                    self.next()
                    return _f64_imm(n.text, True)
                if n.kind == FLT:
                    self.next()
                    return Imm(-float(n.text), "float")
                raise self.error("malformed operand: '-' must precede a number", n)
            if c == "!":
                self.next()
                p = self.expect(WORD, what="a predicate register after '!'")
                r = self.resolve(fb, p)
                if not isinstance(r, Reg):
                    raise self.error(f"'!' needs a predicate register, not {p.text!r}", p)
                return PredGuard(r, True)
        got = "end of file" if k == EOF else repr(t.text)
        raise self.error(f"malformed operand {got}", t,
                         "registers, special registers, immediates, symbols, [address], {vector}")

    def parse_address(self, fb: _FunctionBuilder) -> Addr:
        open_t = self.next()
        t = self.peek()
        base = None
        offset = 0
        if t.kind == WORD:
            self.next()
            base = self.resolve(fb, t)
            if isinstance(base, SpecialReg) or base is None:
                raise self.error(f"{t.text!r} cannot be an address base", t)
            if isinstance(base, Sym) and base.name == t.text:
                self.sym_refs.append((base.name, t, fb.func, "symbol"))
            if self.at(PUNCT, "+") or self.at(PUNCT, "-"):
                sign = -1 if self.next().text == "-" else 1
                offset = sign * self.expect_int("an address offset")
        elif t.kind == INT or (t.kind == PUNCT and t.text == "-"):
            offset = self.expect_int("an address")
        else:
            raise self.error(f"malformed address: expected a register, symbol or number after '[', "
                             f"found {t.text!r}", t, "[%reg], [%reg+off], [symbol], [symbol+off], [number]")
        if not self.at(PUNCT, "]"):
            t = self.peek()
            raise self.error(f"malformed address: expected ']' , found {t.text!r}", open_t,
                             "[%reg], [%reg+off], [symbol], [symbol+off], [number]")
        self.next()
        return Addr(base, offset)

    # ------------------------------------------------------------------ module checks
    def check_symbols(self) -> None:
        m = self.module
        for name, tok, func, what in self.sym_refs:
            if what == "function":
                if name not in m.functions and name not in m.externs:
                    raise self.error(f"call to undeclared function '{name}'", tok,
                                     "functions defined or declared in this module: "
                                     + (", ".join(sorted(set(m.functions) | set(m.externs))) or "none"))
                continue
            if name in m.variables or name in m.functions or name in m.externs:
                continue
            if func is not None:
                if (name in func.variables or name in func.call_params
                        or any(p.name == name for p in func.params)
                        or any(p.name == name for p in func.ret_params)):
                    continue
                if name in func.labels:
                    raise self.error(f"label '{name}' used as a value", tok)
            raise self.error(f"undeclared symbol '{name}'", tok,
                             "module variables, the function's parameters and variables, "
                             "function names")


CUDA_SOURCE_SUFFIXES = (".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp")
_CUDA_MARKERS = re.compile(r'__global__|__device__|__shared__|^\s*#\s*(include|define)\b|'
                           r'extern\s+"C"', re.M)
_PTX_VERSION = re.compile(r"^\s*\.version\b", re.M)


def refuse_cuda_source(text: str | None, file: str) -> None:
    """Raise :class:`PTXError` if ``file`` (by its suffix) or ``text`` (CUDA keywords and no
    ``.version`` directive) is CUDA C/C++ source: the lexer would only say 'unexpected
    character' at its first ``#`` or ``(``."""
    by_name = file.lower().endswith(CUDA_SOURCE_SUFFIXES)
    by_text = text is not None and not _PTX_VERSION.search(text) and _CUDA_MARKERS.search(text)
    if by_name or by_text:
        if by_name:
            how = f"'nvcc -ptx -arch=sm_75 {file} -o {file.rsplit('.', 1)[0]}.ptx'"
        else:
            how = "'nvcc -ptx -arch=sm_75 kernel.cu -o kernel.ptx' (the source saved as kernel.cu)"
        raise PTXError(f"{file} is CUDA C/C++ source, not PTX; simtlab runs PTX. Produce it with "
                       f"{how} and load the .ptx file")


def parse_ptx(text: str, file: str = "<string>") -> Module:
    """Parse PTX source text into a :class:`~golden.ptx.ir.Module` (with CFG and ipdom)."""
    refuse_cuda_source(text, file)
    return Parser(text, file).parse_module()
