"""Stimulus for the G-Scalar scalar-eligibility check: seeded random vectors with coverage,
and real-kernel decisions recorded from the ``gscalar`` timing mechanism.

:func:`record_eligibility_decisions` runs a workload on the timing model with
:class:`golden.mechanisms.gscalar.timing.GScalarMechanism` and records, for every
instruction the mechanism classifies, the check's inputs (each source column's EBR from its
common-byte count, D bit and stored mask, the active and valid masks, whether its special
registers are uniform) and the class the mechanism chose. The golden
:class:`~golden.structures.gscalar.eligibility.ScalarEligibility` and the RTL must reproduce
every one of those decisions.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from golden.structures.gscalar import enc_from_common
from golden.structures.gscalar.eligibility import EligibilityOps, EligibilityOutputs, EligibilityParams

__all__ = ["ELIGIBILITY_GOALS", "RecordedDecisions", "TRACE_SOURCES", "eligibility_coverage", "random_eligibility_ops",
           "record_eligibility_decisions", "save_decisions", "load_decisions"]

#: Sources of a recorded trace: up to 3 operands and a predicate, 64-bit operands as two
#: 32-bit tracker columns each.
TRACE_SOURCES = 8


def random_eligibility_ops(params: EligibilityParams, rng: random.Random, count: int) -> list[EligibilityOps]:
    """Vectors biased towards the interesting cases: full / divergent active masks, fully
    compressed sources, D-set sources whose stored mask equals the active mask."""
    lanes, full_lanes = params.lanes, (1 << params.lanes) - 1
    out = []
    for _ in range(count):
        full = full_lanes if rng.random() < 0.8 else rng.getrandbits(lanes) | 1
        r = rng.random()
        active = full if r < 0.45 else (0 if r < 0.5 else rng.getrandbits(lanes) & full)
        en = enc = d = mask = 0
        for i in range(params.sources):
            if rng.random() < 0.6:
                en |= 1 << i
            code = 0xF if rng.random() < 0.75 else rng.choice((0x0, 0x8, 0xC, 0xE, rng.getrandbits(4)))
            enc |= code << (4 * i)
            if rng.random() < 0.3:
                d |= 1 << i
            m = active if rng.random() < 0.6 else rng.getrandbits(lanes)
            mask |= m << (lanes * i)
        out.append(EligibilityOps(src_en=en, src_enc=enc, src_d=d, src_mask=mask, active=active,
                                  full=full, uniform=int(rng.random() < 0.92),
                                  class_ok=int(rng.random() < 0.9)))
    return out


def eligibility_coverage(expected: EligibilityOutputs, ops: EligibilityOps, params: EligibilityParams,
                         cov: Counter) -> None:
    """Count decisions and the conditions that lead to them."""
    lane_mask = (1 << params.lanes) - 1
    nondiv = ops.active == ops.full
    cov["scalar"] += expected.scalar
    cov["div_scalar"] += expected.div_scalar
    vector = not (expected.scalar or expected.div_scalar)
    cov["vector_nondiv"] += int(vector and nondiv and bool(ops.class_ok))
    cov["vector_div"] += int(vector and not nondiv and bool(ops.class_ok))
    same = any(ops.src_en >> i & 1 and ops.src_d >> i & 1
               and (ops.src_mask >> (params.lanes * i)) & lane_mask == ops.active
               for i in range(params.sources))
    cov["d_same_mask_div_scalar"] += int(same and bool(expected.div_scalar))
    cov["not_uniform"] += 1 - ops.uniform
    cov["class_off"] += 1 - ops.class_ok
    cov["empty_active"] += int(ops.active == 0)


ELIGIBILITY_GOALS = {"scalar": 50, "div_scalar": 30, "vector_nondiv": 100, "vector_div": 100,
                     "d_same_mask_div_scalar": 10, "not_uniform": 20, "class_off": 20,
                     "empty_active": 20}


class _Enough(Exception):
    """Raised inside the run once ``limit`` decisions are recorded."""


def record_eligibility_decisions(workload: str, size: str = "small", config: str = "gtx480",
                                 seed: int = 0, limit: int = 3000) -> list[tuple[EligibilityOps, EligibilityOutputs]]:
    """Run ``workload`` with the ``gscalar`` mechanism; return its first ``limit`` (inputs,
    decision) pairs (the run stops there; with fewer decisions the whole run is recorded
    and its outputs are checked)."""
    from golden.configs import load_config
    from golden.mechanisms.gscalar.timing import GScalarMechanism
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry

    cfg = load_config(config)
    mech = GScalarMechanism(cfg, "gscalar")
    lanes = 32
    lane_mask = (1 << lanes) - 1
    seen: list[tuple[EligibilityOps, EligibilityOutputs]] = []
    original = mech._scalar_lanes

    def spy(st, warp, wave, widx, active, nondiv):
        t, g, c = mech.tracker, warp.gid, mech._c
        cols = st.src_cols
        if len(cols) > TRACE_SOURCES:
            return original(st, warp, wave, widx, active, nondiv)
        en = enc = d = mask = 0
        for i, col in enumerate(cols):
            en |= 1 << i
            enc |= int(enc_from_common(int(t.nc[g, col]))) << (4 * i)
            d |= int(bool(t.d[g, col])) << i
            mask |= (int(t.mask[g, col]) & lane_mask) << (lanes * i)
        uniform = all(mech._special_uniform(wave, widx, n, comp)[0] for n, comp in st.specials)
        full = mech._valid_mask(wave, widx)
        before = (sum(c[f"scalar_{k}"] for k in ("alu", "sfu", "mem")), c["div_scalar"])
        result = original(st, warp, wave, widx, active, nondiv)
        after = (sum(c[f"scalar_{k}"] for k in ("alu", "sfu", "mem")), c["div_scalar"])
        seen.append((EligibilityOps(src_en=en, src_enc=enc, src_d=d, src_mask=mask, active=active,
                                    full=full, uniform=int(uniform), class_ok=1),
                     EligibilityOutputs(after[0] - before[0], after[1] - before[1])))
        if len(seen) >= limit:
            raise _Enough
        return result

    mech._scalar_lanes = spy
    dev = TimingDevice(cfg, mechanisms=[mech], echo_printf=False)
    try:
        run = registry.run_workload(registry.get(workload), size, seed, device=dev)
    except _Enough:
        return seen
    bad = run.mismatches()
    if bad:
        raise AssertionError(f"{workload}: outputs differ under gscalar: {bad[:2]}")
    return seen


class RecordedDecisions:
    """Plays back recorded decisions in order, in the place of a golden model (``step``)."""

    def __init__(self, outs):
        self._outs = iter(outs)

    def step(self, ops: EligibilityOps) -> EligibilityOutputs:
        return next(self._outs)


def save_decisions(path: str | Path, workload: str, rows) -> Path:
    """One JSON object per line: ``{"ops": {...}, "out": {...}}`` after a header line."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"workload": workload, "sources": TRACE_SOURCES}) + "\n")
        for ops, out in rows:
            f.write(json.dumps({"ops": ops.__dict__, "out": out.as_dict()}) + "\n")
    return path


def load_decisions(path: str | Path) -> tuple[dict, list[tuple[EligibilityOps, EligibilityOutputs]]]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    rows = [(EligibilityOps(**r["ops"]), EligibilityOutputs(**r["out"]))
            for r in map(json.loads, lines[1:])]
    return head, rows
