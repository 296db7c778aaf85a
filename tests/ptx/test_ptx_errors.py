"""Bad PTX gives a PTXError naming file:line:col, the source text and what is supported."""

import random
import re
from pathlib import Path

import pytest

from golden.errors import PTXError
from golden.ptx import SUPPORTED_OPCODES, load_ptx, parse_ptx

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
SAMPLES = Path(__file__).resolve().parent / "samples"


def kernel(body: str, pre: str = "") -> str:
    # body starts on line 8
    return f"{HEADER}{pre}.visible .entry k(.param .u64 k_p)\n{{\n.reg .pred %p<2>;\n" \
           f".reg .b32 %r<5>;\n{body}\n}}\n"


def error_of(text: str, file: str = "bad.ptx") -> PTXError:
    with pytest.raises(PTXError) as e:
        parse_ptx(text, file)
    return e.value


def test_unknown_opcode():
    e = error_of(kernel("add.s32 %r1, %r2, 1;\n  frobnicate.b32 %r1, %r2;\nret;"))
    msg = str(e)
    assert msg.startswith("bad.ptx:9:3: unsupported PTX opcode 'frobnicate'")
    assert "frobnicate.b32 %r1, %r2;" in msg
    assert "supported: opcodes " in msg and " mad " in msg and " shfl " in msg
    assert (e.loc.file, e.loc.line, e.loc.col) == ("bad.ptx", 9, 3)
    assert e.text.strip() == "frobnicate.b32 %r1, %r2;"
    assert all(op in e.supported for op in SUPPORTED_OPCODES)


def test_opcode_families_from_the_issue_are_supported():
    issue = ("add sub mul mad mul24 mad24 div rem abs neg min max fma sad and or xor not cnot shl "
             "shr shf bfe bfi bfind prmt popc clz brev setp selp set slct cvt cvta mov sqrt rsqrt "
             "rcp ex2 lg2 sin cos tanh copysign testp ld ldu st atom red bra ret exit call bar "
             "barrier membar fence vote activemask shfl isspacep prefetch nanosleep trap")
    assert set(issue.split()) <= SUPPORTED_OPCODES
    for unsupported in ("tex", "suld", "mma", "wmma", "ldmatrix", "cp", "brx"):
        assert unsupported not in SUPPORTED_OPCODES


def test_texture_instruction_is_rejected_with_location():
    e = error_of(kernel("tex.2d.v4.f32.s32 {%r1, %r2, %r3, %r4}, [t, {%r1, %r2}];"))
    assert str(e).startswith("bad.ptx:8:1: unsupported PTX opcode 'tex'")


def test_undeclared_register():
    e = error_of(kernel("add.s32 %r1, %r7, 1;"))
    assert str(e).startswith("bad.ptx:8:14: undeclared register %r7 in function 'k'")
    assert "add.s32 %r1, %r7, 1;" in str(e)
    assert "%tid" in e.supported and ".reg" in e.supported


def test_register_range_excludes_its_bound():
    # .reg .b32 %r<5> declares %r0..%r4 only
    e = error_of(kernel("mov.u32 %r5, 0;"))
    assert "undeclared register %r5" in str(e)


def test_register_of_another_function_is_undeclared():
    text = (HEADER + ".func f()\n{\n.reg .b32 %q<2>;\nret;\n}\n"
            ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %q1, 0;\nret;\n}\n")
    assert str(error_of(text)).startswith("bad.ptx:12:9: undeclared register %q1")


def test_inner_scope_register_is_gone_after_the_block():
    e = error_of(kernel("{\n.reg .b32 %t;\nmov.u32 %t, 1;\n}\nmov.u32 %r1, %t;"))
    assert str(e).startswith("bad.ptx:12:14: undeclared register %t")


def test_unknown_label():
    e = error_of(kernel("@%p1 bra $L__BB0_9;\n$L__BB0_2:\nret;"))
    msg = str(e)
    assert msg.startswith("bad.ptx:8:10: unknown label '$L__BB0_9' in function 'k'")
    assert "labels defined in this function: $L__BB0_2" in msg


def test_label_of_another_function_is_unknown():
    text = (HEADER + ".func f()\n{\n$A:\nret;\n}\n.visible .entry k()\n{\nbra.uni $A;\n}\n")
    assert "unknown label '$A'" in str(error_of(text))


def test_duplicate_label():
    assert "label '$A' defined twice" in str(error_of(kernel("$A:\nret;\n$A:\nret;")))


def test_unterminated_block():
    e = error_of(kernel("ret;").rstrip().rstrip("}"))
    msg = str(e)
    assert "unterminated block: '{' opened at bad.ptx:5:1 in function 'k'" in msg
    e = error_of(kernel("{\n{\nret;"))  # the kernel's final '}' closes the inner block
    assert "'{' opened at bad.ptx:8:1" in str(e)


def test_unknown_directives():
    e = error_of(HEADER + ".texref tex0;\n")
    assert str(e).startswith("bad.ptx:4:1: unsupported directive '.texref' at module scope")
    assert ".entry" in e.supported and ".global" in e.supported
    e = error_of(kernel(".frob 3;\nret;"))
    assert str(e).startswith("bad.ptx:8:1: unsupported directive '.frob' in a function body")
    assert ".reg" in e.supported
    e = error_of(HEADER + ".visible .entry k()\n.explicitcluster\n{\nret;\n}\n")
    assert "unsupported directive '.explicitcluster' in a function header" in str(e)
    assert ".maxntid" in e.supported


def test_undeclared_symbols_and_functions():
    e = error_of(kernel("ld.param.u64 %rd1, [k_q];\nret;").replace(".reg .b32", ".reg .b64 %rd<2>;\n.reg .b32"))
    assert "undeclared symbol 'k_q'" in str(e)
    e = error_of(kernel("{\n.param .b32 retval0;\ncall.uni (retval0), nosuch, ();\n}\nret;"))
    assert str(e).startswith("bad.ptx:10:21: call to undeclared function 'nosuch'")


@pytest.mark.parametrize("body, message", [
    ("add.s32 %r1, %r2, 1\nret;", "expected ';' or ',' after an operand"),
    ("ld.global.u32 %r1, [%r2+4;", "malformed address"),
    ("ld.global.u32 %r1, [+4];", "malformed address"),
    ("mov.b64 {%r1, %r2, %r1;", "',' or '}' in a vector operand"),
    ("add.s32 %r1, %r2, -%r3;", "'-' must precede a number"),
    ("add.s32 %r1, , 1;", "malformed operand ','"),
    ("bra.uni;", "malformed bra"),
    ("@%r9 bra $A;\n$A:\nret;", "undeclared register %r9"),
    ("@k_p bra $A;\n$A:\nret;", "is not a declared predicate register"),
    (".reg .v4 .f32 %v;", "vector registers"),
    (".reg %x;", "malformed .reg"),
    (".reg .b32 %r<2>;", "'%r0' declared twice in the same scope"),
    (".reg .b32 k_p;", "'k_p' conflicts with a parameter of function 'k'"),
    ("mov.u32 %r1, %tid;", "needs a component"),
    ("mov.u32 %r1, %laneid.x;", "has no component"),
    ("ld.global.u32 %r1, [%r2+08];", "malformed integer literal '08'"),
    ("}", "unexpected '}' at module scope"),
])
def test_malformed_syntax(body, message):
    e = error_of(kernel(body))
    assert message in str(e)
    assert re.match(r"bad\.ptx:\d+:\d+: ", str(e))


@pytest.mark.parametrize("pre, message", [
    (".global .u32 x[2] = {1, 2, 3};\n", "too many initialisers for 'x'"),
    (".global .u8 x = 300;\n", "initialiser 300 does not fit .u8"),
    (".global .u32 x[2] = {1, 1.5};\n", "decimal float initialiser for integer type"),
    (".global .b8 x[];\n", "needs .extern or an initialiser"),
    (".global .u32 x = 1;\n.global .u32 x = 2;\n", "variable 'x' declared twice"),
    (".global .align 3 .u32 x;\n", "not a power of two"),
    (".global x;\n", "expected a type"),
    (".global .u64 p = nowhere;\n", "undeclared symbol 'nowhere'"),
    (".local .u32 x;\n", "only supported inside functions"),
    (".address_size 16\n", "unsupported .address_size 16"),
])
def test_bad_module_declarations(pre, message):
    assert message in str(error_of(kernel("ret;", pre=pre)))


def test_function_defined_twice():
    text = HEADER + ".func f()\n{\nret;\n}\n.func f()\n{\nret;\n}\n"
    assert "function 'f' defined twice (first at bad.ptx:4:7)" in str(error_of(text))


def test_load_ptx_errors_name_the_path(tmp_path):
    p = tmp_path / "broken.ptx"
    p.write_text(kernel("ret;\nbogus;"))
    with pytest.raises(PTXError, match=re.escape(f"{p}:9:1: unsupported PTX opcode 'bogus'")):
        load_ptx(p)
    with pytest.raises(PTXError, match="cannot read PTX file"):
        load_ptx(tmp_path / "missing.ptx")


def test_mutated_real_ptx_raises_only_ptxerror():
    """Seeded random token edits of the samples: the parser either accepts the text or
    raises PTXError, never another exception (IndexError, KeyError, ...)."""
    seed = 20240613
    rng = random.Random(seed)
    texts = [p.read_text() for p in sorted(SAMPLES.glob("*.ptx"))]
    frags = ["", ";", "{", "}", "[", "]", "(", ")", ",", "-", "%r99", "@", "!", ".reg", ".b32",
             "0f3F80", "=", "|", "<", ">", "_", "foo", ".align 3", '"', "/*", ":", "+", "bra"]
    accepted = rejected = 0
    for _ in range(300):
        t = rng.choice(texts)
        spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", t)]
        s = t
        for _ in range(rng.randint(1, 3)):
            a, b = rng.choice(spans)
            if b > len(s):
                continue
            r = rng.random()
            if r < 0.4:
                s = s[:a] + s[b:]
            elif r < 0.8:
                s = s[:a] + rng.choice(frags) + s[b:]
            else:
                c, d = rng.choice(spans)
                s = s[:a] + t[c:d] + s[b:]
        try:
            parse_ptx(s, "fuzz.ptx")
            accepted += 1
        except PTXError as e:
            assert str(e).startswith("fuzz.ptx:"), f"seed {seed}: {e}"
            rejected += 1
    assert rejected > 100 and accepted > 0


_CUDA_SOURCE = '#include <cstdio>\n__global__ void k(int *out) { out[threadIdx.x] = 1; }\n'


def test_cuda_source_is_refused_with_the_nvcc_command(tmp_path):
    """Issue 19 item 13: a .cu given to load_module said "unexpected character '#'"."""
    from golden.host import Device
    cu = tmp_path / "saxpy.cu"
    cu.write_text(_CUDA_SOURCE)
    with pytest.raises(PTXError, match=re.escape(f"{cu} is CUDA C/C++ source, not PTX; simtlab "
                                                 f"runs PTX. Produce it with 'nvcc -ptx "
                                                 f"-arch=sm_75 {cu} -o {tmp_path / 'saxpy'}.ptx'")):
        Device().load_module(cu)
    # CUDA text under another name (or as code=) is recognised by its keywords
    renamed = tmp_path / "saxpy.txt"
    renamed.write_text(_CUDA_SOURCE)
    with pytest.raises(PTXError, match="is CUDA C/C.. source, not PTX.*nvcc -ptx -arch=sm_75"):
        load_ptx(renamed)
    with pytest.raises(PTXError, match="<string> is CUDA C/C.. source, not PTX"):
        Device().load_module(code=_CUDA_SOURCE)
