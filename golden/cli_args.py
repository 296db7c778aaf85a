"""Argument types shared by the command-line tools (argparse ``type=`` callables that turn
bad values into argparse's usage error instead of a traceback later)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["SIZES", "add_timing_run_arguments", "seed", "jobs", "output_file", "output_dir",
           "pow2_list", "positive_count"]

#: input sizes every workload defines (golden/workloads/defs): ``small`` for tests and the
#: main job, ``default`` larger, ``paper`` at least two full waves of TBs on every GPU the
#: workload is reported on (``simtlab list --occupancy CONFIG``); ``published`` the input the
#: workload's paper names, where it names one, else ``paper`` (golden/workloads/published.yaml)
SIZES = ("small", "default", "paper", "published")


def seed(text: str) -> int:
    """A random seed: a non-negative integer (numpy's generators refuse negative ones)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be >= 0, not {value}")
    return value


def jobs(text: str) -> int:
    """A worker-process count (``-j/--jobs``): a positive integer, the same rule in every
    command (no silent clamping of 0 or negatives)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"jobs must be a positive integer, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"jobs must be a positive integer (>= 1), not {value}")
    return value


def positive_count(text: str) -> int:
    """A positive integer limit (``--max-cycles``, ``--max-instructions``); underscores and
    a power-of-ten suffix are accepted: ``50_000_000``, ``5e7``."""
    t = text.strip().replace("_", "")
    try:
        value = int(t)
    except ValueError:
        try:
            f = float(t)
        except ValueError:
            f = None
        if f is None or not f.is_integer():
            raise argparse.ArgumentTypeError(f"expected a positive integer, not {text!r}") from None
        value = int(f)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer (>= 1), not {text!r}")
    return value


def _creatable_dir(d: Path, what: str) -> None:
    """``d`` is a directory, or can be made one: its nearest existing ancestor is a writable
    directory (the writers create missing directories)."""
    probe = d
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise argparse.ArgumentTypeError(f"{what}: {probe} is a file, not a directory")
    if probe.exists() and not os.access(probe, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{what}: directory {probe} is not writable")


def output_file(text: str) -> str:
    """A file to write (``--json FILE``), checked before any simulation runs: not a
    directory, and its directory exists or can be created."""
    if not text:
        raise argparse.ArgumentTypeError("output file name is empty")
    p = Path(text)
    if p.is_dir() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name such as "
                                         f"{p / 'out.json'}")
    _creatable_dir(p.parent, f"cannot write {text}")
    return text


def output_dir(text: str) -> str:
    """A directory to write results into (``--out DIR``): a directory, or one that can be
    created, checked before any simulation runs."""
    if not text:
        raise argparse.ArgumentTypeError("output directory name is empty")
    _creatable_dir(Path(text), f"cannot write into {text}")
    return text


def pow2_list(text: str) -> tuple[int, ...]:
    """Increasing powers of two (``--windows``, ``--neighbourhoods``): a comma-separated
    list whose items are a power of two or a range ``A..B`` of the powers of two from A to
    B, e.g. ``1..1024`` or ``128,256,4096``."""
    out: list[int] = []
    for item in text.split(","):
        item = item.strip()
        lo_s, sep, hi_s = item.partition("..")
        try:
            lo = int(lo_s)
            hi = int(hi_s) if sep else lo
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not a power of two or a range A..B of them") from None
        for v in (lo, hi):
            if v < 1 or v & (v - 1):
                raise argparse.ArgumentTypeError(f"{v} is not a power of two")
        if hi < lo:
            raise argparse.ArgumentTypeError(f"empty range {item!r} ({hi} < {lo})")
        v = lo
        while v <= hi:
            out.append(v)
            v *= 2
    if out != sorted(set(out)):
        raise argparse.ArgumentTypeError(f"{text!r}: values must increase without repeats")
    return tuple(out)


def add_timing_run_arguments(p) -> None:
    """The arguments that name one timing run on a subcommand parser ``p`` (``simtlab
    profile``, ``simtlab timeline``): the workload, ``--mechanism`` (repeatable),
    ``--config`` (default pascal), ``--size`` (default small) and ``--seed``."""
    p.add_argument("workload")
    p.add_argument("--mechanism", action="append", metavar="NAME",
                   help="attach a registered mechanism (repeatable), e.g. darsie")
    p.add_argument("--config", default="pascal", help="GPU configuration (default pascal)")
    p.add_argument("--size", default="small", choices=SIZES)
    p.add_argument("--seed", type=seed, default=0)
