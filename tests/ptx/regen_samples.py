"""Regenerate the committed PTX of tests/ptx/samples with nvcc (CUDA 13, sm_75).

Every ``samples/*.cu`` gives ``samples/<name>.ptx`` (``nvcc -ptx -arch=sm_75``); the
debug variants under ``samples/debug/`` exercise ``.loc``/``.file``/``.section`` and
``-rdc`` linkage. Run: ``.venv/bin/python tests/ptx/regen_samples.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "samples"
#: (source, output under samples/debug/, extra nvcc flags)
DEBUG_VARIANTS = [
    ("divergence.cu", "divergence_G.ptx", ["-G"]),
    ("device_func.cu", "device_func_lineinfo_rdc.ptx", ["-lineinfo", "-rdc=true"]),
]


def nvcc(src: Path, out: Path, flags: list[str]) -> None:
    cmd = ["nvcc", "-ptx", "-arch=sm_75", *flags, "-o", str(out), src.name]
    print(" ".join(cmd))
    subprocess.run(cmd, check=True, cwd=src.parent)


def main() -> int:
    if shutil.which("nvcc") is None:
        print("nvcc not found (pip install nvidia-cuda-nvcc, or install the CUDA toolkit)")
        return 1
    for cu in sorted(SAMPLES.glob("*.cu")):
        nvcc(cu, cu.with_suffix(".ptx"), [])
    (SAMPLES / "debug").mkdir(exist_ok=True)
    for src, out, flags in DEBUG_VARIANTS:
        nvcc(SAMPLES / src, SAMPLES / "debug" / out, flags)
    return 0


if __name__ == "__main__":
    sys.exit(main())
