"""``energy.structures: rtl`` (issue 69, item 3): the RTL-measured energy table, its loading
and validation, and that the option changes DARSIE's, G-Scalar's and UV's energy figures
and nothing else."""

from dataclasses import replace

import pytest
import yaml

from golden.configs import load_config
from golden.errors import ConfigError
from golden.timing.rtl_energy import (ACTIVITY_ASSUMED, DEFAULT_PATH, Charge, load_rtl_energy,
                                      with_structures)


def _all_charges():
    from golden.mechanisms.darsie.structure_energy import RTL_CHARGES as DARSIE
    from golden.mechanisms.gscalar.timing import RTL_CHARGES as GSCALAR
    from golden.mechanisms.uv.energy import RTL_CHARGES as UV
    return ([c for m in DARSIE.values() for c in m.values()] + list(GSCALAR.values())
            + list(UV.values()))


# ----------------------------------------------------------------------------- the table
def test_committed_table_has_every_charge_with_provenance_and_scales_to_the_paper_nodes():
    t = load_rtl_energy()
    t.check(_all_charges())                       # every charge the mechanisms name is there
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    assert raw["tools"]["opensta"].startswith("sta ") and "Yosys" in raw["tools"]["yosys"]
    assert "osu018" in raw["tools"]["liberty"] and raw["scaling"]["rule"]
    # the mechanisms' structures are scaled to their papers' nodes: DARSIE 16 nm, G-Scalar
    # and UV 40 nm; (node / 180) x (1.0 V / 1.8 V)^2
    for target, node in (("darsie_skip_table_32tb", 16), ("gscalar_compressor_32", 40),
                         ("uv_irb_8_v64", 40)):
        assert t.node_nm(target) == node
        assert t.scale(node) == pytest.approx(node / 180 * (1.0 / 1.8) ** 2)
    c = Charge("darsie_version_table_1tb", "ins_en")
    assert t.per_access_pj(c) == pytest.approx(t.pj_180nm(c) * 16 / 180 / 1.8 ** 2)
    assert t.method(c) == "trace"
    assert t.method(Charge("cam_8x10", ACTIVITY_ASSUMED)) == ACTIVITY_ASSUMED
    assert t.pj_180nm(Charge("cam_8x10", ACTIVITY_ASSUMED)) > 0
    # trace rows carry their traces
    assert raw["targets"]["darsie_skip_table_32tb"]["trace"]["workloads"] == ["DCT", "HS", "MM"]


def _table_file(tmp_path, **edit):
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    for k, v in edit.items():
        raw[k] = v
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(raw))
    return p


def test_table_loading_errors_name_the_problem(tmp_path):
    with pytest.raises(ConfigError, match="cannot read the RTL energy table"):
        load_rtl_energy(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="not an RTL energy table"):
        load_rtl_energy(_table_file(tmp_path, format="other/1"))
    with pytest.raises(ConfigError, match="'targets' must map"):
        load_rtl_energy(_table_file(tmp_path, targets=[1, 2]))
    with pytest.raises(ConfigError, match="'scaling' needs"):
        load_rtl_energy(_table_file(tmp_path, scaling={"rule": "x"}))


def test_a_charge_the_table_lacks_is_a_clear_error(tmp_path):
    t = load_rtl_energy()
    with pytest.raises(ConfigError, match="has no target 'no_such_target'"):
        t.per_access_pj(Charge("no_such_target", "rd0_en"))
    with pytest.raises(ConfigError, match="has no traced operation 'wr_op=9'.*traced: .*ins_en"):
        t.per_access_pj(Charge("darsie_version_table_1tb", "wr_op=9"))
    with pytest.raises(ConfigError, match="no supply voltage for 55 nm"):
        t.scale(55)
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    raw["targets"]["darsie_version_table_1tb"]["trace"]["ops"]["ins_en"]["pj"] = -1.0
    del raw["targets"]["gscalar_compressor_32"]
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(raw))
    bad = load_rtl_energy(p)
    with pytest.raises(ConfigError, match="ins_en: pj must be a non-negative number"):
        bad.per_access_pj(Charge("darsie_version_table_1tb", "ins_en"))
    with pytest.raises(ConfigError, match="has no target 'gscalar_compressor_32'"):
        bad.check([Charge("darsie_version_table_1tb", "idle"),
                   Charge("gscalar_compressor_32", "compress")])


def test_energy_structures_option_is_validated_and_defaults_to_papers():
    assert load_config("gtx480").energy.structures == "papers"
    assert load_config("gtx480", {"energy.structures": "rtl"}).energy.structures == "rtl"
    with pytest.raises(ConfigError, match="energy.structures"):
        load_config("gtx480", {"energy.structures": "measured"})
    with pytest.raises(ConfigError, match="must be one of papers, rtl"):
        with_structures(load_config("gtx480"), "measured")


def test_energy_table_writer_takes_the_measurements_and_refuses_strays():
    from synth.energy_table import build_table, merge_areas
    from synth.errors import SynthError
    area = {"flow": "liberty", "yosys": ["Yosys 0.70"], "liberty": {"file": "x/osu018_stdcells.lib",
                                                                     "node_nm": 180.0},
            "targets": {"t": {"component": "c", "params": {"n": 1},
                              "sta": {"energy_pj": 10.0, "activity": 0.5, "period_ns": 100.0,
                                      "leakage_w": 1e-9},
                              "cycle_budget": {"gpu": "gtx480", "node_nm": 40.0}}}}
    traces = {"t": {"workloads": ["MM"], "cycles": {"all": 3, "a_en": 2, "idle": 1},
                    "flops_matched": 4, "flop_bits": 4,
                    "energy_pj": {"all": 7.0, "a_en": 8.0, "idle": 5.0, "clock only": 5.0},
                    "energy_above_clock_pj": {"all": 2.0, "a_en": 3.0, "idle": 0.0}}}
    table = build_table(area, traces, generated="today")
    row = table["targets"]["t"]
    assert row["activity_assumed"]["pj"] == 10.0 and row["paper_node_nm"] == 40.0
    assert row["trace"]["ops"] == {"a_en": {"pj": 3.0, "cycles": 2}, "idle": {"pj": 0.0, "cycles": 1}}
    assert row["trace"]["clock_only_pj"] == 5.0
    with pytest.raises(SynthError, match="not in area.json: u"):
        build_table(area, {**traces, "u": traces["t"]})
    # a target whose OpenSTA power report failed (NaN, as on the SRF map) gets no row
    nan = {**area["targets"]["t"], "sta": {**area["targets"]["t"]["sta"],
                                           "energy_pj": float("nan"), "leakage_w": float("nan")}}
    table = build_table({**area, "targets": {**area["targets"], "nan_target": nan}}, traces)
    assert set(table["targets"]) == {"t"}
    with pytest.raises(SynthError, match="cannot be merged"):
        merge_areas([area, {**area, "yosys": ["Yosys 0.1"]}])


def test_energy_table_provenance_is_repository_relative_and_names_the_regenerating_command(
        tmp_path, monkeypatch, capsys):
    """The writer records its inputs relative to the repository with their SHA-256, the
    command line that read them and ``make synth-energy``; no absolute path, no build-machine
    compiler path; an input outside the repository is a one-line error."""
    import hashlib
    import json

    from synth import energy_table
    from synth.errors import SynthError
    repo = tmp_path / "repo"
    (repo / "build" / "synth").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    banner = ("Yosys 0.70 (git sha1 28ba3cb92, Release, Clang /workspace/YoWASP/yosys/"
              "wasi-sdk-33.0-x86_64-linux/share/cmake/../..//bin/clang++ 22.1.0)")
    area = {"flow": "liberty", "yosys": [banner],
            "liberty": {"file": str(tmp_path / "abs" / "osu018_stdcells.lib"), "node_nm": 180.0},
            "targets": {"t": {"component": "c", "params": {},
                              "sta": {"energy_pj": 10.0, "activity": 0.5, "period_ns": 100.0,
                                      "leakage_w": 1e-9},
                              "cycle_budget": {"gpu": "gtx480", "node_nm": 40.0}}}}
    traces = {"t": {"workloads": ["MM"], "cycles": {"all": 1, "a_en": 1},
                    "flops_matched": 0, "flop_bits": 0, "energy_pj": {"clock only": 0.0},
                    "energy_above_clock_pj": {"a_en": 3.0}}}
    a, t = repo / "build" / "synth" / "area.json", repo / "build" / "synth" / "trace_energy.json"
    a.write_text(json.dumps(area))
    t.write_text(json.dumps(traces))
    monkeypatch.setattr(energy_table, "REPO", repo)
    monkeypatch.chdir(repo)
    out = tmp_path / "table.yaml"
    assert energy_table.main(["--area", "build/synth/area.json", "--traces", str(t),
                              "--out", str(out)]) == 0
    text = out.read_text()
    raw = yaml.safe_load(text)
    assert raw["regenerate"] == "make synth-energy"
    assert raw["inputs"] == [
        {"path": "build/synth/area.json", "sha256": hashlib.sha256(a.read_bytes()).hexdigest()},
        {"path": "build/synth/trace_energy.json",
         "sha256": hashlib.sha256(t.read_bytes()).hexdigest()}]
    assert raw["generated_by"] == ("python -m synth.energy_table --area build/synth/area.json "
                                   "--traces build/synth/trace_energy.json")
    assert raw["tools"]["yosys"] == "Yosys 0.70 (git sha1 28ba3cb92)"
    assert raw["tools"]["liberty"].startswith("osu018_stdcells.lib ")
    assert str(tmp_path) not in text and "/workspace" not in text
    assert raw["targets"]["t"]["trace"]["ops"] == {"a_en": {"pj": 3.0, "cycles": 1}}
    # a measurement outside the repository (e.g. /tmp) is refused with one line
    stray = outside / "trace_energy.json"
    stray.write_text(json.dumps(traces))
    assert energy_table.main(["--area", str(a), "--traces", str(stray), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "outside the repository" in err and "make synth-energy" in err
    with pytest.raises(SynthError, match="outside the repository"):
        energy_table.input_record(stray, root=repo)


# ----------------------------------------------------------------------------- the option
def _rtl(cfg):
    return with_structures(cfg, "rtl")


def test_gscalar_rtl_changes_only_the_added_logic_energy():
    from golden.mechanisms.gscalar.timing import energy_report
    from golden.report.runner import TimingJob, run_job
    from golden.timing.stats import TimingStats
    r = run_job(TimingJob("BS", "gtx480", mechanisms=("gscalar",)))
    cfg = load_config("gtx480")
    st = TimingStats.from_dict(r["timing"])
    p, q = energy_report(st, cfg, "gscalar"), energy_report(st, _rtl(cfg), "gscalar")
    assert [c.name for c in p.components] == [c.name for c in q.components]
    for a, b in zip(p.components, q.components):
        if a.name == "gscalar_logic":
            assert a.joules != b.joules and all("our RTL" in t.source for t in b.terms)
        else:
            assert a.joules == b.joules, a.name


def test_uv_rtl_changes_only_the_irb_terms():
    from golden.mechanisms.uv.energy import UVEnergyParams, energy_params, uv_energy
    cfg = load_config("gtx285")
    assert energy_params(cfg) == UVEnergyParams()
    rtl = energy_params(_rtl(cfg))
    assert rtl.irb_lookup_pj != 1.0 and rtl.irb_update_pj != 1.0
    assert replace(rtl, irb_lookup_pj=1.0, irb_update_pj=1.0) == UVEnergyParams()
    counters = {"uv.irb_lookups": 10, "uv.irb_misses": 3, "uv.srf_reads": 5}
    kw = dict(sm_cycles=100, clock_mhz=1300.0, rf_write_pj=1.0, design="srf", irb=True)
    a, b = uv_energy(counters, params=energy_params(cfg), **kw), uv_energy(counters, params=rtl, **kw)
    changed = {k for k in a["terms"] if a["terms"][k] != b["terms"][k]}
    assert changed == {"irb_lookups", "irb_updates"}


def test_darsie_rtl_changes_the_structure_energy_and_nothing_else():
    from golden.report.runner import TimingJob, run_job
    job = TimingJob("DCT", "pascal", mechanisms=("darsie",))
    p = run_job(job)
    r = run_job(replace(job, overrides=(("energy.structures", "rtl"),)))
    assert p["cycles"] == r["cycles"] and p["output_digest"] == r["output_digest"]
    mp, mr = p["timing"]["mechanism"], r["timing"]["mechanism"]
    energy = {k for k in mr if ".energy_pj." in k}
    calls = {k for k in mr if ".calls." in k}
    assert calls and not any(".calls." in k for k in mp)      # counted only under rtl
    assert {k: v for k, v in mp.items() if k not in energy} == \
        {k: v for k, v in mr.items() if k not in energy | calls}
    for s in ("skip_table", "version_table", "pc_coalescer"):
        assert mp[f"darsie.energy_pj.{s}"] != mr[f"darsie.energy_pj.{s}"], s
    # the rename table and freelist have no trace energy: papers' per-bit constants in both
    for s in ("rename_table", "phys_freelist"):
        assert mp.get(f"darsie.energy_pj.{s}") == mr.get(f"darsie.energy_pj.{s}"), s
    tp, tr = dict(p["timing"]), dict(r["timing"])
    tp.pop("mechanism"), tr.pop("mechanism")
    assert tp == tr                                        # every timing counter identical
    assert p["energy"]["total_j"] != r["energy"]["total_j"]


def test_darsie_rtl_charges_cover_every_priced_method():
    from golden.mechanisms.darsie.structure_energy import RTL_CHARGES, transaction_bits
    from golden.structures.darsie import CoalescerParams, SkipTableParams, VersionTableParams
    params = {"skip_table": SkipTableParams(), "version_table": VersionTableParams(),
              "pc_coalescer": CoalescerParams()}
    for s, p in params.items():
        assert set(RTL_CHARGES[s]) == set(transaction_bits(s, p)), s


# ----------------------------------------------------------------------------- the reports
def test_uv_report_shows_the_energy_with_paper_and_rtl_structure_energies(shrink_small):
    from golden.report import uv
    from golden.report.runner import ReportOptions, run_job
    shrink_small.tiny("MM-UV")
    opts = ReportOptions(size="small")
    picked = [uv._job("MM-UV", opts, v) for v in (None, "uv-token", "uv-srf")]
    results = {j.key: run_job(j) for j in picked}
    md, data = uv.render(results, opts)
    assert "| variant | speedup | paper | total energy | RTL-measured |" in md
    assert "irb_lookup: 1 pJ (papers) vs" in md and "uv_irb_8_v64:lk_en" in md
    for v in ("token combined", "SRF combined"):
        assert data["geomean_energy_ratio_rtl"][v] != data["geomean_energy_ratio"][v]
    # cycles are the runs' own: one run, two pricings
    (row,) = data["rows"]
    assert row["token combined"]["speedup"] > 0


def test_gscalar_report_prices_the_added_logic_both_ways():
    from golden.report import gscalar
    from golden.report.runner import ReportOptions, run_job
    opts = ReportOptions(size="small")
    base = run_job(gscalar._job("BS", opts))
    runs = {v: run_job(gscalar._job("BS", opts, (v,))) for v in ("gscalar",)}
    row = gscalar.timing_row(base, runs)
    assert "rtl_error" not in row
    assert row["logic_gscalar"] != row["logic_rtl_gscalar"]
    assert row["ipcw_gscalar"] != row["ipcw_rtl_gscalar"]
    md = "\n".join(gscalar._rtl_logic_section([row]))
    assert "paper constants vs RTL-measured" in md and "| gscalar |" in md
    assert "compression 11.59 pJ (papers) vs" in md


def test_darsie_report_shows_structure_energy_with_paper_and_rtl_constants():
    from golden.report import darsie
    from golden.report.runner import ReportOptions, run_job
    opts = ReportOptions(size="small")
    jobs = [darsie._job("DCT", opts), darsie._job("DCT", opts, ("darsie",)),
            darsie._job("DCT", opts, ("darsie",), structures="rtl")]
    assert {j.key for j in jobs} <= {j.key for j in darsie.jobs(opts)}
    results = {j.key: run_job(j) for j in jobs}
    md = "\n".join(darsie._rtl_energy(results, opts, ["DCT"]))
    assert "paper constants vs RTL-measured" in md and "(same)" in md
    line = next(x for x in md.splitlines() if x.startswith("| DCT |"))
    cells = [c.strip() for c in line.split("|")[1:-1]]
    assert cells[2] != cells[3]                              # structures µJ papers vs RTL
    assert "| skip_table |" in md and "probe = rd0_en" in md


def test_gscalar_register_trace_becomes_compressor_and_decompressor_cycles(tmp_path):
    """synth/gscalar_traces.py: one compressor cycle per register write, one decompressor
    cycle per read of a written register, whose inputs rebuild the value the kernel read."""
    import numpy as np

    from golden.structures.gscalar.params import pack_lanes
    from golden.structures.gscalar.trace import READ, WRITE, RegisterTrace, record_register_trace
    from synth import gscalar_traces
    path = record_register_trace("MM", warps=(0,), max_events=300).save(tmp_path / "mm.npz")
    tr = RegisterTrace.load(path)
    comp = gscalar_traces.load(path, "gscalar_compressor")
    dec = gscalar_traces.load(path, "gscalar_decompressor")
    assert len(comp.cycles) == int(np.sum(tr.kind == WRITE)) > 0
    written, reads = set(), []
    for kind, slot, values in zip(tr.kind, tr.slot, tr.values):
        if kind == WRITE:
            written.add(int(slot))
        elif kind == READ and int(slot) in written:
            reads.append(pack_lanes(np.asarray(values, dtype=np.uint32)))
    assert dec.cycles and len(dec.cycles) == len(reads)
    assert any(ops.enc_groups for ops, _ in dec.cycles)       # some reads are compressed
    assert [out.values for _, out in dec.cycles] == reads     # the kernel's values rebuilt
