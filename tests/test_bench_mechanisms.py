"""``make bench``'s mechanism-speed rows (issue 68 item 4, golden/bench_mechanisms.py): every
registered mechanism is measured once, on its family's configuration, beside that
configuration's baseline from the same run."""

import pytest

from golden import bench_mechanisms as bm
from golden.errors import ConfigError
from golden.mechanisms import registry as mech_registry


def test_every_registered_mechanism_factory_has_one_row_on_a_known_config():
    cases = bm.mechanism_cases()
    names = [m for _, m in cases]
    assert len(names) == len(set(names))
    # one row per distinct factory: aliases (uv-token-combined = uv-token) measured once
    assert sorted({mech_registry.MECHANISMS[m] for m in names}) == \
        sorted(set(mech_registry.MECHANISMS.values()))
    for config, name in cases:
        assert config == bm.FAMILY_CONFIGS[bm.family(name)]


def test_mechanism_families_run_on_their_reports_configs():
    assert bm.config_of("darsie") == "pascal"
    assert bm.config_of("warpman-temp") == "gtx480_warpman"
    assert bm.config_of("coarse4") == "gtx480_coarse"
    assert bm.config_of("tbc") == "quadro_fx5800"
    assert bm.config_of("uv-srf") == "gtx285"


def test_a_family_without_a_config_is_a_config_error(monkeypatch):
    monkeypatch.setitem(mech_registry.MECHANISMS, "newmech", "golden.mechanisms.newfam.x:make")
    with pytest.raises(ConfigError, match="newmech.*FAMILY_CONFIGS"):
        bm.config_of("newmech")


def test_rows_compare_each_mechanism_with_its_baseline_of_the_same_run(shrink_small):
    shrink_small.tiny("MM")
    rows = bm.bench_mechanisms(("MM",), "small", repeats=1,
                               cases=[("pascal", "darsie"), ("gtx480", "gscalar")])
    assert [(r["config"], r["mechanism"]) for r in rows] == [
        ("pascal", "baseline"), ("pascal", "darsie"), ("gtx480", "baseline"), ("gtx480", "gscalar")]
    for base, mech in (rows[0:2], rows[2:4]):
        assert base["vs_base"] == 1.0 and base["cpu_ratio"] == 1.0
        assert mech["vs_base"] == mech["cpu_rate"] / base["cpu_rate"]
        assert mech["below_target"] == (mech["vs_base"] < bm.TARGET)
        assert mech["outputs_match"] and mech["warp_instructions"] > 0
