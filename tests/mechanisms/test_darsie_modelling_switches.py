"""DARSIE modelling switches: the leader chosen at decode,
branch barriers only where needed, held warps that keep fetching, and the energy of
DARSIE's own structures. Each old behaviour stays reachable by a switch, and outputs stay
bit-identical to the baseline."""

from __future__ import annotations

import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.darsie.marking import mark_kernel, MarkingOptions
from golden.mechanisms.darsie.skip import DarsieMechanism, DarsieParams
from golden.mechanisms.darsie.structure_energy import (BitTally, Metered, StructureEnergyParams,
                                                       load_params, transaction_bits)
from golden.mechanisms.registry import make_mechanisms
from golden.ptx import parse_ptx
from golden.report.runner import TimingJob, run_job
from golden.simt.program import link as link_program
from golden.structures.darsie import SkipTable, SkipTableParams
from golden.timing.energy import MECHANISM_COMPONENT, EnergyModel, mechanism_structure_terms
from golden.timing.stats import TimingStats

OLD = ("darsie:branch_sync=all,fetch_while_held=false,lead_at_decode=false,"
       "rejoin_at_barrier=false")


def _job(workload: str, mechs: tuple = ()) -> dict:
    return run_job(TimingJob(workload, "pascal", "small", 0, mechs))


# ---------------------------------------------------------------- branch barriers
BRANCHY = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry b(.param .u64 b_out, .param .u32 b_n)
{
	.reg .pred %p<4>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u32 %r1, [b_n];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, 0;
	setp.gt.u32 %p1, %r1, 4;
	@%p1 bra $L_big;
	add.s32 %r3, %r3, 1;
	bra $L_loop;
$L_big:
	add.s32 %r3, %r3, 2;
$L_loop:
	add.s32 %r3, %r3, %r2;
	setp.lt.u32 %p2, %r2, 7;
	@%p2 bra $L_skip;
	add.s32 %r3, %r3, 5;
$L_skip:
	add.s32 %r1, %r1, -1;
	setp.ne.u32 %p3, %r1, 0;
	@%p3 bra $L_loop;
	ld.param.u64 %rd1, [b_out];
	mul.wide.u32 %rd2, %r2, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.u32 [%rd3], %r3;
	ret;
}
"""


def _barrier_pcs(branch_sync: str) -> tuple[set, set]:
    """(every bra PC, the ones that are no barrier) of BRANCHY under ``branch_sync``."""
    program = link_program(parse_ptx(BRANCHY, "branchy.ptx"), "b")
    m = mark_kernel(program, (64, 1, 1), MarkingOptions(warp_size=32))
    mech = DarsieMechanism(load_config("pascal"), DarsieParams(branch_sync=branch_sync))
    bras = {8 * i for i, s in enumerate(program.slots)
            if s.inst is not None and s.inst.opcode == "bra"}
    return bras, set(mech._unsynced_branches(program, m))


def test_only_backward_and_non_uniform_branches_are_barriers():
    bras, free = _barrier_pcs("needed")
    assert len(bras) == 4
    # @%p1 bra (DR condition: a kernel parameter) and the unconditional forward bra pass;
    # @%p2 bra (V: %tid.x) and the loop back-edge @%p3 bra stay barriers
    assert len(free) == 2
    program = link_program(parse_ptx(BRANCHY, "branchy.ptx"), "b")
    for pc in free:
        s = program.slots[pc >> 3]
        assert s.target > pc
    back = max(bras)
    assert back not in free and program.slots[back >> 3].target < back
    assert _barrier_pcs("all")[1] == set()
    with pytest.raises(ConfigError, match="branch_sync"):
        DarsieParams(branch_sync="some")


# ---------------------------------------------------------------- whole runs
@pytest.fixture(scope="module")
def mm_runs():
    return {"base": _job("MM"), "new": _job("MM", ("darsie",)), "old": _job("MM", (OLD,)),
            "issue": _job("MM", ("darsie:lead_at_decode=false",))}


def test_old_behaviour_is_reachable_and_outputs_identical(mm_runs):
    digest = mm_runs["base"]["output_digest"]
    assert all(r["outputs_match"] and r["output_digest"] == digest for r in mm_runs.values())
    mo, mn = mm_runs["old"]["timing"]["mechanism"], mm_runs["new"]["timing"]["mechanism"]
    # fewer barriers: the forward branches on DR conditions no longer wait
    assert mn["darsie.branch_syncs"] < mo["darsie.branch_syncs"]
    assert "darsie.decode_leads" not in mo and mn["darsie.decode_leads"] > 0


def test_leader_at_decode_leaves_fewer_private_redundant_instances(mm_runs):
    """§4.3.5: warps that fetch the PC while the leader's instruction is still in its
    I-buffer find the entry and wait, instead of executing it privately."""
    at_issue = mm_runs["issue"]["timing"]["mechanism"]
    at_decode = mm_runs["new"]["timing"]["mechanism"]
    assert at_decode.get("darsie.private_redundant", 0) < at_issue["darsie.private_redundant"]
    assert at_decode["darsie.skipped"] >= at_issue["darsie.skipped"]


def test_sync_entry_completed_before_its_decode_leader_issued_is_released(shrink_small):
    """LIB: every majority warp reaches a Sync entry before its leader (which led it at
    decode) issues; the leader's writeback must release them (a deadlock before the fix)."""
    shrink_small.tiny("LIB")
    r = _job("LIB", ("darsie",))
    assert r["outputs_match"] and r["output_digest"] == _job("LIB")["output_digest"]
    assert r["timing"]["mechanism"]["darsie.decode_leads"] > 0


# ---------------------------------------------------------------- structure energy
def test_transaction_bits_at_paper_sizes():
    st = transaction_bits("skip_table", SkipTableParams())
    assert st["probe"] == (8 * 48, 32 + 3, 0)          # 8 PC tags of one TB searched
    assert st["alloc"] == (8 * 48, 0, 48 + 32 + 3)     # an 83-bit entry written (§6.3: 82 + Sync)
    assert st["set_majority"] == (0, 0, 32)
    with pytest.raises(ConfigError, match="unknown structure"):
        transaction_bits("l2", SkipTableParams())


def test_metered_structure_counts_and_forwards():
    tally = BitTally()
    t = Metered(SkipTable(SkipTableParams(tbs=2)), "skip_table", tally)
    assert not t.probe(0, 0x40).hit
    t.alloc(0, 0x40, leader=3)
    assert t.probe(0, 0x40).hit and t.full(0) is False   # unpriced calls pass through
    assert tally.bits["skip_table"] == [3 * 8 * 48, 2 * 35, 83]
    st = TimingStats.for_config(load_config("pascal"))
    e = StructureEnergyParams(read_pj_per_bit=1.0, write_pj_per_bit=2.0, search_pj_per_bit=0.5)
    tally.flush(st, "darsie", e)
    assert st.mechanism["darsie.bits.skip_table.search"] == 1152
    assert st.mechanism["darsie.energy_pj.skip_table"] == pytest.approx(1152 * 0.5 + 70 + 166)
    assert all(row == [0, 0, 0] for row in tally.bits.values())   # started over


def test_structure_energy_is_charged_as_its_own_component(mm_runs):
    cfg = load_config("pascal")
    base = EnergyModel(cfg.energy).compute(TimingStats.from_dict(mm_runs["base"]["timing"]), cfg)
    assert MECHANISM_COMPONENT not in [c.name for c in base.components]
    st = TimingStats.from_dict(mm_runs["new"]["timing"])
    rep = EnergyModel(cfg.energy).compute(st, cfg)
    own = rep.component(MECHANISM_COMPONENT)
    want = sum(v for k, v in st.mechanism.items() if ".energy_pj." in k) * 1e-12
    assert own.joules == pytest.approx(want) and own.joules > 0
    assert [c.name for c in rep.components][-1] == "static"
    # an overhead of the order the paper reports (0.95% of dynamic energy)
    assert 0.0005 < own.joules / rep.dynamic < 0.03
    assert mechanism_structure_terms(TimingStats.for_config(cfg)) == ()


def test_structure_energy_constants_file(tmp_path):
    p = load_params()
    assert p.read_pj_per_bit == pytest.approx(0.176 / 32, rel=0.01)
    bad = tmp_path / "e.yaml"
    bad.write_text("read_pj_per_bit: {value: 1}\n")
    with pytest.raises(ConfigError, match="source"):
        load_params(bad)
    bad.write_text("cam: {value: 1, source: x}\n")
    with pytest.raises(ConfigError, match="unknown key 'cam'"):
        load_params(bad)
    with pytest.raises(ConfigError, match="non-negative"):
        StructureEnergyParams(read_pj_per_bit=-1)


def test_registry_takes_the_new_switches():
    cfg = load_config("pascal")
    (m,) = make_mechanisms([OLD], cfg)
    assert (m.params.branch_sync, m.params.fetch_while_held, m.params.lead_at_decode) == \
        ("all", False, False)
    with pytest.raises(ConfigError, match="lead_at_decode must be true/false"):
        make_mechanisms(["darsie:lead_at_decode=maybe"], cfg)


def test_skip_table_replacement_keeps_outputs_and_replays_on_golden(tmp_path, shrink_small):
    """replace_when_full: a full bank replaces its LRU entry (HS fills its 8 entries); the
    warps that had taken the victim count as arrived at a later entry for the PC (without
    that, a re-created Sync entry waited for warps already past it: a deadlock). The
    skip-table trace with evictions replays on the golden structure."""
    from golden.structures.darsie import STRUCTURES
    from golden.structures.trace import read_trace as read
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    shrink_small.tiny("HS")
    cfg = load_config("pascal")
    mech = DarsieMechanism(cfg, DarsieParams(replace_when_full=True, trace_dir=str(tmp_path)))
    run = registry.run_workload(registry.get("HS"), "small", 0,
                                device=TimingDevice(cfg, mechanisms=[mech], echo_printf=False))
    assert not run.mismatches()
    m: dict = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    assert m["darsie.evictions"] > 0
    files = sorted(tmp_path.glob("*skip_table.jsonl"))
    assert files
    evicted = 0
    for f in files:
        tr = read(f)
        golden = STRUCTURES[tr.structure].golden_cls(tr.params)
        for ops, out in tr.cycles:
            assert golden.step(ops) == out
            evicted += out.alloc_evict
    assert evicted > 0


def test_dac_ideal_claims_each_instance_once_at_fetch(shrink_small):
    """dac-ideal (§5: every affine instruction executed once, zero synchronisation): the
    first warp to fetch an instance claims it and the others skip at once, instead of
    every warp that fetched it before the first execution issued executing it too."""
    shrink_small.tiny("LIB")
    base = _job("LIB")
    new, old = _job("LIB", ("dac-ideal",)), _job("LIB", ("dac-ideal:claim_at_fetch=false",))
    for r in (new, old):
        assert r["outputs_match"] and r["output_digest"] == base["output_digest"]
    assert new["timing"]["mechanism"]["dac.skipped"] > old["timing"]["mechanism"]["dac.skipped"]
    with pytest.raises(ConfigError, match="claim_at_fetch"):
        make_mechanisms(["dac-ideal:claim_at_fetch=2"], load_config("pascal"))


def test_join_taint_marks_values_merged_after_a_vector_branch_v():
    """HS writes %rs8 = 0 or 1 on the two sides of a V branch; the paper's marking meets
    DR with DR at the join, so `setp.eq.s16 %p27, %rs8, 0` is DR, which is wrong for a warp
    that took the other side and rejoins at bar.sync. join_taint makes it V."""
    from golden.workloads import registry
    path = registry.get("HS").ptx_path
    program = link_program(parse_ptx(path.read_text(), str(path)), "hotspot_steps")
    pc = next(8 * i for i, s in enumerate(program.slots)
              if s.inst is not None and s.inst.opcode == "setp" and s.inst.loc.line == 199)
    block = (16, 16, 1)
    plain = mark_kernel(program, block, MarkingOptions(warp_size=32))
    taint = mark_kernel(program, block, MarkingOptions(warp_size=32, join_taint=True))
    assert plain.skippable(pc) and not taint.skippable(pc)
    # the taint only removes DR marks, it never adds one
    assert taint.skippable_pcs <= plain.skippable_pcs


def test_warps_rejoin_at_barriers_with_identical_outputs(shrink_small):
    shrink_small.tiny("HS")
    base = _job("HS")
    on, off = _job("HS", ("darsie",)), _job("HS", ("darsie:rejoin_at_barrier=false",))
    for r in (on, off):
        assert r["outputs_match"] and r["output_digest"] == base["output_digest"]
    mon, moff = on["timing"]["mechanism"], off["timing"]["mechanism"]
    assert mon["darsie.rejoins"] > 0 and "darsie.rejoins" not in moff
    assert mon["darsie.skipped"] > moff["darsie.skipped"]
