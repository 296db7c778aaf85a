"""SM set-dueling: a few SMs run fixed policies, the rest follow the better one.

Used by WarpMan's contention control (dissertation ch. 3 §3.3.6(a): one SM always
allocates at warp level, one always at TB level, the others follow whichever of the two
has the higher IPC) and by the coarse-grained L1 (ch. 5 §5.1: one SM with 128 B blocks,
one with coarse blocks, the others follow).

:class:`SMDuel` stores, per launch, the warp instructions each of its two *leader* SMs
issued. Both leaders start with the launch, so comparing their instruction counts is
comparing their IPC over the same cycles. A follower uses policy ``"a"`` while leader A
has issued more than leader B, ``"b"`` otherwise (ties, including the start of a launch
before either leader issued anything, go to ``tie``). Deterministic: no randomness, no
sampling epochs. Simplification: the chapters do not say over which interval the IPCs
are compared; this compares them from the start of the launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from golden.errors import ConfigError


@dataclass
class SMDuel:
    """Set-dueling between policy ``"a"`` (run always by SM ``leader_a``) and policy ``"b"``
    (SM ``leader_b``); every other SM follows the leader with the higher IPC so far."""

    leader_a: int = 0
    leader_b: int = 1
    tie: str = "b"
    #: warp instructions issued by each leader in the current launch
    issued: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.leader_a == self.leader_b:
            raise ConfigError(f"set-dueling: the two leader SMs must differ "
                              f"(both are SM {self.leader_a})")
        if self.tie not in ("a", "b"):
            raise ConfigError(f"set-dueling: tie must be 'a' or 'b', not {self.tie!r}")
        self.reset()

    def reset(self) -> None:
        """Start a new launch: both leaders' counts at zero."""
        self.issued = {self.leader_a: 0, self.leader_b: 0}

    def count(self, sm_id: int, n: int = 1) -> None:
        """SM ``sm_id`` issued ``n`` warp instructions (ignored unless it is a leader)."""
        if sm_id in self.issued:
            self.issued[sm_id] += n

    def winner(self) -> str:
        """The policy followers use now: ``"a"`` or ``"b"``."""
        a, b = self.issued[self.leader_a], self.issued[self.leader_b]
        return "a" if a > b else "b" if b > a else self.tie

    def policy(self, sm_id: int) -> str:
        """The policy SM ``sm_id`` uses now (leaders: their own; followers: the winner)."""
        if sm_id == self.leader_a:
            return "a"
        if sm_id == self.leader_b:
            return "b"
        return self.winner()
