"""Sampled timing simulation across launches: launch groups, the sample, the estimator.

A workload made of many launches (BFS levels, NW's anti-diagonals, LUD's steps, RS's
passes) is simulated in detail only for a random sample of its launches; every launch
still runs *functionally*, so outputs and the GPU memory state evolve exactly as in a
full run. This module holds the statistics, with no simulation inside:

* :class:`LaunchSignature` -- the cheap functional features of one launch, taken from a
  fast functional pass (:class:`golden.simt.stats.LaunchStats`): kernel, grid, block,
  warp instructions, and the *instruction-mix vector* (warp instructions per opcode,
  memory warp accesses per space, branches, divergent branches, barriers and SIMD
  utilisation, each per warp instruction). Simplification: the mix stands in for the
  basic-block vector of TBPoint/SimPoint (the functional core counts opcodes, not PCs).
* :func:`group_launches` -- strata: launches of the same kernel and block (and grid,
  with ``match_grid``) whose mix vectors lie within ``mix_distance`` (L1 distance) of the
  group's first launch and whose warp instructions lie within a factor ``size_ratio`` of
  it. By default the grid may differ (BFS levels, NW diagonals grow and shrink): the size
  bound and the ratio estimator on warp instructions account for it -- except for a launch
  with fewer TBs than the GPU has SMs (``num_sms``), whose cycles follow the work of one
  TB rather than the launch's total (its TBs run side by side): such a launch is grouped
  only with launches of the same grid. (Measured: NW small, whose 1-4-TB diagonals were
  grouped across grids, had errors up to 26% before this rule.)
* :func:`choose_detailed` -- a simple random sample without replacement in every group
  (``n_h = min(N_h, max(min_per_group, ceil(fraction * N_h)))``), seeded.
* :func:`ratio_estimate` -- the *separate ratio estimator* of a total (Cochran,
  Sampling Techniques, 3rd ed., sec. 6.10), with the launches' warp instructions ``x``
  (known for every launch from the functional pass) as the auxiliary variable::

      Y_hat = sum_h X_h * (sum_{i in s_h} y_i / sum_{i in s_h} x_i)
      V_hat = sum_h N_h^2 (1 - n_h/N_h) / n_h * (X_h/N_h / xbar_h)^2 * s_eh^2,
      s_eh^2 = sum_{i in s_h} (y_i - R_h x_i)^2 / (n_h - 1)

  and the 95% interval ``Y_hat +- t(0.975, df) * sqrt(V_hat)`` with Satterthwaite's
  degrees of freedom (for a non-negative quantity the lower end is at least the detailed
  launches' own sum, which the total cannot be below). A group simulated whole contributes its exact total and no
  variance. A group with one detailed launch out of several has no variance
  information: the interval is then *not estimable* (None), never invented.

The estimator is linear in ``y`` (``Y_hat = sum_i w_i y_i`` with ``w_i = X_h / x_s,h``),
so :func:`launch_weights` lets a caller build every extrapolated counter, and an energy
report, from the detailed launches' own statistics.

Deterministic: the sample depends only on the signatures and ``SamplingPlan.seed``.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass

from golden.errors import SimtlabError

#: t(0.975, df) for df = 1..30 (Student's t, two-sided 95%)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
_Z975 = 1.959964


def t975(df: float) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (a table up
    to 30, interpolated for fractional df; above 30 the Cornish-Fisher expansion)."""
    if df <= 0 or math.isnan(df):
        raise ValueError(f"degrees of freedom must be > 0, not {df}")
    if df < 1:
        return _T975[0]
    if df <= 30:
        lo = int(math.floor(df))
        if lo == df or lo == 30:
            return _T975[lo - 1]
        a, b = _T975[lo - 1], _T975[lo]
        return a + (b - a) * (df - lo)
    z = _Z975
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df * df)


@dataclass(frozen=True)
class SamplingPlan:
    """How launches are grouped and sampled (part of a sampled run's identity).

    ``seed``: the sample's random seed; ``fraction``: share of each group's launches
    simulated in detail; ``min_per_group``: at least this many per group (2 keeps the
    variance estimable); ``mix_distance``: largest L1 distance between the mix vectors of
    a group's launches and its first launch; ``size_ratio``: largest ratio of warp
    instructions between a group's launches and its first launch; ``match_grid``: a
    group's launches also have the same grid."""

    seed: int = 0
    fraction: float = 0.1
    min_per_group: int = 2
    mix_distance: float = 0.1
    size_ratio: float = 2.0
    match_grid: bool = False

    def __post_init__(self):
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise SimtlabError(f"sampling seed must be an integer >= 0, not {self.seed!r}")
        if not 0 < self.fraction <= 1:
            raise SimtlabError(f"sampling fraction must be in (0, 1], not {self.fraction!r}")
        if isinstance(self.min_per_group, bool) or not isinstance(self.min_per_group, int) \
                or self.min_per_group < 1:
            raise SimtlabError(f"min_per_group must be an integer >= 1, not "
                               f"{self.min_per_group!r}")
        if self.mix_distance < 0:
            raise SimtlabError(f"mix_distance must be >= 0, not {self.mix_distance!r}")
        if self.size_ratio < 1:
            raise SimtlabError(f"size_ratio must be >= 1, not {self.size_ratio!r}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LaunchSignature:
    """Cheap functional features of launch ``index`` (see the module docstring)."""

    index: int
    kernel: str
    grid: tuple
    block: tuple
    warp_instructions: int
    mix: tuple  # sorted ((feature, value per warp instruction), ...)

    @classmethod
    def from_stats(cls, index: int, st) -> "LaunchSignature":
        """The signature of a :class:`golden.simt.stats.LaunchStats`."""
        n = st.warp_instructions
        d = max(n, 1)
        feats = {f"op.{k}": v / d for k, v in st.by_opcode.items()}
        feats.update({f"mem.{k}": v / d for k, v in st.mem_warp_accesses.items()})
        feats.update(branches=st.branches / d, divergent=st.divergent_branches / d,
                     barriers=st.barriers / d, simd=st.thread_instructions / (32.0 * d))
        return cls(index=index, kernel=st.kernel, grid=tuple(st.grid), block=tuple(st.block),
                   warp_instructions=int(n), mix=tuple(sorted(feats.items())))

    @property
    def num_tbs(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def shape(self) -> tuple:
        return (self.kernel, self.grid, self.block)

    def key(self, match_grid: bool) -> tuple:
        """What a group's launches share exactly: kernel and block (and grid)."""
        return self.shape if match_grid else (self.kernel, self.block)

    def distance(self, other: "LaunchSignature") -> float:
        """L1 distance between the two mix vectors."""
        a, b = dict(self.mix), dict(other.mix)
        return sum(abs(a.get(k, 0.0) - b.get(k, 0.0)) for k in set(a) | set(b))


def group_launches(sigs: list, plan: SamplingPlan, num_sms: int = 1) -> list[list[int]]:
    """Strata of launch indices, in order of their first launch (see module docstring):
    a launch joins the first group of its kernel/block (/grid) whose first launch is within
    ``plan.mix_distance`` and ``plan.size_ratio`` of it, else opens a new group. Launches
    with fewer than ``num_sms`` TBs only join launches of the same grid."""
    groups: list[list[int]] = []
    leaders: list[LaunchSignature] = []
    for s in sigs:
        for g, lead in zip(groups, leaders):
            same_grid = plan.match_grid or min(lead.num_tbs, s.num_tbs) < num_sms
            if lead.key(same_grid) != s.key(same_grid):
                continue
            a, b = max(lead.warp_instructions, 1), max(s.warp_instructions, 1)
            if max(a, b) / min(a, b) > plan.size_ratio:
                continue
            if lead.distance(s) <= plan.mix_distance:
                g.append(s.index)
                break
        else:
            groups.append([s.index])
            leaders.append(s)
    return groups


def choose_detailed(groups: list[list[int]], plan: SamplingPlan) -> list[list[int]]:
    """The launches of each group simulated in detail: a seeded simple random sample of
    ``min(N_h, max(min_per_group, ceil(fraction * N_h)))`` launches, sorted."""
    rng = random.Random(plan.seed)
    out = []
    for g in groups:
        n = min(len(g), max(plan.min_per_group, math.ceil(plan.fraction * len(g))))
        out.append(sorted(rng.sample(g, n)) if n < len(g) else list(g))
    return out


@dataclass(frozen=True)
class Estimate:
    """An extrapolated total with its 95% interval.

    ``low``/``high``/``std_error``/``df`` are None when the interval is not estimable
    (a group with several launches has a single detailed one); ``exact`` is True when
    every launch was simulated in detail (then ``low == high == value``)."""

    value: float
    low: float | None
    high: float | None
    std_error: float | None
    df: float | None
    exact: bool
    note: str

    def contains(self, v: float) -> bool | None:
        """Whether ``v`` lies inside the interval (None when not estimable)."""
        if self.low is None:
            return None
        return self.low <= v <= self.high

    def to_dict(self) -> dict:
        # the upper half-width t * SE (the lower end may be raised, see ratio_estimate)
        hw = None if self.low is None else self.high - self.value
        return {"estimate": self.value, "low": self.low, "high": self.high,
                "half_width": hw,
                "half_width_pct": (None if hw is None or not self.value
                                   else 100.0 * hw / abs(self.value)),
                "std_error": self.std_error, "df": self.df, "exact": self.exact,
                "estimable": self.low is not None, "note": self.note}


def launch_weights(groups: list[list[int]], detailed: list[list[int]], x: list) -> dict:
    """``index -> w_i`` of every detailed launch: the ratio estimator of a total is
    ``sum_i w_i y_i`` (``w_i = X_h / x_s,h``; ``N_h / n_h`` when the sample's ``x`` is 0)."""
    w = {}
    for g, s in zip(groups, detailed):
        xs = sum(x[i] for i in s)
        big_x = sum(x[i] for i in g)
        for i in s:
            w[i] = big_x / xs if xs > 0 else len(g) / len(s)
    return w


def ratio_estimate(groups: list[list[int]], detailed: list[list[int]], x: list,
                   y: dict, nonnegative: bool = True) -> Estimate:
    """The separate ratio estimate of ``sum_i y_i`` over every launch, from ``y`` of the
    detailed launches (``index -> value``) and ``x`` of all launches (module docstring).
    ``nonnegative``: ``y`` cannot be negative (cycles, counts, joules), so the total is at
    least the detailed launches' sum, and the interval's lower end is raised to it."""
    total = 0.0
    var = 0.0
    terms = []          # (a_h * s_h^2, n_h - 1) for Satterthwaite's df
    estimable = True
    exact = True
    for g, s in zip(groups, detailed):
        big_n, n = len(g), len(s)
        xs = sum(x[i] for i in s)
        ys = sum(y[i] for i in s)
        big_x = sum(x[i] for i in g)
        if n == big_n:
            total += ys
            continue
        exact = False
        if xs > 0:
            r = ys / xs
            total += r * big_x
            resid = [y[i] - r * x[i] for i in s]
            scale = (big_x / big_n) / (xs / n)
        else:           # no auxiliary information: mean per unit
            mean = ys / n
            total += big_n * mean
            resid = [y[i] - mean for i in s]
            scale = 1.0
        if n < 2:
            estimable = False
            continue
        s2 = sum(e * e for e in resid) / (n - 1)
        a = big_n * big_n * (1 - n / big_n) / n * scale * scale
        var += a * s2
        terms.append((a * s2, n - 1))
    if exact:
        return Estimate(total, total, total, 0.0, None, True,
                        "exact: every launch simulated in detail")
    if not estimable:
        return Estimate(total, None, None, None, None, False,
                        "not estimable: a group has a single detailed launch")
    se = math.sqrt(var)
    if var == 0:
        return Estimate(total, total, total, 0.0, None, False,
                        "zero sample variance: the detailed launches of every group lie "
                        "exactly on their ratio line")
    df = var * var / sum(v * v / d for v, d in terms if v > 0)
    hw = t975(df) * se
    low = total - hw
    if nonnegative:
        low = max(low, float(sum(y.values())))
    return Estimate(total, low, total + hw, se, df, False,
                    "separate ratio estimator on warp instructions, t interval "
                    "(Satterthwaite df)")
