"""Atomic file output shared by every command that writes results, reports or caches.

A file is written under a temporary name unique to this one write (``tempfile.mkstemp``
in the destination's own folder, so two processes, threads or hosts writing the same path
never share one) and then renamed over the destination. A reader sees the old file or the
whole new one; when two writers race, one complete version wins and neither fails. If
anything goes wrong before the rename, the destination keeps its old content (or stays
absent) and the temporary file is removed.

Temporary files are named ``.<name>.<random>.tmp`` (:data:`TEMP_PREFIX` + the
destination's name), so a tidy-up can recognise the ones a killed writer left behind.
The file gets the permissions an ordinary ``open(path, "w")`` would give (0666 less the
umask), not ``mkstemp``'s owner-only 0600.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from golden.errors import SimtlabError

#: a temporary file of :func:`atomic_path` is ``TEMP_PREFIX + <destination name> + "." +
#: <random> + TEMP_SUFFIX`` in the destination's folder
TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"

__all__ = ["TEMP_PREFIX", "TEMP_SUFFIX", "atomic_path", "is_temp_of", "write_atomic",
           "write_output"]


@contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a fresh temporary path beside ``path`` (the file exists, empty); when the
    block ends without an exception, rename it over ``path``; otherwise remove it.
    For writers that need a file name (``savefig``) rather than text."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{path.name}.", suffix=TEMP_SUFFIX,
                               dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())   # mkstemp's 0600 would hide results from others
    except OSError:
        pass
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    """This process's file-creation mask (read without changing it: /proc on Linux;
    elsewhere the usual 022)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def write_atomic(path: str | os.PathLike, text: str | bytes) -> Path:
    """Write ``text`` (str as UTF-8, or bytes) to ``path`` atomically; create the parent
    folder. Raises ``OSError`` when the folder cannot be written (callers that stand for a
    user command use :func:`write_output`)."""
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
    return path


def write_output(path: str | os.PathLike, text: str | bytes) -> Path:
    """:func:`write_atomic` for a command's output file: a failure is a one-line
    :class:`SimtlabError` naming the path, never a traceback."""
    try:
        return write_atomic(path, text)
    except OSError as exc:
        raise SimtlabError(f"cannot write {path}: {exc.strerror or exc}") from None


def is_temp_of(p: Path, name_ok) -> bool:
    """True when ``p`` is a temporary file :func:`atomic_path` made for a destination
    whose name satisfies ``name_ok(name)`` (a leftover of a writer that was killed)."""
    n = p.name
    if not (n.startswith(TEMP_PREFIX) and n.endswith(TEMP_SUFFIX)):
        return False
    dest, dot, rand = n[len(TEMP_PREFIX):-len(TEMP_SUFFIX)].rpartition(".")
    return bool(dot and rand and name_ok(dest))
