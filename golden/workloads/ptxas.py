"""Running ``ptxas -v`` on a PTX file and reading its per-kernel figures.

The mechanics under ``make registers`` (:mod:`golden.report.registers`, which decides
which kernels get a committed ``<stem>.ptxas.yaml`` from the occupancy the reports run):
find ptxas, run it for the committed PTX's target (``sm_75``: CUDA 13's oldest target,
the one ``nvcc -ptx -arch=sm_75`` writes for), and parse its ``-v`` report into
:class:`golden.timing.ptxas_file.PtxasKernel` records.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from golden.errors import SimtlabError
from golden.timing.ptxas_file import PtxasKernel
from golden.workloads.cuda_tools import find_ptxas

#: the GPU target ptxas compiles for (the committed PTX's target; see golden.report.registers)
ARCH = "sm_75"

NO_PTXAS_MESSAGE = ("ptxas was not found (looked at $PTXAS, PATH and beside nvcc); the "
                    "committed *.ptxas.yaml files are used as they are. Install the CUDA "
                    "toolkit (or `pip install nvidia-cuda-nvcc`) to regenerate them.")


# ------------------------------------------------------------------------ running ptxas

def require_ptxas() -> str:
    p = find_ptxas()
    if p is None:
        raise SimtlabError(NO_PTXAS_MESSAGE)
    return p


def ptxas_version(ptxas: str) -> str:
    """The release line of ``ptxas --version``, e.g. ``Cuda compilation tools, release
    13.0, V13.0.88``."""
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("Cuda compilation tools"):
            return ln
    return lines[-1] if lines else "unknown"


def run_ptxas(ptx: Path, ptxas: str, arch: str = ARCH) -> str:
    """The ``-v`` report of ``ptxas -v -arch=<arch> <ptx>`` (output discarded)."""
    cmd = [ptxas, "-v", f"-arch={arch}", "-o", os.devnull, str(ptx)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SimtlabError(f"ptxas failed on {ptx} (exit {done.returncode}): "
                           f"{' '.join(cmd)}\n{done.stderr.strip()}")
    return done.stdout + done.stderr


_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers?")
_BARRIERS = re.compile(r"used (\d+) barriers?")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM0 = re.compile(r"(\d+) bytes cmem\[0\]")


def parse_ptxas_output(text: str) -> dict[str, PtxasKernel]:
    """Per ``.entry`` figures of a ``ptxas -v`` report (``{kernel: PtxasKernel}``, in the
    order ptxas compiled them). Device functions' own property lines are skipped. A report
    that names an entry without its ``Used N registers`` line is an error."""
    out: dict[str, PtxasKernel] = {}
    entry = None          # the entry being compiled
    props_of = None       # whose "Function properties" the next frame line belongs to
    frames: dict[str, tuple[int, int, int]] = {}
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            if entry is not None and entry not in out:
                raise SimtlabError(f"ptxas report: entry '{entry}' has no 'Used N registers' line")
            entry, props_of = m.group(1), None
            continue
        m = _PROPS.search(line)
        if m:
            props_of = m.group(1)
            continue
        m = _FRAME.search(line)
        if m and props_of is not None:
            frames[props_of] = tuple(int(g) for g in m.groups())
            continue
        m = _USED.search(line)
        if m and entry is not None:
            stack, st, ld = frames.get(entry, (0, 0, 0))
            b, sm, cm = _BARRIERS.search(line), _SMEM.search(line), _CMEM0.search(line)
            out[entry] = PtxasKernel(
                registers=int(m.group(1)), barriers=int(b.group(1)) if b else 0,
                shared_bytes=int(sm.group(1)) if sm else 0,
                const_bytes=int(cm.group(1)) if cm else 0,
                stack_frame=stack, spill_stores=st, spill_loads=ld)
    if entry is not None and entry not in out:
        raise SimtlabError(f"ptxas report: entry '{entry}' has no 'Used N registers' line")
    return out
