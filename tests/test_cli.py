"""The simtlab command: list, run, characterise, clean errors."""

import json

import pytest

from golden.cli import main


def test_list_names_every_workload(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("MM", "HS", "BFS", "NQU", "ST"):
        assert f"\n{name} " in out


def test_run_prints_summary_and_writes_json(tmp_path, capsys):
    js = tmp_path / "mm.json"
    assert main(["run", "mm", "--size", "small", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "warp instructions" in out and "SIMD utilisation" in out
    d = json.loads(js.read_text())
    assert d["outputs_match"] and d["warp_instructions"] > 0 and d["workload"] == "MM"
    assert d["cpu_seconds"] > 0
    assert f"host CPU time (whole run)  : {d['cpu_seconds']:.2f} s" in out


def test_timing_run_reports_speed_per_cpu_second_beside_wall_time(tmp_path, capsys):
    js = tmp_path / "va.json"
    assert main(["run", "VA", "--mode", "timing", "--config", "gtx285", "--size", "small",
                 "--json", str(js)]) == 0
    out = capsys.readouterr().out
    d = json.loads(js.read_text())
    rate = d["timing"]["instructions_executed"] / d["cpu_seconds"]
    assert "host time" in out and f"({rate:,.0f} warp-inst per CPU-s)" in out


def test_unknown_workload_is_a_clean_error(capsys):
    assert main(["run", "NOPE"]) == 2
    err = capsys.readouterr().err
    assert "NOPE" in err and "MM" in err and "Traceback" not in err


def test_characterise_small_subset_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main(["characterise", "--size", "small", "-j", "1", "--only", "MM", "BFS",
                     "--out", str(out)]) == 0
    ra = json.loads((a / "characterisation.json").read_text())
    rb = json.loads((b / "characterisation.json").read_text())
    for x in ra + rb:
        x.pop("wall_seconds"), x.pop("cpu_seconds")  # host time, not a statistic
    assert ra == rb and [r["workload"] for r in ra] == ["BFS", "MM"]


def test_list_occupancy_shows_limiters_and_waves(tmp_path, capsys):
    js = tmp_path / "occ.json"
    assert main(["list", "--occupancy", "gtx285", "--size", "small", "--size", "paper",
                 "--only", "MM", "SR1", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "gtx285" in out and "limited by" in out and "main waves" in out
    rows = {(r["workload"], r["size"]): r for r in json.loads(js.read_text())}
    assert set(rows) == {("MM", "small"), ("MM", "paper"), ("SR1", "small"), ("SR1", "paper")}
    mm = rows["MM", "small"]["kernels"][0]
    # 1024-thread TBs on a 16K-register SM: registers clamped, one TB per SM
    assert mm["tbs_per_sm"] == 1 and mm["regs_per_thread"] == 16 and mm["regs_clamped_from"] > 16
    assert mm["tbs_min"] == 4 and abs(rows["MM", "small"]["main_waves"] - 4 / 30) < 1e-9
    assert "16<" in out                       # the clamp is shown as "after<before"
    assert len(rows["SR1", "paper"]["kernels"]) == 5 and "(all)" in out
    assert rows["MM", "paper"]["main_waves"] >= 2      # MM paper: 121 TBs, 4 waves here


def test_list_occupancy_unknown_config_is_a_clean_error(capsys):
    assert main(["list", "--occupancy", "nope", "--only", "MM"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["run", "MM", "--seed", "-1"],
                                  ["report", "ilp", "--seed", "x"]])
def test_bad_seed_is_a_usage_error_not_a_traceback(argv, capsys):
    """Issue 19 item 8: --seed -1 used to raise numpy's ValueError after loading."""
    from golden.cli import main
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert "seed must be" in capsys.readouterr().err


@pytest.mark.parametrize("make,argv,msg", [
    (lambda d: d, lambda d: ["run", "MM", "--json", str(d)], "is a directory"),
    (lambda d: d, lambda d: ["run", "MM", "--json", str(d) + "/"], "is a directory"),
    (lambda d: (d / "afile").write_text("x"), lambda d: ["run", "MM", "--json",
                                                          str(d / "afile" / "sub" / "r.json")],
     "is a file, not a directory"),
    (lambda d: (d / "afile").write_text("x"), lambda d: ["characterise", "--out",
                                                          str(d / "afile")],
     "is a file, not a directory"),
    (lambda d: (d / "afile").write_text("x"), lambda d: ["darsie-limit", "MM", "--json",
                                                          str(d / "afile" / "x.json")],
     "is a file, not a directory"),
], ids=["json-dir", "json-slash", "json-under-file", "out-is-file", "darsie-json-under-file"])
def test_bad_output_paths_are_refused_before_simulating(tmp_path, capsys, make, argv, msg):
    """Issue 19 item 9: --json into a directory failed only after the whole run and left
    a .tmp file behind. Output paths are now argparse types checked before any work."""
    make(tmp_path)
    before = set(tmp_path.rglob("*"))
    with pytest.raises(SystemExit) as ei:
        main(argv(tmp_path))
    assert ei.value.code == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err
    assert set(tmp_path.rglob("*")) == before             # nothing written, no .tmp file


def test_failed_write_leaves_no_temp_file(tmp_path, monkeypatch):
    """Issue 19 item 9: a write that fails at the end removes its temporary file and is a
    SimtlabError (a clean 'simtlab: error:'), not an OSError traceback."""
    import os

    from golden.errors import SimtlabError
    from golden.fileio import write_output

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(SimtlabError, match="cannot write .*out.json: Permission denied"):
        write_output(tmp_path / "out.json", "{}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["characterise", "-j", "0"], ["gscalar-stats", "-j", "0"], ["report", "ilp", "-j", "-2"],
    ["validate", "--jobs", "0"], ["characterise", "-j", "x"],
], ids=["characterise-0", "gscalar-0", "report-neg", "validate-0", "characterise-x"])
def test_jobs_must_be_positive_in_every_command(argv, capsys):
    """Issue 19 item 15: characterise -j 0 was clamped to 1 while gscalar-stats -j 0 was
    rejected after loading; every -j/--jobs is now one argparse type (a usage error)."""
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert "jobs must be a positive integer" in capsys.readouterr().err


@pytest.mark.parametrize("extra,msg", [
    (["--config", "gtx480"], "--config needs --mode timing"),
    (["--mechanism", "darsie"], "--mechanism needs --mode timing"),
    (["--config", "gtx480", "--mechanism", "darsie", "--mode", "functional"],
     "--config and --mechanism need --mode timing"),
])
def test_timing_options_without_timing_mode_are_refused(extra, msg, capsys):
    """Issue 19 item 14: run --config/--mechanism were silently ignored in functional mode."""
    with pytest.raises(SystemExit) as ei:
        main(["run", "MM", *extra])
    assert ei.value.code == 2
    assert msg in capsys.readouterr().err


def test_locality_prints_the_table_and_writes_json(tmp_path, capsys):
    js = tmp_path / "va.json"
    assert main(["locality", "VA", "--windows", "1..16,64", "--neighbourhoods", "128..512",
                 "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "VA (small, seed 0) on gtx480_coarse" in out and "L1 accesses" in out
    lines = out.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.strip().startswith("W \\ N"))
    assert lines[head].split()[-3:] == ["128", "256", "512"]
    assert [ln.split()[0] for ln in lines[head + 1:head + 7]] == ["1", "2", "4", "8", "16", "64"]
    d = json.loads(js.read_text())
    assert d["windows"] == [1, 2, 4, 8, 16, 64] and d["neighbourhoods"] == [128, 256, 512]
    assert d["outputs_match"] and d["accesses"] > 0 and d["unit"] == "line"
    p = d["prob"]
    assert all(p[i][k] <= p[i + 1][k] for i in range(5) for k in range(3))
    assert all(row[k] <= row[k + 1] for row in p for k in range(2))
    assert p[-1][1] > 0.3       # VA: the other half of a 256 B pair is read soon after


def test_locality_sector_unit_loads_only_and_fetch_group(capsys):
    assert main(["locality", "VA", "--unit", "sector", "--loads-only", "--merged",
                 "--fetch-group", "2", "--windows", "1,2", "--neighbourhoods", "32..64"]) == 0
    out = capsys.readouterr().out
    assert "L1 fetch group 2" in out and "(load; one per 32 B sector; one stream" in out
    assert out.splitlines()[-2].split()[0] == "1"


@pytest.mark.parametrize("argv,msg", [
    (["--windows", "3"], "3 is not a power of two"),
    (["--windows", "8..2"], "empty range"),
    (["--neighbourhoods", "64,32"], "must increase"),
    (["--windows", "x"], "is not a power of two or a range"),
    (["--fetch-group", "3"], "invalid choice"),
])
def test_locality_bad_arguments_are_usage_errors(argv, msg, capsys):
    with pytest.raises(SystemExit) as e:
        main(["locality", "VA", *argv])
    assert e.value.code == 2
    assert msg in capsys.readouterr().err


def test_locality_unknown_config_is_a_clean_error(capsys):
    assert main(["locality", "VA", "--config", "nope"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "Traceback" not in err


def test_run_watchdog_options(capsys):
    """Issue 19 item 6: --max-instructions / --max-cycles stop a run with the watchdog's
    report (a clean error, no traceback); --max-cycles needs timing mode."""
    assert main(["run", "MM", "--max-instructions", "5_000"]) == 2
    err = capsys.readouterr().err
    assert "more than 5,000 warp instructions" in err and "mm.ptx:" in err
    assert "Traceback" not in err
    assert main(["run", "MM", "--mode", "timing", "--max-cycles", "2e3"]) == 2
    err = capsys.readouterr().err
    assert "more than 2,000 cycles" in err and "mm.ptx:" in err and "Traceback" not in err
    for argv, msg in ((["--max-cycles", "100"], "--max-cycles needs --mode timing"),
                      (["--max-instructions", "0"], "expected a positive integer")):
        with pytest.raises(SystemExit) as ei:
            main(["run", "MM", *argv])
        assert ei.value.code == 2
        assert msg in capsys.readouterr().err


def test_bench_reference_loads_and_rejects_malformed_files(tmp_path):
    from golden.bench import REFERENCE, load_reference
    from golden.errors import ConfigError
    ref = load_reference(REFERENCE)
    assert ref[("MM", "baseline", "default")] > 0
    assert load_reference(tmp_path / "missing.yaml") == {}
    bad = tmp_path / "bad.yaml"
    bad.write_text("timing:\n  - {workload: MM}\n")
    with pytest.raises(ConfigError, match="bad.yaml: timing: expected a list"):
        load_reference(bad)


def test_bench_ir_parses_cases_and_rejects_bad_trees(tmp_path, capsys, monkeypatch):
    """make bench-ir: case syntax, and a clear error for a directory that is no source tree
    (the valgrind measurement itself is a benchmark, not a unit test)."""
    from golden import bench_ir
    assert bench_ir.parse_case("MM") == ("MM", ())
    assert bench_ir.parse_case("HS+darsie+gscalar") == ("HS", ("darsie", "gscalar"))
    monkeypatch.setattr(bench_ir.shutil, "which", lambda name: "/usr/bin/valgrind")
    assert bench_ir.main(["--tree", str(tmp_path), "MM"]) == 2
    assert "is not a simtlab source tree" in capsys.readouterr().err
    monkeypatch.setattr(bench_ir.shutil, "which", lambda name: None)
    assert bench_ir.main(["MM"]) == 2
    assert "valgrind not found" in capsys.readouterr().err


def test_shard_option_splits_the_collected_tests_exactly(tmp_path):
    """--shard I/N (tests/conftest.py, make test-sweep SHARD=I/N): the N shards of a run
    are disjoint and together hold every test; a bad spec is a usage error."""
    import subprocess
    import sys

    def ids(*extra):
        p = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                            "tests/test_configs.py", *extra], capture_output=True, text=True)
        return p.returncode, [ln for ln in p.stdout.splitlines() if "::" in ln]

    rc, every = ids()
    assert rc == 0 and len(every) > 6
    shards = [ids("--shard", f"{i}/3")[1] for i in (1, 2, 3)]
    assert sorted(sum(shards, [])) == sorted(every)
    assert all(len(s) >= len(every) // 3 for s in shards)
    rc, _ = ids("--shard", "0/3")
    assert rc == 4   # pytest's usage-error exit code
