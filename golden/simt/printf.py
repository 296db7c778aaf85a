"""Device-side ``printf``: nvcc lowers it to ``vprintf(format, argument_buffer)``.

The argument buffer holds each argument at its natural alignment: 4 bytes for
``int``/``unsigned``/``char`` (promoted), 8 bytes for ``double`` (floats are promoted),
``long``/``long long``, pointers and ``%s`` string pointers.
"""

from __future__ import annotations

import re
import struct
from typing import Callable

_CONV = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcspn%])")


def _cstring(read: Callable[[int, int], bytes], addr: int, limit: int = 4096) -> str:
    out = bytearray()
    while len(out) < limit:
        chunk = read(addr + len(out), 1)
        if chunk == b"\0":
            break
        out += chunk
    return out.decode("utf-8", errors="replace")


def format_printf(read: Callable[[int, int], bytes], fmt_ptr: int, buf_ptr: int) -> str:
    """Format one thread's printf. ``read(addr, n)`` returns n bytes at a generic address."""
    fmt = _cstring(read, fmt_ptr)
    off = 0
    out = []
    pos = 0
    for m in _CONV.finditer(fmt):
        out.append(fmt[pos: m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        size = 8 if conv in "eEfFgGaAsp" or length in ("l", "ll", "z", "j", "t") else 4
        off = -(-off // size) * size
        raw = read(buf_ptr + off, size)
        off += size
        spec = "%" + (flags or "") + (width or "") + ("." + prec if prec is not None else "")
        if conv in "eEfFgG":
            out.append((spec + conv) % struct.unpack("<d", raw)[0])
        elif conv in "aA":
            out.append(struct.unpack("<d", raw)[0].hex())
        elif conv == "s":
            out.append((spec + "s") % _cstring(read, int.from_bytes(raw, "little")))
        elif conv == "p":
            out.append("0x%x" % int.from_bytes(raw, "little"))
        elif conv == "c":
            out.append((spec + "c") % chr(raw[0]))
        elif conv in "di":
            out.append((spec + "d") % int.from_bytes(raw, "little", signed=True))
        elif conv == "n":
            continue
        else:  # o u x X: unsigned
            out.append((spec + {"u": "d"}.get(conv, conv)) % int.from_bytes(raw, "little"))
    out.append(fmt[pos:])
    return "".join(out)
