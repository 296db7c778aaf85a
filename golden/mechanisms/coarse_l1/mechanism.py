"""The coarse-grained L1 (dissertation ch. 5, §5.1), static or with SM set-dueling.

The memory hierarchy implements the coarse L1 itself, as a general per-SM capability
(:meth:`golden.timing.memory.hierarchy.MemoryHierarchy.set_l1_fetch_group`): with a fetch
group of ``G`` lines, an L1 access also checks the other lines of its aligned group; if
any is absent the access misses and the absent lines are fetched with it as one L2
request, so the lines of a group hit and miss together. ``coarse2`` = groups of two
128 B blocks (256 B), ``coarse4`` = four (512 B).

This mechanism decides, per SM and over time, which SMs use the coarse groups:

* static (``duel=False``): every SM, for the whole run;
* set-dueling (``duel=True``, §5.1 step 5): SM ``leader_base`` always uses the baseline
  128 B blocks, SM ``leader_coarse`` always the coarse groups, and every other SM follows
  the leader with the higher IPC as set-dueling's saturating policy selector reads it
  (``duel_rule=cumulative``: instruction counts since the launch started;
  :class:`golden.mechanisms.dueling.SMDuel`; ties, e.g. before either leader issued, keep
  the baseline). Followers switch as the winner
  changes; lines already in their L1 stay.

Counters (``coarse.*``): ``switches`` (times the followers changed group size);
``coarse_issued`` / ``base_issued``: the warp instructions the followers issued under
each policy. The memory system's
``l1_group_requests`` / ``l1_group_extra_lines`` are added to the run's counters as
``coarse.group_requests`` / ``coarse.extra_lines`` when the launch ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from golden.errors import ConfigError
from golden.mechanisms.arguments import takes
from golden.mechanisms.claims import L1
from golden.mechanisms.dueling import PSEL_BITS, SMDuel, check_rule
from golden.timing.hooks import Mechanism


@dataclass(frozen=True)
class CoarseL1Params:
    """group: L1 lines fetched together (2 = coarse2, 4 = coarse4); duel: SM set-dueling
    between the baseline (SM ``leader_base``) and the coarse L1 (SM ``leader_coarse``).
    duel_rule: how followers read the leaders' IPC (:mod:`golden.mechanisms.dueling`):
    ``"psel"`` (default; set-dueling's saturating policy selector, the technique §5.1
    names) or ``"cumulative"`` (ablation: instruction counts since the launch started);
    duel_psel_bits: the selector's width (10, the cited technique's; not tuned)."""

    group: int = 2
    duel: bool = False
    leader_base: int = 0
    leader_coarse: int = 1
    duel_rule: str = "psel"
    duel_psel_bits: int = PSEL_BITS

    def __post_init__(self):
        if not isinstance(self.group, int) or self.group < 2 or self.group & (self.group - 1):
            raise ConfigError(f"coarse-l1: group must be a power of two >= 2, "
                              f"not {self.group!r}")
        check_rule(self.duel_rule, self.duel_psel_bits, "coarse-l1", "duel_")


class CoarseL1Mechanism(Mechanism):
    """Sets each SM's L1 fetch group (see the module docstring)."""

    name = "coarse"
    #: reads no register value (register-only work may run deferred)
    reads_wave_registers = False
    #: sets each SM's L1 fetch group
    claims = frozenset({L1})

    #: sampled timing (whole-launch): the set-dueling selector spans every SM of a launch; reset when a launch begins
    sampling = "whole-launch"
    sampling_reason = "the set-dueling selector spans every SM of a launch; reset when a launch begins"

    def __init__(self, config, params: CoarseL1Params | None = None):
        self.params = p = params or CoarseL1Params()
        n = config.core.num_sms
        if p.duel:
            for s in (p.leader_base, p.leader_coarse):
                if not 0 <= s < n:
                    raise ConfigError(f"coarse-l1: duel leader SM {s} does not exist "
                                      f"({config.name} has {n} SMs)")
        self.duel = (SMDuel(p.leader_coarse, p.leader_base, tie="b", rule=p.duel_rule,
                            psel_bits=p.duel_psel_bits) if p.duel else None)
        self._memory = None
        self._sm_ids: set = set()
        self._winner = None

    def _group(self, policy: str) -> int:
        return self.params.group if policy == "a" else 1

    def launch_begin(self, launch, sms) -> None:
        """New launch: reset the duel; each SM gets its policy at its first dispatch."""
        self._memory = sms[0].memory
        self._sm_ids = set()
        if self.duel is not None:
            self.duel.reset()
            self._winner = self.duel.winner()

    def _sync(self, sm) -> None:
        """Set ``sm`` to its policy at its first dispatch of the launch."""
        if sm.id not in self._sm_ids:
            self._sm_ids.add(sm.id)
            pol = self.duel.policy(sm.id) if self.duel is not None else "a"
            sm.memory.set_l1_fetch_group(sm.id, self._group(pol))

    def on_dispatch(self, sm, tb_id: int, warps_per_tb: int) -> bool:
        self._sync(sm)
        return True

    def after_step(self, sm, warp, pc: int, record) -> None:
        duel = self.duel
        if duel is None:
            return
        sid = sm.id
        if sid in duel.issued:
            duel.count(sid)
            w = duel.winner()
            if w != self._winner:
                self._winner = w
                sm.stats.count_mechanism("coarse.switches")
                g = self._group(w)
                for s in self._sm_ids:
                    if s not in duel.issued:
                        sm.memory.set_l1_fetch_group(s, g)
        else:
            sm.stats.count_mechanism("coarse.coarse_issued" if self._winner == "a"
                                     else "coarse.base_issued")

    def on_complete(self, stats) -> None:
        if self._memory is not None:
            c = self._memory.l1_group_counters()
            stats.count_mechanism("coarse.group_requests", c.get("l1_group_requests", 0))
            stats.count_mechanism("coarse.extra_lines", c.get("l1_group_extra_lines", 0))


def _make(config, group, duel, **kw):
    return CoarseL1Mechanism(config, CoarseL1Params(**{"group": group, "duel": duel, **kw}))


_TAKES = takes(CoarseL1Params, fixed=("group", "duel"))


@_TAKES
def make_coarse2(config, **kw):
    """``coarse2``: 256 B fetch groups on every SM."""
    return _make(config, 2, False, **kw)


@_TAKES
def make_coarse4(config, **kw):
    """``coarse4``: 512 B fetch groups on every SM."""
    return _make(config, 4, False, **kw)


@_TAKES
def make_coarse2_duel(config, **kw):
    """``coarse2-duel``: SM set-dueling between 128 B blocks and coarse2."""
    return _make(config, 2, True, **kw)


@_TAKES
def make_coarse4_duel(config, **kw):
    """``coarse4-duel``: SM set-dueling between 128 B blocks and coarse4."""
    return _make(config, 4, True, **kw)
