"""SM set-dueling: a few SMs run fixed policies, the rest follow the better one.

Used by WarpMan's contention control (dissertation ch. 3 §3.3.6(a)) and by the
coarse-grained L1 (ch. 5 §5.1 step 5).

What the dissertation fixes, and what it leaves open
----------------------------------------------------
WarpMan (§3.3): "With SM dueling, one SM is always equipped with resource allocation at
the warp level while another SM always equipped with resource allocation at the TB
level. At the run time, we compare the IPC of these two competing SMs, and decide
whether to turn on/off warp-level resource management", citing [34] for the
"dynamic SM-dueling approach". The coarse L1 (§5.1): "1 SM to always follow the 128
bytes L1 cache block size (the baseline), and another SM always follows the coarse2 or
coarse4 scheme ..., and the other 13 SMs follows the SM that has higher IPC".

Fixed by the text: two leader SMs with fixed policies; the others follow; the criterion
is the leaders' IPC, compared "at the run time". Not fixed: over which interval the IPC
is measured, how often the decision is taken, and whether it has hysteresis.

The chapter calls the technique set-dueling and cites it; set-dueling as published
(Qureshi et al., adaptive insertion, ISCA 2007) keeps one **saturating policy-selector
counter** (PSEL, 10 bits): an event in a leader set of policy A moves it one way, the
same event in a leader set of policy B the other way, and the followers use the policy
the counter's upper half names. The counter is updated continuously and never needs an
epoch; its saturation bounds how much history it keeps, so after a phase change the
followers switch once the other leader has gained ``2**(bits-1)`` events net.

Rules (``rule``):

* ``"psel"`` (default, the cited technique read with IPC as the criterion): every warp
  instruction leader A issues adds one to a signed saturating counter of ``psel_bits``
  bits, every one leader B issues subtracts one. Both leaders run over the same cycles,
  so the counter's drift is the leaders' IPC difference; saturation at
  ``+-2**(psel_bits-1)`` makes it follow the current phase of the launch.
  ``psel_bits = 10`` is the cited technique's PSEL width; it is not tuned here.
* ``"cumulative"`` (ablation; this project's earlier rule): compare the instructions
  each leader issued since the launch started, i.e. an unbounded counter.

Followers use ``"a"`` while the counter (or the count difference) is positive, ``"b"``
while it is negative; at zero -- including the start of a launch, before either leader
issued -- they use ``tie``. The state restarts at every launch (the text is silent;
a new kernel is a new phase). Deterministic: no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from golden.errors import ConfigError

#: the decision rules (see the module docstring)
RULES = ("psel", "cumulative")
#: the cited technique's policy-selector width (Qureshi et al. 2007: a 10-bit PSEL)
PSEL_BITS = 10


def check_rule(rule: str, psel_bits: int, who: str = "set-dueling", prefix: str = "") -> None:
    """A one-line ConfigError unless ``rule`` is one of :data:`RULES` and ``psel_bits`` an
    integer from 1 to 32 (``who``: the mechanism named in the message; ``prefix``: its
    parameters' prefix, e.g. ``"duel_"``)."""
    if rule not in RULES:
        raise ConfigError(f"{who}: {prefix}rule must be one of {', '.join(RULES)}, "
                          f"not {rule!r}")
    if not isinstance(psel_bits, int) or isinstance(psel_bits, bool) or not 1 <= psel_bits <= 32:
        raise ConfigError(f"{who}: {prefix}psel_bits must be an integer from 1 to 32, "
                          f"not {psel_bits!r}")


@dataclass
class SMDuel:
    """Set-dueling between policy ``"a"`` (run always by SM ``leader_a``) and policy ``"b"``
    (SM ``leader_b``); every other SM follows the leader the rule says has the higher IPC.

    Stores, per launch, each leader's warp instructions (``issued``) and the policy
    selector (``psel``: the saturating counter under ``"psel"``, the unbounded count
    difference A - B under ``"cumulative"``)."""

    leader_a: int = 0
    leader_b: int = 1
    tie: str = "b"
    rule: str = "psel"
    psel_bits: int = PSEL_BITS
    #: warp instructions issued by each leader in the current launch
    issued: dict = field(default_factory=dict)
    #: the policy selector (see the class docstring)
    psel: int = 0

    def __post_init__(self):
        if self.leader_a == self.leader_b:
            raise ConfigError(f"set-dueling: the two leader SMs must differ "
                              f"(both are SM {self.leader_a})")
        if self.tie not in ("a", "b"):
            raise ConfigError(f"set-dueling: tie must be 'a' or 'b', not {self.tie!r}")
        check_rule(self.rule, self.psel_bits)
        self.reset()

    @property
    def psel_limit(self) -> int:
        """The saturating counter's bound: it stays in [-limit, limit - 1]."""
        return 1 << (self.psel_bits - 1)

    def reset(self) -> None:
        """Start a new launch: both leaders' counts and the selector at zero."""
        self.issued = {self.leader_a: 0, self.leader_b: 0}
        self.psel = 0

    def count(self, sm_id: int, n: int = 1) -> None:
        """SM ``sm_id`` issued ``n`` warp instructions (ignored unless it is a leader)."""
        if sm_id not in self.issued:
            return
        self.issued[sm_id] += n
        step = n if sm_id == self.leader_a else -n
        if self.rule == "cumulative":
            self.psel += step
        else:
            lim = self.psel_limit
            self.psel = max(-lim, min(lim - 1, self.psel + step))

    def winner(self) -> str:
        """The policy followers use now: ``"a"`` or ``"b"``."""
        return "a" if self.psel > 0 else "b" if self.psel < 0 else self.tie

    def policy(self, sm_id: int) -> str:
        """The policy SM ``sm_id`` uses now (leaders: their own; followers: the winner)."""
        if sm_id == self.leader_a:
            return "a"
        if sm_id == self.leader_b:
            return "b"
        return self.winner()
