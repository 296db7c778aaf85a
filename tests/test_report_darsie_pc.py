"""The per-PC DARSIE breakdown (golden/report/darsie_pc.py, issue 67 point 6): the limit
study's per-PC arrays, their join with a profiled DARSIE timing run, and `simtlab darsie-pcs`."""

import json

import pytest

from golden.mechanisms.darsie.limit_study import study_workload
from golden.report import darsie_pc
from golden.report.profile import profile_workload


@pytest.fixture(scope="module")
def fw_runs():
    lim = study_workload("FW", size="small")
    prof = profile_workload("FW", size="small", mechanisms=("darsie",), source_lines=False)
    return lim, prof


def test_limit_study_per_pc_arrays_sum_to_launch_counts(fw_runs):
    lim, _ = fw_runs
    for lr in lim.launches:
        pp, c = lr.per_pc, lr.counts
        assert int(pp.warp_instructions.sum()) == c.warp_instructions
        assert int(pp.diverged.sum()) == c.diverged
        assert int(pp.tb.sum()) == c.tb
        assert int(pp.tb_removable.sum()) == c.tb_removable
        assert int(pp.skippable.sum()) == c.skippable
        assert int(pp.warp_instructions[pp.marked_dr].sum()) == c.marked_dr
        assert (pp.tb_removable <= pp.tb).all() and (pp.tb <= pp.warp_instructions).all()


def test_join_every_functional_execution_is_executed_or_skipped_in_the_timing_run(fw_runs):
    lim, prof = fw_runs
    rows = darsie_pc.join(lim, prof)
    timing = {(r.kernel, r.pc): r.executed + r.skipped for r in prof.rows if r.pc >= 0}
    assert rows and sum(r.skipped for r in rows) > 0
    for r in rows:
        assert r.executed == timing.get((r.kernel, r.pc), 0), (r.kernel, hex(r.pc))


def test_summary_buckets_partition_the_removable_instructions(fw_runs):
    rows = darsie_pc.join(*fw_runs)
    tot = darsie_pc.summary(rows)
    assert tot["tb_removable"] == (tot["removable_skipped"] + tot["removable_never_skipped"]
                                   + tot["removable_not_dr"] + tot["removable_dr_not_skipped"])
    # FW has TB-redundant branches and returns, which DARSIE never skips
    assert tot["removable_never_skipped"] > 0
    assert all(not r.marked_dr for r in rows if r.never_skipped)
    assert tot["skipped"] == fw_runs[1].totals["instructions_skipped"]


def test_render_lists_most_missed_pc_first(fw_runs):
    rows = darsie_pc.join(*fw_runs)
    md = darsie_pc.render("FW", rows, darsie_pc.summary(rows), top=3)
    table = [ln for ln in md.splitlines() if ln.startswith("| fwt")]
    assert len(table) == 3
    missed = [int(ln.split("|")[9].replace(",", "")) for ln in table]
    assert missed == sorted(missed, reverse=True)


def test_cli_darsie_pcs_writes_json_and_rejects_bad_input(tmp_path, capsys):
    from golden.cli import main
    out = tmp_path / "fw.json"
    assert main(["darsie-pcs", "FW", "--top", "2", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["summary"]["executed"] == sum(r["executed"] for r in doc["rows"])
    capsys.readouterr()
    assert main(["darsie-pcs", "FW", "--top", "-1"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--top" in err[0]
