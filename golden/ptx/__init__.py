"""PTX front end: nvcc's PTX text -> IR with CFG and immediate post-dominators.

``parse_ptx(text, file)`` and ``load_ptx(path)`` return a :class:`~golden.ptx.ir.Module`
whose functions already carry basic blocks, CFG edges and ``ipdom`` (reconvergence PCs).
Malformed or unsupported PTX raises :class:`golden.errors.PTXError`.
"""

from __future__ import annotations

from pathlib import Path

from golden.errors import PTXError
from golden.ptx.ir import Module
from golden.ptx.parser import SUPPORTED_OPCODES, parse_ptx, refuse_cuda_source

__all__ = ["parse_ptx", "load_ptx", "SUPPORTED_OPCODES"]


def load_ptx(path: str | Path) -> Module:
    """Read and parse the PTX file at ``path`` (errors name this path)."""
    p = Path(path)
    refuse_cuda_source(None, str(p))
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise PTXError(f"cannot read PTX file {p}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise PTXError(f"PTX file {p} is not UTF-8 text: {e}") from e
    return parse_ptx(text, file=str(p))
