"""Command-line plumbing shared by ``synth.export`` and ``synth.area``."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from golden.errors import SimtlabError

from .targets import DEFAULT_TARGETS


def make_parser(prog: str, description: str, default_out: str) -> argparse.ArgumentParser:
    """Parser with the common options ``--out``, ``--only`` and ``--targets``."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", default=default_out,
                        help=f"output folder (default: {default_out})")
    parser.add_argument("--only", nargs="+", metavar="NAME",
                        help="process only these targets (names from the targets file)")
    parser.add_argument("--targets", default=str(DEFAULT_TARGETS), metavar="FILE",
                        help="targets file (default: synth/targets.yaml)")
    parser.add_argument("--allow-large", action="store_true",
                        help="elaborate targets above the size limits of synth/size_limits.py "
                             "(any dimension > 4096, or their product > 2^21)")
    return parser


def run_cli(parser: argparse.ArgumentParser, job: Callable[[argparse.Namespace], None],
            argv: list[str] | None) -> int:
    """Parse ``argv``, run ``job``; a simtlab error becomes one ``error:`` message and exit code 1."""
    args = parser.parse_args(argv)
    try:
        job(args)
    except SimtlabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
