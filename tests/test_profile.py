"""Per-PC profile of a timing run (issue 72 part 1): golden/timing/pc_profile.py,
golden/report/profile*.py and ``simtlab profile``."""

import hashlib
import json
from pathlib import Path

import pytest

from golden.cli import main
from golden.report.profile import (DiffRow, InstructionRow, RunProfile, diff_profiles,
                                   profile_workload)
from golden.report.profile_lines import source_lines
from golden.report.profile_render import html_diff, html_listing, text_diff, text_listing
from golden.timing.stats import STALL_REASONS
from golden.workloads.cuda_tools import find_nvcc

FIXTURES = Path(__file__).parent / "fixtures" / "timing_stats"


@pytest.fixture(scope="module")
def mm_darsie():
    return profile_workload("MM", "small", 0, "pascal", ("darsie",), source_lines=False)


@pytest.fixture(scope="module")
def mm_baseline():
    return profile_workload("MM", "small", 0, "pascal", (), source_lines=False)


def test_profile_columns_sum_exactly_to_the_run_counters(mm_darsie):
    p = mm_darsie
    assert p.check() == []
    t = p.totals
    assert sum(r.issued for r in p.rows) == t["instructions_issued"]
    assert sum(r.executed for r in p.rows) == t["instructions_executed"]
    assert sum(r.skipped for r in p.rows) == t["instructions_skipped"] > 0
    assert sum(r.lanes for r in p.rows) == t["thread_instructions"]
    for reason in STALL_REASONS:
        assert sum(r.cycles[reason] for r in p.rows) == t["stalls"][reason]
    assert sum(r.total_cycles for r in p.rows) == t["scheduler_cycles"]
    # memory traffic and mechanism counters: rows + the unattributed row = the run's
    for name, field in (("l1_hits", "l1_hits"), ("l2_misses", "l2_misses"),
                        ("dram_bytes", "dram_bytes"), ("shared_cycles", "shared_accesses")):
        assert sum(r.mem.get(name, 0) for r in p.rows) == t[field]
    assert sum(r.mech.get("darsie.skipped", 0) for r in p.rows) == t["mechanism"]["darsie.skipped"]


def test_darsie_skips_are_attributed_to_instructions_not_the_leftover_row(mm_darsie):
    rest = [r for r in mm_darsie.rows if r.pc < 0]
    assert rest and all(r.skipped == 0 and r.issued == 0 for r in rest)
    assert all(r.cycles == {k: 0 for k in STALL_REASONS} for r in rest)
    skipped = [r for r in mm_darsie.rows if r.skipped]
    assert skipped and all(r.pc >= 0 and r.text for r in skipped)


@pytest.mark.parametrize("case,workload,config,mechs", [
    ("MM-pascal-darsie", "MM", "pascal", ("darsie",)),
    ("BFS-pascal", "BFS", "pascal", ()),
])
def test_profiling_leaves_cycles_counters_and_outputs_unchanged(case, workload, config, mechs,
                                                                request):
    want = json.loads((FIXTURES / f"{case}.json").read_text())
    p = (request.getfixturevalue("mm_darsie") if case == "MM-pascal-darsie"
         else profile_workload(workload, "small", 0, config, mechs, source_lines=False))
    got = json.loads(json.dumps(p.totals, sort_keys=True))
    assert got == want["timing"]
    assert p.cycles == want["cycles"]
    assert p.output_digest == want["output_digest"] and p.outputs_match
    assert p.launches == want["launches"]
    assert p.check() == []


def test_pc_profile_is_off_by_default():
    from golden.configs import load_config
    from golden.timing.gpu import GPU
    assert GPU(load_config("pascal")).pc_profiler is None


def _row(pc, cycles, kernel="k"):
    r = InstructionRow(kernel, pc, text=f"op{pc}")
    r.cycles["memory"] = cycles
    return r


def _profile(rows, mechs=()):
    return RunProfile("W", "small", 0, "c", mechs, 100, True, 1, 32, {}, rows)


def test_diff_sorts_by_cycles_gained_or_lost_largest_first():
    a = _profile([_row(0, 10), _row(8, 50), _row(16, 5), _row(24, 7)])
    b = _profile([_row(0, 30), _row(8, 20), _row(16, 5), _row(32, 9)], ("m",))
    d = diff_profiles(a, b)
    assert [(x.pc, x.gained) for x in d] == [(8, 30), (0, -20), (32, -9), (24, 7), (16, 0)]
    assert isinstance(d[0], DiffRow) and d[0].gained_by_reason()["memory"] == 30


def test_diff_of_darsie_against_baseline_names_skipped_instructions(mm_baseline, mm_darsie):
    d = diff_profiles(mm_baseline, mm_darsie)
    gains = [abs(x.gained) for x in d]
    assert gains == sorted(gains, reverse=True)
    assert sum(x.gained for x in d) == (mm_baseline.totals["scheduler_cycles"]
                                        - mm_darsie.totals["scheduler_cycles"])
    skipped = [x for x in d if x.b.skipped]
    assert skipped and all(x.a.skipped == 0 for x in skipped)
    text = text_diff(mm_baseline, mm_darsie, d, top=None)
    page = html_diff(mm_baseline, mm_darsie, d)
    for x in skipped:
        assert f"{x.pc:#06x}" in text and f"skipped {x.b.skipped:,}" in text
        assert f"<td>{x.pc:#06x}</td>" in page
    assert "instructions B skipped (not issued)" in text


def test_html_views_are_self_contained(mm_darsie, mm_baseline):
    for page in (html_listing(mm_darsie), html_diff(mm_baseline, mm_darsie,
                                                    diff_profiles(mm_baseline, mm_darsie))):
        assert page.startswith("<!DOCTYPE html>")
        low = page.lower()
        assert "http://" not in low and "https://" not in low and "<script" not in low
        assert "src=" not in low and "<link" not in low


def test_text_listing_lists_every_instruction_in_pc_order(mm_darsie):
    text = text_listing(mm_darsie)
    pcs = [r.pc for r in mm_darsie.rows if r.pc >= 0]
    assert pcs == sorted(pcs)
    pos = [text.index(f"{pc:#06x}  ") for pc in pcs]
    assert pos == sorted(pos)
    assert "MATCH" in text


PTX = """//
// banner
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(
)
{
\tmov.u32 \t%r1, %tid.x;
\tadd.s32 \t%r2, %r1, 1;
\tret;
}
"""
LINEINFO = """//
// banner (other build)
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(
)
{
\t.loc\t1 3 5
\tmov.u32 \t%r1, %tid.x;
\t.loc\t2 9 1, function_name $L__info_string0, inlined_at 1 4 7
\tadd.s32 \t%r2, %r1, 1;
\t.loc\t1 5 1
\tret;
}
\t.file\t1 "{cu}"
\t.file\t2 "/usr/include/header.h"
\t.section\t.debug_str
\t{{
$L__info_string0:
.b8 95,0
\t}}
"""


def _lineinfo_case(tmp_path, lineinfo_text):
    cu = tmp_path / "k.cu"
    cu.write_text("// 1\n// 2\nint a = threadIdx.x;\nint b = f(a);\n}\n")
    ptx = tmp_path / "k.ptx"
    ptx.write_text(PTX)
    cache = tmp_path / "cache"
    cache.mkdir()
    key = hashlib.sha256(cu.read_bytes() + b"\0" + ptx.read_bytes()).hexdigest()[:16]
    (cache / f"k-{key}.ptx").write_text(lineinfo_text.replace("{cu}", str(cu))
                                        .replace("{{", "{").replace("}}", "}"))
    return source_lines(ptx, cu, cache), PTX.splitlines()


def test_source_lines_follow_loc_and_prefer_the_kernels_own_file(tmp_path):
    smap, lines = _lineinfo_case(tmp_path, LINEINFO)
    assert smap.note == ""
    at = {lines[i - 1].split()[0]: smap.at(i) for i in smap.lines}
    assert at["mov.u32"] == ("k.cu", 3, "int a = threadIdx.x;")
    assert at["add.s32"] == ("k.cu", 4, "int b = f(a);")   # inlined: the kernel's call site
    assert at["ret;"] == ("k.cu", 5, "}")


def test_source_lines_show_a_header_beside_the_kernel_not_the_call_site(tmp_path):
    header = tmp_path / "algo.cuh"
    header.write_text("\n" * 8 + "return a + 1;\n")
    smap, lines = _lineinfo_case(tmp_path, LINEINFO.replace("/usr/include/header.h", str(header)))
    at = {lines[i - 1].split()[0]: smap.at(i) for i in smap.lines}
    assert at["add.s32"] == ("algo.cuh", 9, "return a + 1;")   # inlined from the kernel's header
    assert at["mov.u32"] == ("k.cu", 3, "int a = threadIdx.x;")


def test_source_lines_skip_instructions_that_differ_from_the_lineinfo_build(tmp_path):
    smap, lines = _lineinfo_case(tmp_path, LINEINFO.replace("add.s32 \t%r2, %r1, 1;",
                                                            "add.s32 \t%r2, %r1, 2;"))
    mapped = {lines[i - 1].split()[0] for i in smap.lines}
    assert "add.s32" not in mapped and "mov.u32" in mapped
    assert "differ from its -lineinfo build" in smap.note


@pytest.mark.skipif(find_nvcc() is None, reason="needs nvcc for the -lineinfo build")
def test_mm_profile_has_cuda_source_lines():
    p = profile_workload("MM", "small", 0, "pascal", (), source_lines=True)
    assert p.source_note == ""
    mapped = [r for r in p.rows if r.pc >= 0 and r.source]
    assert len(mapped) >= 0.9 * sum(1 for r in p.rows if r.pc >= 0 and r.text.strip())
    # the kernel's own sources: mm.cu and the tiled algorithm it includes from beside it
    assert {r.source[0] for r in mapped} == {"mm.cu", "mm_tiled.cuh"}
    assert any(r.text.startswith("ld.global") and r.source[0] == "mm_tiled.cuh"
               and "A[a + wA * ty + tx]" in r.source[2] for r in mapped)
    lines = p.line_rows()
    assert len(lines) == len({r.source[:2] for r in mapped})
    assert sum(r.executed for r in lines) == sum(r.executed for r in mapped)
    assert sum(r.total_cycles for r in lines) == sum(r.total_cycles for r in mapped)


@pytest.mark.parametrize("argv,needle", [
    (["profile", "NOPE"], "unknown workload 'NOPE'"),
    (["profile", "MM", "--mechanism", "nope"], "unknown mechanism 'nope'"),
    (["profile", "MM", "--diff", "nope"], "unknown mechanism 'nope'"),
    (["profile", "MM", "--config", "nope"], "nope"),
])
def test_bad_profile_input_is_a_one_line_error(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simtlab: error:") and needle in err and "\n" not in err


def test_profile_cli_writes_text_html_and_json(tmp_path, capsys):
    html_out, json_out = tmp_path / "p.html", tmp_path / "p.json"
    rc = main(["profile", "MM", "--mechanism", "darsie", "--diff", "baseline", "--top", "5",
               "--no-source-lines", "--html", str(html_out), "--json", str(json_out)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "gained" in out and "more instruction(s)" in out
    d = json.loads(json_out.read_text())
    assert d["a"]["mechanisms"] == [] and d["b"]["mechanisms"] == ["darsie"]
    assert html_out.read_text().startswith("<!DOCTYPE html>")


def test_run_profile_option_profiles_that_same_run(tmp_path, mm_darsie, capsys):
    """``simtlab run --mode timing --profile F`` writes the profile of the run it reports:
    the profile's cycles and columns equal the run's JSON, which equals an unprofiled
    run's, and the rows equal ``simtlab profile``'s."""
    prof, summary, plain = tmp_path / "p.json", tmp_path / "run.json", tmp_path / "plain.json"
    assert main(["run", "MM", "--mode", "timing", "--mechanism", "darsie", "--json",
                 str(summary), "--profile", str(prof)]) == 0
    assert main(["run", "MM", "--mode", "timing", "--mechanism", "darsie", "--json",
                 str(plain)]) == 0
    assert f"wrote the per-PC profile to {prof}" in capsys.readouterr().out
    p, d, d0 = (json.loads(f.read_text()) for f in (prof, summary, plain))
    assert p["cycles"] == d["cycles"] == d0["cycles"] == mm_darsie.cycles
    assert d["timing"] == d0["timing"]
    assert sum(r["issued"] for r in p["rows"]) == d["timing"]["instructions_issued"]
    assert [(r["pc"], r["issued"]) for r in p["rows"]] == \
        [(r.pc, r.issued) for r in mm_darsie.rows]
    text = tmp_path / "p.txt"
    assert main(["run", "MM", "--mode", "timing", "--profile", str(text)]) == 0
    assert text.read_text().startswith("MM (small, seed 0) on pascal")


@pytest.mark.parametrize("extra,needle", [
    ([], "--profile needs --mode timing"),
    (["--mode", "timing", "--sample"], "--profile and --sample do not go together"),
])
def test_run_profile_option_refuses_modes_without_per_pc_cycles(extra, needle, capsys):
    assert main(["run", "MM", "--profile", "x.txt", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simtlab: error:") and needle in err and "\n" not in err
