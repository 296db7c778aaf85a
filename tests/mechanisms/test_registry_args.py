"""Typed mechanism arguments and mechanism-set claims (issue 74 items 6, 7 and 9):
golden/mechanisms/arguments.py, golden/mechanisms/claims.py, golden/mechanisms/registry.py."""

import importlib
import json
from pathlib import Path

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms import claims
from golden.mechanisms.registry import MECHANISMS, make_mechanisms

CFG = load_config("gtx285")
ROOT = Path(__file__).resolve().parents[2]


def _one(text, cfg=CFG):
    (m,) = make_mechanisms([text], cfg)
    return m


def _refused(mechs, *words, cfg=CFG):
    """make_mechanisms refuses ``mechs`` with one line that contains every word."""
    with pytest.raises(ConfigError) as ei:
        make_mechanisms(mechs, cfg)
    msg = str(ei.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


# ------------------------------------------------------------------ item 6: booleans
OFF = ("off", "false", "no", "0", "OFF", "False")
ON = ("on", "true", "yes", "1", "TRUE")

#: (mechanism, key, how to read the value back from the built mechanism)
BOOLEANS = [
    ("uv-token", "eliminate", lambda m: m.p.eliminate),
    ("uv-token", "reliability", lambda m: m.p.reliability),
    ("warpman-temp", "temp", lambda m: m.params.temp),
    ("capri", "join", lambda m: m.join_single_path),
    ("gscalar", "inject_moves", lambda m: m.inject_moves),
    ("darsie", "free_dead", lambda m: m.params.free_dead),
    ("dac-ideal", "claim_at_fetch", lambda m: m.claim_at_fetch),
]


@pytest.mark.parametrize("name,key,read", BOOLEANS, ids=[f"{n}:{k}" for n, k, _ in BOOLEANS])
def test_boolean_arguments_take_every_spelling_of_off_and_on(name, key, read):
    cfg = load_config("pascal") if name.startswith(("darsie", "dac")) else CFG
    for word in OFF:
        assert read(_one(f"{name}:{key}={word}", cfg)) is False, word
    for word in ON:
        assert read(_one(f"{name}:{key}={word}", cfg)) is True, word
    _refused([f"{name}:{key}=maybe"], f"'{name}:{key}=maybe'", key,
             "true/false/on/off/yes/no/1/0", cfg=cfg)


def test_off_words_change_what_runs():
    """The issue's cases: each ``off`` now reaches the mechanism as False."""
    assert _one("warpman-temp:temp=off").params.temp is False
    assert _one("warpman-temp").params.temp is True
    assert _one("capri:join=off").join_single_path is False
    assert _one("capri").join_single_path is True
    assert _one("uv-token:eliminate=off").p == _one("uv-token").p
    assert _one("uv-token:eliminate=on").p.eliminate is True


def test_darsie_skip_tbs_zero_is_refused_not_plain_darsie():
    cfg = load_config("pascal")
    _refused(["darsie:skip_tbs=0"], "skip_tbs", "positive integer", cfg=cfg)
    assert _one("darsie:skip_tbs=2", cfg).params.skip_tbs == 2
    assert _one("darsie", cfg).params.skip_tbs is None


# ------------------------------------------------------------------ item 9: bad input
def test_non_integer_is_a_one_line_error_naming_mechanism_key_and_type():
    cfg = load_config("pascal")
    _refused(["darsie:skip_tbs=abc"], "'darsie:skip_tbs=abc'", "skip_tbs", "an integer", cfg=cfg)
    _refused(["ilp-sc:entries=4.0"], "entries", "an integer")
    _refused(["ilp-sc:entries=true"], "entries", "an integer")
    _refused(["uv-srf:srf_entries="], "srf_entries", "an integer")
    assert _one("ilp-sc:entries=+4").entries == 4


@pytest.mark.parametrize("text,key", [("coarse2:group=3", "group"), ("coarse4-duel:duel=false", "duel"),
                                      ("uv-token:design=srf", "design"), ("uv:eliminate=false", "eliminate"),
                                      ("warpman-temp:spatial=on", "spatial"),
                                      ("darsie:variant=darsie-ignore-store", "variant")])
def test_a_key_the_name_fixes_is_refused(text, key):
    _refused([text], f"'{text}'", f"{key} is set by the name '{text.split(':')[0]}'",
             cfg=load_config("pascal"))


def test_unknown_arguments_name_the_accepted_ones():
    _refused(["uv-token:reliabilty=off"], "unknown argument 'reliabilty'", "reliability=<bool>",
             "irb_entries=<int>")
    _refused(["darsie-no-cf-sync:x=1"], "darsie-no-cf-sync takes no arguments",
             cfg=load_config("pascal"))
    _refused(["ilp-bp-gshare:x=1"], "unknown argument 'x'", "deps=<word>")
    _refused(["ilp-bp-static:x=1"], "unknown argument 'x'", "layout=<word>")
    _refused(["darsie:trace_dir=x"], "unknown argument 'trace_dir'", cfg=load_config("pascal"))


def test_reliability_off_is_plain_uv_token():
    """Issue 74: ``uv-token:reliability=off`` ran with reliability on and failed inside a
    structure; it is now the plain token design."""
    assert _one("uv-token:reliability=off").p == _one("uv-token").p


def test_a_repeated_key_is_refused():
    _refused(["darsie:entries=4,entries=8"], "'entries' is given twice", cfg=load_config("pascal"))
    _refused(["ilp-sc:entries=4, entries=4"], "'entries' is given twice")


# ------------------------------------------------------------------ item 7: sets
@pytest.mark.parametrize("pair,claim", [
    (("tbc", "capri"), "warp formation"),
    (("uv-token", "uv-srf"), "issue"),
    (("coarse2", "coarse4"), "L1"),
    (("darsie", "capri"), "claims warp formation"),
    (("darsie", "uv"), "elimination"),
    (("gscalar", "uv-srf"), "register storage"),
    (("darsie", "ilp-sc"), "dependence tracking"),
    (("ilp-bp-static", "ilp-bp-gshare"), "fetch"),
    (("warpman-temp", "warpman-duel"), "TB dispatch"),
])
def test_conflicting_sets_are_refused_naming_both_and_the_claim(pair, claim):
    msg = _refused(list(pair), f"'{pair[0]}' and '{pair[1]}'", "cannot run together",
                   f"claim {claim}" if claim == "warp formation" else claim,
                   cfg=load_config("pascal"))
    assert "each " in msg or "assumes the baseline's" in msg


@pytest.mark.parametrize("mechs", [("darsie", "darsie"), ("darsie", "darsie:entries=4"),
                                   ("warp-lifetimes", "warp-lifetimes"),
                                   ("uv-token", "uv-token-combined")])
def test_the_same_mechanism_twice_is_refused(mechs):
    _refused(list(mechs), "the same mechanism twice", cfg=load_config("pascal"))


def test_every_mechanism_declares_known_claims_and_passive_ones_claim_nothing():
    """Claims name known parts, and the report's passive observers claim nothing. (A
    mechanism may claim nothing without being one of them: the observer skeleton of
    `simtlab new mechanism` counts events on every hook and steers none.)"""
    from golden.jobs.passive import PASSIVE
    cfg = load_config("pascal")
    for name in MECHANISMS:
        m = _one(name, cfg)
        assert type(m).claims <= claims.ALL, name
        if name in PASSIVE:
            assert not type(m).claims, name


def _report_mechanism_sets():
    """{(config, overrides, mechanisms)} of every report's jobs at every size,
    with hetero's concurrent ILP partitions."""
    from golden.report import REPORTS
    from golden.report.hetero import BASE, ILP_MECHANISMS
    from golden.report.runner import ReportOptions
    out = {(BASE, (), ILP_MECHANISMS)}
    for module in REPORTS.values():
        mod = importlib.import_module(module)
        for size in ("small", "default", "paper"):
            for j in mod.jobs(ReportOptions(size=size)):
                if getattr(j, "mechanisms", ()):
                    out.add((j.config, tuple(j.overrides), tuple(j.mechanisms)))
    return out


def test_every_report_job_mechanism_set_is_accepted():
    sets = _report_mechanism_sets()
    assert any(len(m) > 1 for _, _, m in sets), "no combined set: the test checks too little"
    for config, overrides, mechs in sorted(sets):
        cfg = load_config(config, dict(overrides) if overrides else None)
        assert len(make_mechanisms(mechs, cfg)) == len(mechs)


def test_every_archived_mechanism_spelling_still_parses():
    """The archive (results/runs) is keyed by the mechanism text as written: every stored
    set must still be accepted (nothing that parsed before may be refused now)."""
    sets = set()
    for f in (ROOT / "results" / "runs").glob("*.json"):
        d = json.loads(f.read_text())
        if d.get("mechanisms"):
            sets.add((d["config"], tuple(tuple(o) for o in d.get("overrides") or ()),
                      tuple(d["mechanisms"])))
    if not sets:
        pytest.skip("no archived results with mechanisms in this checkout")
    for config, overrides, mechs in sorted(sets):
        make_mechanisms(mechs, load_config(config, dict(overrides) if overrides else None))


# ------------------------------------------------------------------ the CLI
@pytest.mark.parametrize("mechs", [["uv-token:eliminate=maybe"], ["darsie:skip_tbs=abc"],
                                   ["coarse2:group=3"], ["tbc", "capri"]])
def test_cli_run_reports_bad_mechanisms_in_one_line(mechs, capsys):
    from golden.cli import main
    argv = ["run", "VA", "--mode", "timing", "--config", "gtx285"]
    for m in mechs:
        argv += ["--mechanism", m]
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err
    assert rc in (1, 2)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert mechs[-1] in err
