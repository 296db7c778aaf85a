"""Finding the CUDA toolkit's programs (nvcc, ptxas) on this machine.

Only the maintenance commands need them (``make ptx`` rebuilds the committed PTX with
nvcc, ``make registers`` runs ptxas on it); the suite runs without either. A tool is looked
for at the environment variable that names it, then on ``PATH``, then in a pip-installed
CUDA package (``nvidia-cuda-nvcc``) of this Python's site-packages.
"""

from __future__ import annotations

import glob
import os
import shutil
import sysconfig
from pathlib import Path


def find_tool(name: str, env_var: str, pip_package: bool = True) -> str | None:
    """Path of the executable ``name``: ``$env_var`` when it names a file, then ``PATH``,
    then (``pip_package``) ``nvidia/**/bin/<name>`` under this Python's site-packages;
    None when there is none."""
    env = os.environ.get(env_var)
    if env and Path(env).is_file():
        return env
    on_path = shutil.which(name)
    if on_path:
        return on_path
    if pip_package:
        purelib = sysconfig.get_paths()["purelib"]
        for candidate in sorted(glob.glob(os.path.join(purelib, "nvidia", "**", "bin", name),
                                          recursive=True)):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def find_nvcc() -> str | None:
    """Path of nvcc: ``$NVCC``, then PATH, then a pip-installed ``nvidia-cuda-nvcc``."""
    return find_tool("nvcc", "NVCC")


def find_ptxas() -> str | None:
    """Path of ptxas: ``$PTXAS``, PATH, or the folder of the nvcc that :func:`find_nvcc`
    finds; None if there is none."""
    found = find_tool("ptxas", "PTXAS", pip_package=False)
    if found:
        return found
    nvcc = find_nvcc()
    if nvcc:
        beside = Path(nvcc).with_name("ptxas")
        if os.access(beside, os.X_OK):
            return str(beside)
    return None
