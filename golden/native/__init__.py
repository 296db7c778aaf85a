"""Compiled timing core from one source (issue 12): Cython pure-Python mode, built out of tree.

The hot modules of the timing model (:data:`HOT_MODULES`) are ordinary Python files. Next
to some of them sits a Cython *augmenting* ``.pxd`` declaring their hot classes as
extension types with typed fields and typed locals; the ``.py`` stays the single source and
runs unchanged as plain Python.

``python -m golden.native build`` (run by ``make setup`` / ``make native``) compiles the
whole group with Cython and gcc into ``build/native/<group hash>/``, never next to the
sources. The *group hash* covers every hot module's ``.py`` and ``.pxd``, the compiler
directives and the Python ABI. At import (``golden/__init__.py`` calls :func:`install`) a
meta-path finder computes the hash of the sources as they are now and serves the compiled
modules only from the directory of exactly that hash. An edited ``.py`` or ``.pxd``
therefore changes the hash, and the whole group silently falls back to plain Python until
the next build: a stale extension can never shadow an edited source. The group is all
compiled or all pure because compiled modules check each other's extension types at
import.

Environment:

* ``SIMTLAB_PURE_PYTHON=1`` -- never load compiled modules (the whole model runs as the
  plain Python files; the test suite passes either way);
* ``SIMTLAB_NATIVE_DIR`` -- where builds live (default: ``build/native`` of the source
  checkout, or ``~/.cache/simtlab/native`` for an installed copy).

``python -m golden.native status`` says which form is active and why.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: modules compiled together (dotted names under the ``golden`` package)
HOT_MODULES: tuple[str, ...] = (
    "golden.timing.fetch",
    "golden.timing.scheduler",
    "golden.timing.scoreboard",
    "golden.timing.pipelines",
    "golden.timing.operand_collector",
    "golden.timing.sm",
    "golden.timing.memory.coalescer",
    "golden.simt.fastpath",
    "golden.simt.engine",
    "golden.timing.memory.hierarchy",
    "golden.timing.memory.l1",
    "golden.timing.memory.l2",
    "golden.timing.memory.dram",
    "golden.timing.memory.cache",
    "golden.timing.memory.interconnect",
    "golden.timing.memory.reservation",
    "golden.mechanisms.darsie.skip",
    "golden.structures.darsie.rename_table_fast",
    "golden.mechanisms.gscalar.regstate",
    "golden.mechanisms.darsie.frontend",
    "golden.mechanisms.darsie.structure_energy",
    "golden.structures.darsie.skip_table_fast",
    "golden.structures.darsie.coalescer",
    "golden.structures.darsie.version_table",
    "golden.structures.darsie.phys_freelist",
    "golden.structures.cam",
    "golden.structures.freelist",
)

#: Cython compiler directives (part of the group hash). ``annotation_typing`` is off: PEP 484
#: annotations in the sources document, they do not type (Cython would reject e.g. a
#: Counter passed where ``dict`` is annotated); the types come from the ``.pxd`` files.
DIRECTIVES = {"language_level": 3, "binding": False, "annotation_typing": False,
              "boundscheck": True, "wraparound": True, "initializedcheck": False,
              "embedsignature": False}

SOURCE_ROOT = Path(__file__).resolve().parents[2]      # the directory holding golden/
EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
PURE_ENV = "SIMTLAB_PURE_PYTHON"
DIR_ENV = "SIMTLAB_NATIVE_DIR"


class NativeBuildError(RuntimeError):
    """The compiled core could not be built (Cython or the C compiler failed)."""


def _source(module: str, root: Path = SOURCE_ROOT) -> tuple[Path, Path]:
    rel = Path(*module.split("."))
    return root / rel.with_suffix(".py"), root / rel.with_suffix(".pxd")


def group_hash(root: Path = SOURCE_ROOT, modules: tuple[str, ...] = HOT_MODULES) -> str:
    """Hash of everything the compiled group is made from: each module's ``.py`` and
    ``.pxd`` (absent = empty), the directives and the ABI suffix (16 hex digits)."""
    h = hashlib.sha256()
    h.update(repr(sorted(DIRECTIVES.items())).encode())
    h.update(EXT_SUFFIX.encode())
    for m in sorted(modules):
        py, pxd = _source(m, root)
        h.update(m.encode() + b"\0")
        h.update(py.read_bytes() if py.is_file() else b"")
        h.update(b"\0pxd\0")
        h.update(pxd.read_bytes() if pxd.is_file() else b"")
        h.update(b"\0")
    return h.hexdigest()[:16]


def native_dir() -> Path:
    """Root directory of the builds (see the module docstring)."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    if (SOURCE_ROOT / "pyproject.toml").is_file():
        return SOURCE_ROOT / "build" / "native"
    return Path.home() / ".cache" / "simtlab" / "native"


def module_path(build: Path, module: str) -> Path:
    """Where the extension of ``module`` lives inside one build directory."""
    return build / Path(*module.split(".")).with_suffix(EXT_SUFFIX)


def _complete(build: Path) -> bool:
    """True when ``build`` holds the extension of every hot module."""
    return all(module_path(build, m).is_file() for m in HOT_MODULES)


@dataclass(frozen=True)
class Status:
    """Which form of the hot modules this process uses, and why."""

    active: bool        # the compiled modules are (or will be) served
    reason: str
    build: Path | None  # the matching build directory, when one exists
    hash: str


def status() -> Status:
    """The compiled core's state for the sources as they are now."""
    h = group_hash()
    root = native_dir()
    build = root / h
    complete = _complete(build)
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return Status(False, f"{PURE_ENV} is set: plain Python", build if complete else None, h)
    if complete:
        return Status(True, f"compiled ({build})", build, h)
    others = root.is_dir() and any(p.is_dir() and not p.name.startswith(".")
                                   for p in root.iterdir())
    why = ("a build exists for other sources (edited since): run `make native`" if others
           else "not built: run `make native`")
    return Status(False, f"plain Python ({why})", None, h)


class _Finder(importlib.abc.MetaPathFinder):
    """Serves the hot modules from one build directory (matching the sources' hash)."""

    def __init__(self, build: Path):
        self.build = build

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in HOT_MODULES:
            return None
        so = str(module_path(self.build, fullname))
        loader = importlib.machinery.ExtensionFileLoader(fullname, so)
        return importlib.util.spec_from_file_location(fullname, so, loader=loader)


def install() -> bool:
    """Put the compiled group in front of the plain modules when a build matches the
    current sources (and ``SIMTLAB_PURE_PYTHON`` is not set); return whether it did."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return True
    try:
        st = status()
    except OSError:
        return False
    if not st.active:
        return False
    sys.meta_path.insert(0, _Finder(st.build))
    return True


def active_modules() -> dict[str, bool]:
    """``module -> loaded from an extension`` for the hot modules imported so far."""
    out = {}
    for m in HOT_MODULES:
        mod = sys.modules.get(m)
        if mod is not None:
            out[m] = str(getattr(mod, "__file__", "")).endswith(EXT_SUFFIX)
    return out


def build(force: bool = False, jobs: int | None = None, quiet: bool = True) -> Path:
    """Compile the group for the current sources into ``native_dir()/<hash>`` (atomically:
    a temporary directory renamed at the end; other builds are removed). Returns the build
    directory; raises :class:`NativeBuildError` with the compiler's message on failure."""
    h = group_hash()
    root = native_dir()
    final = root / h
    if not force and _complete(final):
        return final
    try:
        from Cython.Build import cythonize
        from setuptools import Distribution, Extension
    except ImportError as exc:
        raise NativeBuildError(f"Cython/setuptools missing ({exc}); "
                               "pip install cython setuptools") from None
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    try:
        exts = [Extension(m, [str(_source(m)[0])]) for m in HOT_MODULES]
        exts = cythonize(exts, build_dir=str(work / "c"), compiler_directives=DIRECTIVES,
                         include_path=[str(SOURCE_ROOT)], quiet=quiet, force=True,
                         nthreads=0)
        dist = Distribution({"ext_modules": exts, "script_name": "golden.native",
                             "script_args": ["--quiet", "build_ext", "--build-lib", str(work / "lib"),
                                             "--build-temp", str(work / "obj"),
                                             "--parallel", str(jobs or os.cpu_count() or 1)]})
        dist.parse_command_line()
        dist.run_commands()
        if not _complete(work / "lib"):
            missing = [m for m in HOT_MODULES if not module_path(work / "lib", m).is_file()]
            raise NativeBuildError(f"no extension produced for {', '.join(missing)}")
        # sources unchanged while compiling? (otherwise the build would carry a wrong hash)
        if group_hash() != h:
            raise NativeBuildError("hot-module sources changed during the build; run it again")
        if final.exists():
            shutil.rmtree(final)
        os.replace(work / "lib", final)
    except (SystemExit, Exception) as exc:  # setuptools reports compiler errors as SystemExit
        if isinstance(exc, NativeBuildError):
            raise
        raise NativeBuildError(f"compiling the timing core failed: {exc}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for old in root.iterdir():  # older builds can never match again: drop them
        if old.is_dir() and old.name != h and not old.name.startswith(".build-"):
            shutil.rmtree(old, ignore_errors=True)
    return final
