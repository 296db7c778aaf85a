"""Project exception types. User errors are reported with these, never with bare asserts."""

from __future__ import annotations


class SimtlabError(Exception):
    """Base class of every error simtlab reports to a user."""


class PTXError(SimtlabError):
    """Malformed or unsupported PTX.

    The message names ``file:line:col``, the offending text and what is supported.
    """

    def __init__(self, message: str, loc=None, text: str | None = None, supported: str | None = None):
        self.loc = loc
        self.text = text
        self.supported = supported
        parts = []
        if loc is not None:
            parts.append(f"{loc}: ")
        parts.append(message)
        if text:
            parts.append(f"\n    {text.strip()}")
        if supported:
            parts.append(f"\n  supported: {supported}")
        super().__init__("".join(parts))


class LaunchError(SimtlabError):
    """Bad kernel launch: unknown kernel, argument count/type mismatch, bad grid/block."""


class KernelFault(SimtlabError):
    """A kernel did something illegal at run time (out-of-bounds access, misaligned access...).

    Carries kernel, pc, PTX line, warp, lane, address and the nearest allocation.
    """

    def __init__(self, message: str, *, kernel: str | None = None, pc: int | None = None,
                 loc=None, warp=None, lane=None, address=None, nearest: str | None = None,
                 lanes: str | None = None):
        self.message = message
        self.kernel, self.pc, self.loc = kernel, pc, loc
        self.warp, self.lane, self.address, self.nearest = warp, lane, address, nearest
        self.lanes = lanes
        where = []
        if kernel is not None:
            where.append(f"kernel {kernel}")
        if pc is not None:
            where.append(f"pc 0x{pc:x}")
        if loc is not None:
            where.append(f"PTX {loc}")
        if warp is not None:
            where.append(f"warp {warp}")
        if lanes is not None:
            where.append(("lanes " if "," in lanes or "-" in lanes else "lane ") + lanes)
        elif lane is not None:
            where.append(f"lane {lane}")
        if address is not None:
            where.append(f"address 0x{address:x}")
        msg = message + (" (" + ", ".join(where) + ")" if where else "")
        if nearest:
            msg += f"; nearest allocation: {nearest}"
        super().__init__(msg)


class DeadlockError(SimtlabError):
    """No warp can ever make progress; the message says which warps wait on what."""


class ConfigError(SimtlabError):
    """Malformed configuration (YAML): the message names the key path."""
