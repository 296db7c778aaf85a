"""CUDA source lines of PTX instructions, for the per-PC profile (issue 72).

The committed PTX (``golden/workloads/kernels/*.ptx``) is made without ``-lineinfo``
(``golden.workloads.build_ptx.NVCC_OPTIONS``), so it holds no ``.loc`` / ``.file``
directives, and it stays that way (``make ptx`` checks the committed files against exactly
those options). For a profile, :func:`source_lines` compiles the kernel's ``.cu`` once more
with the same options plus ``-lineinfo`` into ``build/lineinfo/`` (cached by the hash of
both files) and maps every committed PTX line to the ``.loc`` in force at the same line of
that PTX. The map is used only where the two PTX texts are identical once the ``.loc`` /
``.file`` lines and nvcc's debug sections are removed (a line-by-line alignment checks it):
an instruction outside an identical stretch gets no source line.

``.loc`` of an inlined function names the inlined function's line and the call site
(``inlined_at``); the profile shows the first line of that chain that lies in the
kernel's own sources: its ``.cu`` and the headers beside it (an algorithm shared by two
kernels, such as ``mm_tiled.cuh``), never a CUDA toolkit header, whose line says little
about the kernel.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(.*)$")
_INLINED = re.compile(r"inlined_at\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
_FUNC = re.compile(r"^\s*(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b")


@dataclass
class SourceMap:
    """PTX line (1-based, of the committed file) -> ``(cuda_file, line)``; ``note`` says
    why there is no map (or what part is missing); ``text`` holds the source files' lines."""

    lines: dict = field(default_factory=dict)
    note: str = ""
    text: dict = field(default_factory=dict)

    def at(self, ptx_line: int):
        """``(file name, line, source text)`` of a committed PTX line, or None."""
        loc = self.lines.get(ptx_line)
        if loc is None:
            return None
        f, ln = loc
        src = self.text.get(f, [])
        return Path(f).name, ln, src[ln - 1].strip() if 0 < ln <= len(src) else ""


def _lineinfo_ptx(cu: Path, ptx: Path, cache: Path) -> Path:
    """The ``-lineinfo`` PTX of ``cu`` (compiled once, cached under ``cache``)."""
    from golden.workloads.build_ptx import NVCC_OPTIONS, require_nvcc
    key = hashlib.sha256(cu.read_bytes() + b"\0" + ptx.read_bytes()).hexdigest()[:16]
    out = cache / f"{cu.stem}-{key}.ptx"
    if out.is_file():
        return out
    nvcc = require_nvcc()
    cache.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.ptx")
    cmd = [nvcc, *NVCC_OPTIONS, "-lineinfo", "-o", str(tmp.resolve()), cu.name]
    done = subprocess.run(cmd, cwd=cu.parent, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nvcc -lineinfo failed on {cu.name}: {done.stderr.strip()[:200]}")
    tmp.replace(out)
    return out


def _strip(text: str):
    """Lines of a -lineinfo PTX without .loc/.file lines and debug sections, each with the
    ``.loc`` chain in force there, and the ``.file`` table."""
    files: dict[int, str] = {}
    kept: list[str] = []
    locs: list = []
    cur = None
    in_section = False
    for raw in text.splitlines():
        s = raw.strip()
        if in_section:
            if s == "}":
                in_section = False
            continue
        if s.startswith(".section"):
            in_section = True
            continue
        m = _FILE.match(raw)
        if m:
            files[int(m.group(1))] = m.group(2)
            continue
        m = _LOC.match(raw)
        if m:
            chain = [(int(m.group(1)), int(m.group(2)))]
            chain += [(int(a), int(b)) for a, b in _INLINED.findall(m.group(3))]
            cur = chain
            continue
        if _FUNC.match(raw):
            cur = None
        kept.append(s)
        locs.append(cur)
    return kept, locs, files


def _beside(f: Path, folder: Path) -> bool:
    """Whether source file ``f`` (as ``.file`` names it) lies in the kernel's folder."""
    try:
        return f.is_absolute() and f.resolve().parent == folder.resolve()
    except OSError:
        return False


def source_lines(ptx: Path, cu: Path | None, cache: Path) -> SourceMap:
    """Map the committed ``ptx`` to lines of ``cu`` (see the module docstring)."""
    if cu is None or not cu.is_file():
        return SourceMap(note=f"no CUDA source beside {ptx.name}")
    try:
        info = _lineinfo_ptx(cu, ptx, cache).read_text()
    except Exception as e:   # no nvcc, or nvcc failed: profile without source lines
        return SourceMap(note=f"no source lines ({str(e).splitlines()[0][:160]})")
    kept, locs, files = _strip(info)
    committed = [ln.strip() for ln in ptx.read_text().splitlines()]
    own = {i for i, f in files.items()
           if Path(f).name == cu.name or _beside(Path(f), cu.parent)}
    sm = difflib.SequenceMatcher(None, committed, kept, autojunk=False)
    out = SourceMap()
    unmatched = 0
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "equal":
            unmatched += sum(1 for ln in committed[i1:i2] if ln and not ln.startswith("//"))
            continue
        for k in range(i2 - i1):
            chain = locs[j1 + k]
            if not chain:
                continue
            pick = next(((f, ln) for f, ln in chain if f in own and ln > 0), None)
            if pick is None:
                pick = next(((f, ln) for f, ln in chain if ln > 0), None)
            if pick is not None and pick[0] in files:
                out.lines[i1 + k + 1] = (files[pick[0]], pick[1])
    for f in {f for f, _ in out.lines.values()}:
        try:
            out.text[f] = Path(f).read_text().splitlines()
        except OSError:
            out.text[f] = []
    if unmatched:
        out.note = (f"{unmatched} line(s) of {ptx.name} differ from its -lineinfo build: "
                    "those have no source line")
    return out
