"""Error type of the synthesis flow (export and Yosys area estimation)."""

from __future__ import annotations

from golden.errors import SimtlabError


class SynthError(SimtlabError):
    """A synthesis target could not be imported, elaborated, exported or synthesised.

    The message always names the target and its component class; for a Yosys failure it
    also carries the tail of the Yosys log.
    """
