"""DARSIE's redundancy lattice and launch-time promotion rule (DARSIE §4.2).

The compiler marks every instruction with one of three classes, stored in two bits of
the PTX virtual ISA:

* ``DR`` - *definitely redundant*: the value is identical in every warp of the thread
  block (TB) whatever the TB shape (uniform redundancy: TB ids, TB dimensions,
  constants, kernel parameters, the shared-memory base).
* ``CR`` - *conditionally redundant*: identical in every warp only for some TB shapes
  (affine and unstructured redundancy rooted at ``%tid.x``).
* ``V`` - a true vector.

When several classes reach one operand the *weakest* wins: ``V < CR < DR`` (the meet is
``min``). At kernel launch, CR becomes DR when the TB is multi-dimensional and its
x-dimension is a power of two no larger than the warp size (every warp then holds the
same ``%tid.x`` vector); otherwise CR becomes V. After that decision one bit per
instruction (TB-redundant or not) is left.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from golden.errors import ConfigError


class Redundancy(IntEnum):
    """A compiler redundancy class; the integer order is the lattice order ``V < CR < DR``."""

    V = 0
    CR = 1
    DR = 2

    def meet(self, other: "Redundancy") -> "Redundancy":
        """The weaker of the two classes ("weakest definition wins")."""
        return self if self <= other else other

    def __str__(self) -> str:
        return self.name


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


@dataclass(frozen=True)
class PromotionDecision:
    """Outcome of the launch-time check for one TB shape.

    ``promote`` is True when CR instructions become DR (else they become V); ``reason``
    says which condition decided it, for listings and reports.
    """

    block: tuple[int, int, int]
    warp_size: int
    promote: bool
    reason: str

    def resolve(self, cls: Redundancy) -> Redundancy:
        """The one-bit launch-time class of a static class: DR or V."""
        if cls is Redundancy.CR:
            return Redundancy.DR if self.promote else Redundancy.V
        return cls


def promotion(block, warp_size: int = 32, cr_tid_y: bool = False) -> PromotionDecision:
    """DARSIE's launch-time test (§4.2): CR -> DR iff the TB is 2D (or 3D), its x-dimension
    is a power of two and ``x <= warp_size``; otherwise CR -> V.

    With ``cr_tid_y`` (the paper's remark that ``%tid.y`` is also CR in 3D TBs; off in the
    paper's own analysis) ``%tid.y`` vectors must repeat as well, which additionally needs
    ``x * y`` to be a power of two no larger than the warp size.
    """
    dims = tuple(int(d) for d in block) + (1,) * (3 - len(tuple(block)))
    if len(dims) != 3 or any(d < 1 for d in dims):
        raise ConfigError(f"TB dimensions must be 1-3 positive integers, got {block!r}")
    if not _is_pow2(warp_size):
        raise ConfigError(f"warp size must be a power of two, got {warp_size}")
    bx, by, bz = dims
    if by == 1 and bz == 1:
        return PromotionDecision(dims, warp_size, False,
                                 "1D TB: tid.x differs between warps, CR -> V")
    if not _is_pow2(bx):
        return PromotionDecision(dims, warp_size, False,
                                 f"x-dimension {bx} is not a power of two, CR -> V")
    if bx > warp_size:
        return PromotionDecision(dims, warp_size, False,
                                 f"x-dimension {bx} exceeds the warp size {warp_size}, CR -> V")
    if cr_tid_y and not (_is_pow2(bx * by) and bx * by <= warp_size):
        return PromotionDecision(dims, warp_size, False,
                                 f"tid.y is CR but x*y = {bx * by} is not a power of two "
                                 f"<= {warp_size}, CR -> V")
    nd = 3 if bz > 1 else 2
    return PromotionDecision(dims, warp_size, True,
                             f"{nd}D TB, x = {bx} is a power of two <= {warp_size}: CR -> DR")
