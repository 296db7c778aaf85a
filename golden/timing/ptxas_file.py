"""Registers per thread as ptxas allocates them, read from a file committed beside the PTX.

The timing model's occupancy needs registers per thread. Without help it estimates them
from the PTX (:func:`golden.timing.gpu.ptx_registers_per_thread`). For kernels where
that estimate and ptxas disagree enough to change TBs per SM on a configuration the
workload is reported on (issue 66 item 3, ``docs/registers.md``), the figure ``ptxas -v``
reports is committed beside the PTX as ``<stem>.ptxas.yaml`` and the model reads it from
there, so users without nvcc get the same numbers. This module only *reads* such files;
:mod:`golden.report.registers` runs ptxas and writes them.

A file holds, for every ``.entry`` of ``<stem>.ptx``, what ``ptxas -v`` printed (registers,
barriers, shared/constant bytes, stack frame, spill stores/loads), plus provenance: the
ptxas version and target architecture, and the SHA-256 of the PTX bytes it was made from.
The reader refuses a file whose digest does not match the PTX beside it (the PTX was
regenerated and the register file not), a file it cannot parse and a file without the
kernel asked for: each is a :class:`PtxasFileError` naming the file and the command that
rewrites it. A PTX without such a file (most kernels; a module loaded from a string)
gives None, and the caller falls back to the estimate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from golden.errors import SimtlabError

#: suffix of the register file beside ``<stem>.ptx``
SUFFIX = ".ptxas.yaml"
#: version of the file layout this reader understands
FORMAT = 1
#: per-kernel fields of a file (all non-negative integers)
KERNEL_FIELDS = ("registers", "barriers", "shared_bytes", "const_bytes", "stack_frame",
                 "spill_stores", "spill_loads")
#: the command that rewrites one kernel source's file (``{stem}``: the PTX stem)
REGENERATE = "python -m golden.report.registers {stem}"


class PtxasFileError(SimtlabError):
    """A committed ``<stem>.ptxas.yaml`` that cannot be used (unreadable, malformed, made
    from a different PTX, or without the kernel asked for)."""


@dataclass(frozen=True)
class PtxasKernel:
    """What ``ptxas -v`` reported for one ``.entry``: ``registers`` per thread, named
    ``barriers``, static ``shared_bytes``, ``const_bytes`` (bank 0: parameters),
    ``stack_frame`` bytes per thread and ``spill_stores``/``spill_loads`` bytes."""

    registers: int
    barriers: int = 0
    shared_bytes: int = 0
    const_bytes: int = 0
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0


@dataclass(frozen=True)
class PtxasRecord:
    """One ``<stem>.ptxas.yaml``: the ptxas figures of every kernel of ``<stem>.ptx`` and
    where they came from (``ptxas_version``, ``arch``, ``ptx_sha256`` of the PTX bytes)."""

    path: Path
    ptx: str
    ptx_sha256: str
    arch: str
    ptxas_version: str
    kernels: dict[str, PtxasKernel]

    def kernel(self, name: str) -> PtxasKernel:
        k = self.kernels.get(name)
        if k is None:
            raise PtxasFileError(
                f"{self.path}: no kernel '{name}' (it has {', '.join(sorted(self.kernels))}); "
                f"rewrite it with `{REGENERATE.format(stem=Path(self.ptx).stem)}`")
        return k


def ptxas_file_for(ptx_path: str | Path) -> Path:
    """``<dir>/<stem>.ptxas.yaml`` for ``<dir>/<stem>.ptx``."""
    p = Path(ptx_path)
    return p.with_name(p.stem + SUFFIX)


def ptx_sha256(data: bytes) -> str:
    """SHA-256 (hex) of the PTX bytes a register file was made from."""
    return hashlib.sha256(data).hexdigest()


def _bad(path: Path, why: str) -> PtxasFileError:
    stem = path.name[:-len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem
    return PtxasFileError(f"{path}: {why}; rewrite it with `{REGENERATE.format(stem=stem)}` "
                          f"(needs ptxas) or delete it to use the PTX estimate")


def _count(path: Path, where: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(path, f"{where} must be a non-negative integer, not {value!r}")
    return value


def parse_record(path: Path, raw) -> PtxasRecord:
    """Validate the parsed YAML ``raw`` of the file at ``path`` into a :class:`PtxasRecord`."""
    if not isinstance(raw, dict):
        raise _bad(path, "not a mapping")
    if raw.get("format") != FORMAT:
        raise _bad(path, f"format {raw.get('format')!r} (this reader knows {FORMAT})")
    for key in ("ptx", "ptx_sha256", "arch", "ptxas_version"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise _bad(path, f"'{key}' missing or not a string")
    kernels_raw = raw.get("kernels")
    if not isinstance(kernels_raw, dict) or not kernels_raw:
        raise _bad(path, "'kernels' missing or empty")
    kernels = {}
    for name, fields in kernels_raw.items():
        if not isinstance(fields, dict):
            raise _bad(path, f"kernel '{name}' is not a mapping")
        unknown = set(fields) - set(KERNEL_FIELDS)
        if unknown:
            raise _bad(path, f"kernel '{name}' has unknown fields {sorted(unknown)}")
        if "registers" not in fields:
            raise _bad(path, f"kernel '{name}' has no 'registers'")
        kernels[str(name)] = PtxasKernel(**{f: _count(path, f"{name}.{f}", v)
                                            for f, v in fields.items()})
        if kernels[str(name)].registers < 1:
            raise _bad(path, f"kernel '{name}' has {fields['registers']} registers")
    return PtxasRecord(path, raw["ptx"], raw["ptx_sha256"], raw["arch"], raw["ptxas_version"],
                       kernels)


def read_ptxas_file(path: str | Path, check_ptx: bool = True) -> PtxasRecord:
    """Read and validate ``path``; with ``check_ptx`` also require that the PTX beside it
    (``ptx`` in the file) still has the recorded digest."""
    import yaml
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise _bad(path, f"cannot be read ({e})") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise _bad(path, f"is not valid YAML ({str(e).splitlines()[0]})") from None
    rec = parse_record(path, raw)
    if check_ptx:
        ptx = path.with_name(rec.ptx)
        try:
            digest = ptx_sha256(ptx.read_bytes())
        except OSError as e:
            raise _bad(path, f"its PTX {rec.ptx} cannot be read ({e})") from None
        if digest != rec.ptx_sha256:
            raise _bad(path, f"made from a different {rec.ptx} (recorded sha256 "
                             f"{rec.ptx_sha256[:12]}..., the file beside it has {digest[:12]}...)")
    return rec


class PtxasLookup:
    """Registers per thread of linked programs from the register files beside their PTX.

    Memoises each PTX path's record (or its absence) while the register file and the PTX
    keep their size and modification time; one instance per GPU object (no global state).
    """

    def __init__(self):
        self._memo: dict[str, tuple[tuple, PtxasRecord | None]] = {}

    @staticmethod
    def _stamp(*paths: Path) -> tuple:
        out = []
        for p in paths:
            try:
                st = p.stat()
                out.append((st.st_size, st.st_mtime_ns))
            except OSError:
                out.append(None)
        return tuple(out)

    def record(self, ptx_path: str | Path) -> PtxasRecord | None:
        """The record beside ``ptx_path``, or None when there is no register file."""
        ptx = Path(ptx_path)
        f = ptxas_file_for(ptx)
        stamp = self._stamp(f, ptx)
        hit = self._memo.get(str(ptx))
        if hit is not None and hit[0] == stamp:
            return hit[1]
        rec = read_ptxas_file(f) if stamp[0] is not None else None
        if rec is not None and rec.ptx != ptx.name:
            raise _bad(f, f"names PTX {rec.ptx!r}, but sits beside {ptx.name!r}")
        self._memo[str(ptx)] = (stamp, rec)
        return rec

    def registers(self, program) -> int | None:
        """ptxas's registers per thread of ``program``'s kernel (a linked
        :class:`~golden.simt.program.Program`), or None when its PTX has no register file
        (or was not loaded from a ``.ptx`` file)."""
        src = getattr(program.module, "file", None)
        if not src or not str(src).endswith(".ptx"):
            return None
        rec = self.record(src)
        return None if rec is None else rec.kernel(program.kernel.name).registers
