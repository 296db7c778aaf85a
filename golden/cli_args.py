"""Argument types shared by the command-line tools (argparse ``type=`` callables that turn
bad values into argparse's usage error instead of a traceback later)."""

from __future__ import annotations

import argparse

__all__ = ["seed"]


def seed(text: str) -> int:
    """A random seed: a non-negative integer (numpy's generators refuse negative ones)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be an integer, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be >= 0, not {value}")
    return value
