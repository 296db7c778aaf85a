"""Composition of mechanisms (issue 73): golden/mechanisms/claims.py (claims, assumptions,
the composition order), the ``on_skip`` hook (golden/timing/hooks.py), and the
composition report (golden/report/compose.py).

Default suite: every allowed pair of mechanism *families* (one registered name per
mechanism module) runs on a tiny HS with outputs identical to the baseline; every
refused pair of registered names gives its one-line message; the composed statistics are
deterministic and the chain order holds. ``sweep``: every allowed pair of registered
names on several tiny workloads (``make test-sweep``).
"""

from __future__ import annotations

import itertools

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms import claims
from golden.mechanisms.registry import MECHANISMS, make_mechanisms
from golden.report.runner import TimingJob, run_job

CFG = load_config("pascal")


def _status(a: str, b: str) -> str | None:
    """None if ``a`` and ``b`` compose on pascal, else the registry's message."""
    try:
        make_mechanisms([a, b], CFG)
    except ConfigError as e:
        return str(e)
    return None


ALL_PAIRS = list(itertools.combinations(sorted(MECHANISMS), 2))
ALLOWED = [p for p in ALL_PAIRS if _status(*p) is None]
REFUSED = [p for p in ALL_PAIRS if _status(*p) is not None]


def _families() -> list[str]:
    """One registered name per mechanism module (the first in registry order)."""
    seen, out = set(), []
    for name, spec in MECHANISMS.items():
        mod = spec.partition(":")[0]
        if mod not in seen:
            seen.add(mod)
            out.append(name)
    return out


FAMILY_PAIRS = [p for p in itertools.combinations(_families(), 2) if _status(*p) is None]


def _run(workload: str, mechs=()) -> dict:
    return run_job(TimingJob(workload, "pascal", mechanisms=tuple(mechs)))


_BASE: dict = {}


def _check_pair(workload: str, pair) -> None:
    """``pair`` on ``workload`` (its TINY input) leaves the outputs the baseline's."""
    base = _BASE.get(workload)
    if base is None:   # one baseline per workload and session (the TINY input is fixed)
        base = _BASE[workload] = _run(workload)
    r = _run(workload, pair)
    assert r["outputs_match"], f"{pair} on {workload}: outputs differ from the reference"
    assert r["output_digest"] == base["output_digest"], \
        f"{pair} on {workload}: outputs not bit-identical to the baseline"


# ------------------------------------------------------------------ claims and order
def test_the_acceptance_pair_darsie_and_gscalar_is_allowed():
    assert ("darsie", "gscalar") in ALLOWED
    assert ("gscalar", "uv-srf") in REFUSED and ("gscalar", "uv-token") in REFUSED
    assert ("capri", "darsie") in REFUSED


@pytest.mark.parametrize("pair", REFUSED, ids="+".join)
def test_every_refused_pair_gives_a_one_line_reason(pair):
    msg = _status(*pair)
    assert "\n" not in msg and f"'{pair[0]}' and '{pair[1]}'" in msg
    if MECHANISMS[pair[0]] == MECHANISMS[pair[1]]:   # two names of one mechanism
        assert "the same mechanism twice" in msg
        return
    assert "cannot run together" in msg
    assert "both claim" in msg or "assumes the baseline's" in msg, msg
    # the reason names a part and says what owning it means
    assert any(f"claim {c}" in msg or f"claims {c}" in msg for c in claims.ALL), msg


@pytest.mark.parametrize("pair,words", [
    (("darsie", "capri"), ("'capri' claims warp formation", "'darsie' assumes")),
    (("gscalar", "uv-srf"), ("both claim", "register storage")),
    (("darsie", "uv"), ("'uv' claims elimination", "'darsie' assumes the baseline's",
                        "LeaderWB")),
    (("tbc", "ilp-bp-static"), ("'tbc' claims warp formation", "SIMT stack")),
    (("capri", "warpman-temp"), ("'warpman-temp' claims TB dispatch",)),
    (("darsie", "dac-ideal"), ("both claim fetch",)),
    (("capri", "ilp-sc"), ("'capri' claims warp formation", "dynamic_warps")),
    (("capri", "gscalar"), ("'capri' claims warp formation", "SIMT stack")),
    (("tbc", "uv-token"), ("'tbc' claims warp formation",)),
])
def test_refusals_name_the_part_and_the_reason(pair, words):
    msg = _status(*pair)
    assert msg is not None
    for w in words:
        assert w in msg, msg


def test_refusal_does_not_depend_on_the_order_given():
    for a, b in ALL_PAIRS:
        assert (_status(a, b) is None) == (_status(b, a) is None), (a, b)


def test_composed_set_comes_back_in_chain_order_whatever_order_is_given():
    for given in (["darsie", "gscalar"], ["gscalar", "darsie"]):
        ms = make_mechanisms(given, CFG)
        assert [type(m).__name__ for m in ms] == ["GScalarMechanism", "DarsieMechanism"]
    ms = make_mechanisms(["darsie", "warp-lifetimes", "coarse2", "uv-token"], CFG)
    assert [type(m).__name__ for m in ms] == ["UVMechanism", "CoarseL1Mechanism",
                                              "DarsieMechanism", "WarpLifetimes"]
    ms = make_mechanisms(["uv-token", "ilp-sc"], CFG)
    assert type(ms[0]).__name__ == "ILPScoreboardMechanism"   # operand supplier first


def test_uv_claims_elimination_only_when_it_eliminates():
    (uv,) = make_mechanisms(["uv"], CFG)
    (tok,) = make_mechanisms(["uv-token"], CFG)
    assert claims.ELIMINATION in claims.claims_of(uv)
    assert claims.ELIMINATION not in claims.claims_of(tok)
    assert _status("darsie", "uv-token") is None


# ------------------------------------------------------------------ runs
@pytest.mark.parametrize("pair", FAMILY_PAIRS, ids="+".join)
def test_allowed_family_pair_leaves_outputs_identical(pair, shrink_small):
    shrink_small.tiny("HS")
    _check_pair("HS", pair)


def test_darsie_skips_never_reach_gscalar_issue(shrink_small):
    """DARSIE skips at fetch, so G-Scalar classifies exactly the instructions that issue:
    its instruction count alone = composed count + the skipped ones (HS's instruction
    stream does not depend on timing), and it is told of every skip."""
    shrink_small.tiny("HS")
    alone = _run("HS", ["gscalar"])["timing"]["mechanism"]
    both = _run("HS", ["darsie", "gscalar"])
    m = both["timing"]["mechanism"]
    assert m["darsie.skipped"] > 0
    assert m["gscalar.skipped"] == m["darsie.skipped"]
    assert 0 < m["gscalar.skipped_scalar"] <= m["gscalar.skipped"]
    assert alone["gscalar.instructions"] == m["gscalar.instructions"] + m["darsie.skipped"]
    assert both["timing"]["instructions_issued"] == m["gscalar.instructions"]
    assert not any(k.endswith(".skipped") for k in alone)   # no new counter when alone


def test_uv_tokens_follow_skipped_instructions(shrink_small):
    shrink_small.tiny("HS")
    m = _run("HS", ["darsie", "uv-token"])["timing"]["mechanism"]
    assert m["uv.skipped"] == m["darsie.skipped"] > 0
    assert 0 < m["uv.skipped_uniform"] <= m["uv.skipped"]


def test_composed_statistics_are_deterministic(shrink_small):
    shrink_small.tiny("HS")
    a = _run("HS", ["darsie", "gscalar"])
    b = _run("HS", ["gscalar", "darsie"])
    assert a["timing"] == b["timing"] and a["cycles"] == b["cycles"]
    assert a["output_digest"] == b["output_digest"]


def test_cli_runs_the_acceptance_pair(shrink_small, capsys):
    from golden.cli import main
    shrink_small.tiny("HS")
    rc = main(["run", "HS", "--mode", "timing", "--mechanism", "darsie", "--mechanism",
               "gscalar", "--size", "small", "--config", "pascal"])
    out = capsys.readouterr().out
    assert rc in (0, None) and "MATCH" in out


# ------------------------------------------------------------------ report
def test_compose_report_lists_every_pair_once_and_renders_missing_results():
    from golden.report import compose
    from golden.report.runner import ReportOptions
    opts = ReportOptions(size="small")
    js = compose.jobs(opts)
    assert len({j.key for j in js}) == len(js)
    assert all(len(j.mechanisms) <= 2 for j in js)
    md, data = compose.render({}, opts)
    refused = {tuple(x["pair"]) for x in data["configs"]["pascal"]["refused"]}
    assert ("DARSIE", "CAPRI") in refused and ("UV", "G-Scalar") in refused
    assert ("DARSIE", "G-Scalar") not in refused
    assert "refused" in md and "missing" in md


# ------------------------------------------------------------------ sweep
SWEEP_WORKLOADS = ("HS", "BFS", "MM")


@pytest.mark.sweep
@pytest.mark.parametrize("workload", SWEEP_WORKLOADS)
@pytest.mark.parametrize("pair", ALLOWED, ids="+".join)
def test_sweep_every_allowed_pair_leaves_outputs_identical(pair, workload, shrink_small):
    shrink_small.tiny(workload)
    _check_pair(workload, pair)
