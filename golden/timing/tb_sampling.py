"""Thread-block sampling inside a launch: units, the sample, the steady-state estimator.

A launch with many thread blocks (TBs) is simulated in detail only for a systematic sample
of its *units*; the other units run functionally ("fast-forwarded", every instruction
executed, so outputs stay bit-identical). This module holds the statistics, with no
simulation inside (the driver is :mod:`golden.runs.tb_sampled_run`). It follows the idea
of TBPoint (thread-block sampling, Huang et al., ISPASS 2014) and the systematic sampling
of SMARTS (Wunderlich et al., ISCA 2003); the estimator below is this project's own.

* **Unit**: ``U`` consecutive TBs in dispatch (linear-id) order, ``unit_waves`` *occupancy
  waves* of ``num_sms x TBs per SM`` TBs (the TBs the GPU holds at once; default 1), so a
  unit is a "whole wave" of :data:`golden.timing.hooks.SAMPLING_UNITS` and TBs are never
  split. (A unit below one wave would make the intervals shorter than a TB's lifetime: the
  steady state they measure would not exist.)
* **Sample** (:func:`choose_units`): the first unit (the ramp-up: the GPU fills from empty),
  the ``warmup_units`` units after it (the start-up transient: the second wave overlaps the
  ramp's staggered retirements and runs unlike a steady one; default 1), the
  ``cooldown_units`` units before the last (the TBs that are still running when the last
  ones are dispatched, so they set the drain's length; default 1) and the last unit (the
  drain: SMs run out of work) are always detailed and counted exactly, never
  extrapolated; among the ``m`` middle units that remain, ``n = min(m, max(min_middle,
  ceil(fraction * m)))`` are detailed, chosen systematically (every ``m/n``-th unit from a
  seeded random start). A launch with fewer than ``max(min_units, warmup_units +
  cooldown_units + 3)`` units is simulated whole.
* **Sampled run**: the dispatcher places the detailed units' TBs in order; when it reaches a
  skipped unit it runs that unit functionally at once and goes on with the next detailed
  unit, so the SMs stay busy. With ``warming`` (default) the skipped TBs' memory accesses
  update the L1/L2 tags and DRAM open rows as they run, each TB's on the SM the dispatcher's
  round robin would have given it (:mod:`golden.timing.functional_warming`); without it the
  caches keep only the state the detailed TBs left.
* **Estimator** (:func:`steady_estimate`): the sampled run's ramp-up and drain are kept, and
  each skipped warp instruction costs the *steady-state* cycles per warp instruction. Let
  ``b_1 < ... < b_n`` be the cycles at which the first TB of each sampled middle unit (not a
  warm-up unit) was
  dispatched and ``b_{n+1}`` that of the first cool-down unit (the last unit without
  one); interval ``j`` = ``[b_j, b_{j+1})`` with
  ``c_j`` cycles and ``x_j`` warp instructions executed in detail. With ``C`` the sampled
  run's cycles and ``X_s`` the skipped units' warp instructions (known exactly from their
  functional execution)::

      C_hat = C + R * X_s,   R = sum_j c_j / sum_j x_j
      V_hat = X_s^2 * (1 - n/m) / (n * xbar^2) * s_e^2,   s_e^2 = sum_j (c_j - R x_j)^2 / (n-1)

  (the ratio estimator of Cochran, *Sampling Techniques*, 3rd ed., sec. 6.3, with the
  intervals as a systematic sample treated as a simple random one, as SMARTS does; the
  population is the ``m`` middle units between the warm-up and the cool-down, exactly the
  units ``X_s`` comes from, so the sample is drawn from the population it is extrapolated to), and the
  95% interval ``C_hat +- t(0.975, n-1) sqrt(V_hat)``, its lower end at least ``C`` (the
  skipped work cannot take negative time). Every other counter ``y`` (and the energy) is
  extrapolated the same way, ``Y + (sum_j dy_j / sum_j x_j) * X_s``. With ``n < 2`` the
  interval is *not estimable* (None), never invented.
* Why a cool-down unit: the drain is counted exactly, but its length is set by the TBs
  still running when the last TBs are dispatched. Without a cool-down unit those are the
  TBs of the last *sampled* middle unit, which in the full run would have been overlapped
  by the skipped units after it: on RAY at ``published`` on pascal (8 units, the last one
  4 TBs) the sampled run's drain took 21,588 cycles against the full run's 11,073, all of
  the +7.9% error, while the sampled intervals agreed to 0.01%.
* **The end block's term** (:func:`end_block_term`, every extrapolated quantity): the
  cool-down and last units are counted exactly, yet their length still depends on the
  sample (which TBs run beside them, on which SM). Their *excess* ``E = C_end - R * X_end`` (the end block's
  cycles beyond what the steady ratio gives its warp instructions: the drain's tail) is
  one observation with no variance of its own. Following the GUM's type-B evaluation
  (JCGM 100:2008, 4.3.7 and G.4.2), the full run's excess is taken to lie in ``[0, 2E]``
  (a rectangular distribution of half-width ``|E|``: ``u_B = |E| / sqrt(3)``, judged
  reliable to 25%, so ``nu_B = 8`` degrees of freedom); ``u_B^2`` is added to the
  ratio estimator's variance and the degrees of freedom combine by Welch-Satterthwaite.
  Every counter and the energy get the same term from their own excess (the warp
  instructions' is zero: they are the ratio's auxiliary).
  On RAY at ``published`` on pascal the end block's excess was 7,085 cycles in the full
  run and 17,209 / 12,127 / 5,105 cycles in sampled runs without a cool-down unit, with
  one and with two: the steady-state intervals agreed to 0.01%, so without this term the
  interval claimed +-0.01% around a +3.9% error.
* What the interval does not cover: what warming leaves out (MSHR, queue and DRAM-bank
  timing state; the cycle-level order of the skipped accesses), and launches whose steady
  state drifts between the sampled intervals faster than the sample resolves.

Deterministic: the sample depends only on the plan's seed, the launch index and the counts.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass

from golden.errors import SimtlabError
from golden.timing.sampling import Estimate, t975


@dataclass(frozen=True)
class TBSamplingPlan:
    """How the TBs of a launch are sampled (part of a TB-sampled run's identity).

    ``seed``: the sample's seed; ``fraction``: share of the middle units detailed;
    ``min_middle``: at least this many middle units detailed (2 keeps the variance
    estimable); ``min_units``: a launch with fewer units is simulated whole; ``unit_waves``:
    occupancy waves (``num_sms x TBs per SM`` TBs) per unit; ``warming``: the skipped TBs'
    memory accesses warm the L1/L2 tags and DRAM rows
    (:mod:`golden.timing.functional_warming`); ``warmup_units``: units after the first that
    are always detailed and counted exactly (SMARTS's detailed warming of the start-up
    transient; 0 is the sample before it existed); ``cooldown_units``: units before the
    last that are always detailed and counted exactly (their TBs are the ones the drain
    waits for; 0 is the sample before it existed)."""

    seed: int = 0
    fraction: float = 0.1
    min_middle: int = 2
    min_units: int = 5
    unit_waves: int = 1
    warming: bool = True
    warmup_units: int = 1
    cooldown_units: int = 1

    def __post_init__(self):
        v = self.seed
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise SimtlabError(f"TB sampling seed must be an integer >= 0, not {v!r}")
        if not 0 < self.fraction <= 1:
            raise SimtlabError(f"TB sampling fraction must be in (0, 1], not {self.fraction!r}")
        if not isinstance(self.warming, bool):
            raise SimtlabError(f"TB sampling warming must be true or false, not {self.warming!r}")
        for name, lo in (("min_middle", 1), ("min_units", 3), ("unit_waves", 1),
                         ("warmup_units", 0), ("cooldown_units", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise SimtlabError(f"TB sampling {name} must be an integer >= {lo}, not {v!r}")

    def to_dict(self) -> dict:
        return asdict(self)


def make_units(num_tbs: int, unit_tbs: int) -> list[tuple[int, int]]:
    """``[(first TB, end TB), ...]``: consecutive runs of ``unit_tbs`` TBs (the last may be
    shorter) covering ``0 .. num_tbs - 1``."""
    if unit_tbs < 1:
        raise ValueError(f"unit_tbs must be >= 1, not {unit_tbs}")
    return [(s, min(num_tbs, s + unit_tbs)) for s in range(0, num_tbs, unit_tbs)]


def choose_units(n_units: int, plan: TBSamplingPlan, salt: int = 0) -> list[int]:
    """The detailed units (sorted): every unit when ``n_units < max(plan.min_units,
    plan.warmup_units + plan.cooldown_units + 3)``; else the first, the
    ``plan.warmup_units`` after it, the ``plan.cooldown_units`` before the last, the last
    and a seeded systematic sample of the middle ones between them (module docstring).
    ``salt`` (the launch index) gives each launch its own random start."""
    w, c = plan.warmup_units, plan.cooldown_units
    if n_units < max(plan.min_units, w + c + 3):
        return list(range(n_units))
    m = n_units - 2 - w - c
    n = min(m, max(plan.min_middle, math.ceil(plan.fraction * m)))
    step = m / n
    start = random.Random(f"tb-sampling:{plan.seed}:{salt}").random() * step
    middle = sorted({1 + w + min(m - 1, int(start + i * step)) for i in range(n)})
    return [0, *range(1, 1 + w), *middle, *range(n_units - 1 - c, n_units)]


def middle_population(n_units: int, plan: TBSamplingPlan) -> int:
    """``m``: the middle units the sample is drawn from and extrapolated to (neither the
    first, a warm-up, a cool-down nor the last unit); at least 1."""
    return max(n_units - 2 - plan.warmup_units - plan.cooldown_units, 1)


def steady_estimate(total: float, intervals: list[tuple[float, float]], skipped_x: float,
                    population: int, nonnegative: bool = True) -> Estimate:
    """The estimate ``total + R * skipped_x`` of a quantity of the whole launch (module
    docstring): ``total`` its value in the sampled run, ``intervals`` the ``(dy_j, x_j)`` of
    the ``n`` detailed middle units, ``skipped_x`` the skipped warp instructions,
    ``population`` the number ``m`` of middle units (detailed or not)."""
    if skipped_x == 0:
        return Estimate(total, total, total, 0.0, None, True,
                        "exact: every thread block simulated in detail")
    n = len(intervals)
    xs = sum(x for _, x in intervals)
    if n == 0 or xs <= 0:
        return Estimate(total, None, None, None, None, False,
                        "not estimable: no steady-state interval was measured")
    r = sum(y for y, _ in intervals) / xs
    value = total + r * skipped_x
    if n < 2:
        return Estimate(value, None, None, None, None, False,
                        "not estimable: a single steady-state interval")
    xbar = xs / n
    s2 = sum((y - r * x) ** 2 for y, x in intervals) / (n - 1)
    fpc = max(0.0, 1.0 - n / population) if population else 1.0
    var = skipped_x ** 2 * fpc * s2 / (n * xbar * xbar)
    se = math.sqrt(var)
    if var == 0:
        return Estimate(value, value, value, 0.0, None, False,
                        "zero sample variance: the steady-state intervals lie exactly on "
                        "their ratio line")
    hw = t975(n - 1) * se
    low = max(value - hw, total) if nonnegative else value - hw
    return Estimate(value, low, value + hw, se, float(n - 1), False,
                    "thread-block sampling: steady-state ratio estimator on warp "
                    "instructions, t interval")


#: degrees of freedom of the end block's type-B term (GUM G.4.2: ``nu = 1/2 (du/u)^-2`` with
#: the half-width ``|E|`` judged reliable to 25%)
END_TERM_DF = 8


def end_block_term(e: Estimate, excess: float, floor: float) -> Estimate:
    """``e`` (a launch's estimate of one quantity) with the end block's type-B term (module
    docstring): variance ``+ excess^2 / 3``, degrees of freedom by Welch-Satterthwaite with
    :data:`END_TERM_DF` for the term, the lower end at least ``floor`` (the quantity's value
    in the sampled run). An exact or non-estimable ``e``, or no excess, is returned
    unchanged."""
    if e.exact or e.low is None or not excess:
        return e
    var_a = (e.std_error or 0.0) ** 2
    var_b = excess * excess / 3.0
    var = var_a + var_b
    den = var_b * var_b / END_TERM_DF + (var_a * var_a / e.df if var_a and e.df else 0.0)
    df = var * var / den
    hw = t975(df) * math.sqrt(var)
    return Estimate(e.value, max(e.value - hw, floor), e.value + hw, math.sqrt(var), df, False,
                    e.note + f"; with the end block's type-B term (excess {excess:,.6g}, "
                             "half-width |excess|)")


def sum_estimates(parts: list[Estimate], nonnegative_floor: float | None = None) -> Estimate:
    """The estimate of a sum of independent estimates (e.g. the launches of a workload):
    values and variances add, Satterthwaite's degrees of freedom; exact parts add no
    variance; any non-estimable inexact part makes the sum not estimable.
    ``nonnegative_floor``: the lowest value the sum can take (the lower end is raised to it)."""
    if not parts:
        raise ValueError("sum_estimates: no parts")
    value = sum(p.value for p in parts)
    if all(p.exact for p in parts):
        return Estimate(value, value, value, 0.0, None, True,
                        "exact: every thread block simulated in detail")
    if any(p.low is None for p in parts):
        return Estimate(value, None, None, None, None, False,
                        "not estimable: a sampled launch has no variance information")
    terms = [(p.std_error ** 2, p.df) for p in parts if not p.exact and p.std_error]
    var = sum(v for v, _ in terms)
    if var == 0:
        return Estimate(value, value, value, 0.0, None, False,
                        "zero sample variance in every sampled launch")
    df = var * var / sum(v * v / d for v, d in terms)
    hw = t975(df) * math.sqrt(var)
    low = value - hw
    if nonnegative_floor is not None:
        low = max(low, nonnegative_floor)
    return Estimate(value, low, value + hw, math.sqrt(var), df, False,
                    "sum over launches of thread-block sampling estimates (Satterthwaite df)")
