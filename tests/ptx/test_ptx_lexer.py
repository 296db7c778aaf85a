"""Lexer: token classes, literals, comments, positions and lexical errors."""

import pytest

from golden.errors import PTXError
from golden.ptx.lexer import DIR, EOF, F32, F64, FLT, INT, PUNCT, STR, WORD, Source, tokenize


def lex(text):
    src = Source(text, "t.ptx")
    return src, tokenize(src)


def kinds_texts(text):
    _, toks = lex(text)
    return [(t.kind, t.text) for t in toks]


def test_instruction_tokens():
    assert kinds_texts("@!%p1 ld.global.nc.v4.f32 {%f1, _}, [%rd1+-4];") == [
        (PUNCT, "@"), (PUNCT, "!"), (WORD, "%p1"), (WORD, "ld.global.nc.v4.f32"),
        (PUNCT, "{"), (WORD, "%f1"), (PUNCT, ","), (WORD, "_"), (PUNCT, "}"), (PUNCT, ","),
        (PUNCT, "["), (WORD, "%rd1"), (PUNCT, "+"), (PUNCT, "-"), (INT, "4"), (PUNCT, "]"),
        (PUNCT, ";"), (EOF, ""),
    ]


def test_directives_and_register_ranges():
    assert kinds_texts(".reg .b32 %r<29>;")[:7] == [
        (DIR, ".reg"), (DIR, ".b32"), (WORD, "%r"), (PUNCT, "<"), (INT, "29"), (PUNCT, ">"),
        (PUNCT, ";")]


def test_literals():
    toks = kinds_texts("0f3F800000 0d4000000000000000 0x1F 017 0b101 42U 9.0 1.5e3 \"nounroll\"")
    assert toks[:-1] == [(F32, "0f3F800000"), (F64, "0d4000000000000000"), (INT, "0x1F"),
                         (INT, "017"), (INT, "0b101"), (INT, "42U"), (FLT, "9.0"),
                         (FLT, "1.5e3"), (STR, '"nounroll"')]


def test_special_registers_labels_and_symbols_are_words():
    toks = kinds_texts("%tid.x %clock64 $L__BB0_2 _ZZ6kernelE4tile $str temp_param_reg")
    assert all(k == WORD for k, _ in toks[:-1])
    assert [t for _, t in toks[:-1]] == ["%tid.x", "%clock64", "$L__BB0_2", "_ZZ6kernelE4tile",
                                         "$str", "temp_param_reg"]


def test_comments_are_skipped_and_positions_are_kept():
    text = "// header\n  add.s32 /* a\n b */ %r1, %r2, 3; // tail\n\tret;"
    src, toks = lex(text)
    words = [(t.text, src.line_col(t.pos)) for t in toks if t.kind == WORD]
    assert words == [("add.s32", (2, 3)), ("%r1", (3, 7)), ("%r2", (3, 12)), ("ret", (4, 2))]
    assert src.line_text(3) == " b */ %r1, %r2, 3; // tail"


def test_unexpected_character_names_line_and_column():
    with pytest.raises(PTXError) as e:
        lex(".version 9.0\n  add.s32 %r1, %r2 # 3;")
    assert "t.ptx:2:20" in str(e.value)
    assert "unexpected character '#'" in str(e.value)
    assert "add.s32 %r1, %r2 # 3;" in str(e.value)


def test_unterminated_comment_and_string():
    with pytest.raises(PTXError, match=r"t\.ptx:2:1: unterminated /\* comment"):
        lex("ret;\n/* never closed\n")
    with pytest.raises(PTXError, match="unterminated string literal"):
        lex('.pragma "nounroll;\n')
