"""Regenerate the committed PTX of every workload kernel with nvcc.

Each ``golden/workloads/kernels/<stem>.cu`` has its PTX committed beside it, produced by
exactly ``nvcc -ptx -arch=sm_75 -o <stem>.ptx <stem>.cu`` run in that folder, so nothing
needs nvcc to run the suite. ``make ptx`` calls ``python -m golden.workloads.build_ptx``.

Options: ``--check`` compiles into a temporary folder and reports committed PTX files that
differ from nvcc's output (ignoring nvcc's leading banner comment, which names the
compiler build) without writing anything; names restrict the run to some stems.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from golden.errors import SimtlabError
from golden.workloads.base import KERNEL_DIR
from golden.workloads.cuda_tools import find_nvcc

#: the exact nvcc options the committed PTX was made with
NVCC_OPTIONS = ("-ptx", "-arch=sm_75")

NO_NVCC_MESSAGE = (
    "nvcc was not found (looked at $NVCC, PATH and the pip package nvidia-cuda-nvcc), so the "
    "PTX cannot be regenerated; the committed golden/workloads/kernels/*.ptx files are used "
    "as they are. To get nvcc: `pip install nvidia-cuda-nvcc` (PyPI, needs a host C++ "
    "compiler such as g++) or install the CUDA toolkit, then rerun `make ptx` "
    "(or set NVCC=/path/to/nvcc).")


def require_nvcc() -> str:
    """Path of nvcc, or a :class:`SimtlabError` saying how to get it."""
    nvcc = find_nvcc()
    if nvcc is None:
        raise SimtlabError(NO_NVCC_MESSAGE)
    return nvcc


def sources(names: list[str] | None = None) -> list[Path]:
    """The kernel sources (``kernels/*.cu``), or those whose stem is in ``names``."""
    found = sorted(KERNEL_DIR.glob("*.cu"))
    if not names:
        return found
    by_stem = {p.stem.lower(): p for p in found}
    missing = [n for n in names if Path(n).stem.lower() not in by_stem]
    if missing:
        raise SimtlabError(f"no kernel source for {', '.join(missing)}; "
                           f"known: {', '.join(sorted(by_stem))}")
    return [by_stem[Path(n).stem.lower()] for n in names]


def compile_ptx(cu: Path, out: Path, nvcc: str | None = None) -> Path:
    """Run ``nvcc -ptx -arch=sm_75 -o <out> <cu>`` in the folder of ``cu``; returns ``out``."""
    nvcc = nvcc or require_nvcc()
    cmd = [nvcc, *NVCC_OPTIONS, "-o", str(out), cu.name]
    done = subprocess.run(cmd, cwd=cu.parent, capture_output=True, text=True)
    if done.returncode != 0:
        raise SimtlabError(f"nvcc failed on {cu} (exit {done.returncode}):\n"
                           f"  {' '.join(cmd)}\n{done.stderr.strip()}")
    return out


def ptx_body(text: str) -> str:
    """PTX text without nvcc's leading banner comment (compiler build id and version)."""
    lines = text.splitlines()
    start = 0
    while start < len(lines) and (lines[start].startswith("//") or not lines[start].strip()):
        start += 1
    return "\n".join(lines[start:]).strip() + "\n"


def stale(names: list[str] | None = None, nvcc: str | None = None) -> list[Path]:
    """Committed PTX files that are missing or differ from what nvcc makes of their .cu."""
    nvcc = nvcc or require_nvcc()
    out_of_date = []
    with tempfile.TemporaryDirectory(prefix="simtlab-ptx-") as tmp:
        for cu in sources(names):
            fresh = compile_ptx(cu, Path(tmp) / f"{cu.stem}.ptx", nvcc)
            committed = cu.with_suffix(".ptx")
            if not committed.is_file() or ptx_body(committed.read_text()) != ptx_body(fresh.read_text()):
                out_of_date.append(committed)
    return out_of_date


def build(names: list[str] | None = None, nvcc: str | None = None) -> list[Path]:
    """Regenerate ``<stem>.ptx`` next to each selected ``<stem>.cu``; returns the PTX paths."""
    nvcc = nvcc or require_nvcc()
    written = []
    for cu in sources(names):
        # relative output name, run in the kernel folder: the exact documented command
        compile_ptx(cu, Path(f"{cu.stem}.ptx"), nvcc)
        written.append(cu.with_suffix(".ptx"))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m golden.workloads.build_ptx",
                                     description="Regenerate kernels/*.ptx with nvcc -ptx -arch=sm_75.")
    parser.add_argument("names", nargs="*", help="kernel stems (default: every kernels/*.cu)")
    parser.add_argument("--check", action="store_true",
                        help="only report PTX files that are out of date; write nothing")
    args = parser.parse_args(argv)
    try:
        if args.check:
            out_of_date = stale(args.names)
            for p in out_of_date:
                print(f"out of date: {p}")
            print(f"{len(out_of_date)} PTX file(s) out of date")
            return 1 if out_of_date else 0
        written = build(args.names)
    except SimtlabError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for p in written:
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
