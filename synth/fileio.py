"""Atomic file output for build products: a reader never sees a half-written file.

The one implementation is :func:`golden.fileio.write_atomic` (a temporary name unique to
each write, then a rename); synth re-exports it under its own module name.
"""

from __future__ import annotations

from golden.fileio import write_atomic

__all__ = ["write_atomic"]
