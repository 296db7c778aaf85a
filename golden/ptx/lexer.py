"""PTX lexer: source text -> list of :class:`Token`.

The token classes follow the PTX ISA's lexical rules as far as nvcc's output uses them:

* ``WORD`` – an identifier, possibly with dotted suffixes glued to it. Opcodes with their
  modifiers (``ld.global.nc.v4.f32``), registers (``%r12``), special registers
  (``%tid.x``), labels (``$L__BB0_2``) and symbols (``_ZZ6kernelE4tile``) are all words.
* ``DIR`` – a directive or a detached type/state-space keyword (``.reg``, ``.b32``, ``.align``).
* ``INT`` – an integer literal (decimal, ``0x`` hex, ``0b`` binary, leading-zero octal,
  optional ``U`` suffix).
* ``F32`` / ``F64`` – ``0fXXXXXXXX`` and ``0dXXXXXXXXXXXXXXXX`` bit-pattern floats.
* ``FLT`` – a decimal floating-point literal (``9.0`` in ``.version 9.0``, ``1.5e3``).
* ``STR`` – a double-quoted string (``.pragma "nounroll"``, ``.file 1 "a.cu"``).
* ``PUNCT`` – one of ``{ } ( ) [ ] , ; : + - @ ! < > | =``.

Comments (``//`` to end of line, ``/* ... */``) and white space are dropped; every token
keeps its offset, which :class:`Source` turns into ``file:line:col`` when needed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

from golden.errors import PTXError
from golden.ptx.ir import SourceLoc

WORD, DIR, INT, F32, F64, FLT, STR, PUNCT, EOF = (
    "WORD", "DIR", "INT", "F32", "F64", "FLT", "STR", "PUNCT", "EOF")


class Token(NamedTuple):
    """One lexical token: its class (``WORD``, ``INT``...), its exact text and its
    character offset in the source (see :meth:`Source.line_col`)."""

    kind: str
    text: str
    pos: int


class Source:
    """PTX text plus the offsets of its line starts, to turn offsets into 1-based
    ``(line, column)`` pairs and to fetch a source line for error messages."""

    def __init__(self, text: str, file: str = "<string>"):
        self.text = text
        self.file = file
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.line_starts = starts

    def line_col(self, pos: int) -> tuple[int, int]:
        line = bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def loc(self, pos: int) -> SourceLoc:
        line, col = self.line_col(pos)
        return SourceLoc(self.file, line, col)

    def line_text(self, line: int) -> str:
        if not 0 < line <= len(self.line_starts):
            return ""
        a = self.line_starts[line - 1]
        b = self.text.find("\n", a)
        return self.text[a:] if b < 0 else self.text[a:b]

    def line_end(self, pos: int) -> int:
        """Offset of the newline ending the line that contains ``pos`` (or the text end)."""
        b = self.text.find("\n", pos)
        return len(self.text) if b < 0 else b


# White space and comments are skipped in front of every token. Order matters:
# bit-pattern floats before integers, decimal floats before integers.
_TOKEN_RE = re.compile(r"""
    (?:[ \t\r\n\f\v]+|//[^\n]*|/\*.*?\*/)*
    (?:
      (?P<WORD>[A-Za-z_$%][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+)*)
    | (?P<PUNCT>[{}()\[\],;:+\-@!<>|=])
    | (?P<DIR>\.[A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+)*)
    | (?P<F32>0[fF][0-9a-fA-F]{8}(?![0-9a-zA-Z_$]))
    | (?P<F64>0[dD][0-9a-fA-F]{16}(?![0-9a-zA-Z_$]))
    | (?P<FLT>[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)
    | (?P<INT>(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uU]?(?![0-9a-zA-Z_$.]))
    | (?P<STR>"(?:[^"\\\n]|\\.)*")
    | (?P<EOF>\Z)
    )
""", re.VERBOSE | re.DOTALL)


def tokenize(src: Source) -> list[Token]:
    """Split the PTX text of ``src`` into tokens; the list always ends with one ``EOF``.

    Raises :class:`PTXError` (with ``file:line:col``) on a character that cannot start
    any PTX token or on an unterminated ``/*`` comment or string.
    """
    text = src.text
    tokens: list[Token] = []
    append = tokens.append
    new = tuple.__new__
    match = _TOKEN_RE.match
    pos = 0
    while True:
        m = match(text, pos)
        if m is None:
            break
        kind = m.lastgroup
        start = m.start(kind)
        append(new(Token, (kind, m.group(kind), start)))
        if kind == EOF:
            return tokens
        pos = m.end()
    # find where the junk starts (after skippable white space and comments)
    skip = re.compile(r"(?:[ \t\r\n\f\v]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
    bad = skip.match(text, pos).end()
    line, col = src.line_col(bad)
    if text.startswith("/*", bad):
        msg = "unterminated /* comment"
    elif text[bad] == '"':
        msg = "unterminated string literal"
    else:
        msg = f"unexpected character {text[bad]!r}"
    raise PTXError(msg, SourceLoc(src.file, line, col), src.line_text(line),
                   "PTX identifiers, %registers, .directives, numbers, "
                   "strings and the punctuation { } ( ) [ ] , ; : + - @ ! < > | =")
