"""DARSIE skip mechanism and its comparison points in the timing model: bit-identical
outputs, protocol behaviour on tiny PTX kernels, statistics sanity, trace recording."""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs import load_config
from golden.errors import ConfigError
from golden.mechanisms.darsie.skip import DarsieMechanism, DarsieParams
from golden.mechanisms.registry import make_mechanisms
from golden.report.runner import TimingJob, run_job
from golden.structures.trace import read_trace
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

VARIANTS = ("darsie", "darsie-ignore-store", "darsie-no-cf-sync", "uv", "dac-ideal")
#: the unmarked subset (host time: a small 2D workload costs 5-15 s per run)
FAST_CASES = [("MM", v) for v in VARIANTS] + [("DCT", "darsie"), ("DCT", "dac-ideal")]
SEED = 3  # input seed of the tiny kernels (numpy Generator)

_CACHE: dict = {}


def _job(workload: str, mechs: tuple = ()) -> dict:
    key = (workload, mechs)
    if key not in _CACHE:
        _CACHE[key] = run_job(TimingJob(workload, "pascal", mechanisms=mechs))
    return _CACHE[key]


def _check_identical(workload: str, variant: str) -> dict:
    base = _job(workload)
    got = _job(workload, (variant,))
    assert "error" not in got, got.get("error")
    assert got["outputs_match"], f"{workload}/{variant}: outputs differ from the reference"
    assert got["output_digest"] == base["output_digest"], f"{workload}/{variant}: not bit-identical"
    return got


@pytest.mark.parametrize("workload,variant", FAST_CASES)
def test_outputs_bit_identical_fast(workload, variant):
    _check_identical(workload, variant)


@pytest.mark.sweep
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_outputs_bit_identical_all(workload, variant):
    _check_identical(workload, variant)


@pytest.mark.parametrize("workload", ("MM", "DCT"))
def test_darsie_removes_fetched_and_executed_instructions(workload):
    base = _job(workload)["timing"]
    got = _check_identical(workload, "darsie")["timing"]
    assert got["instructions_fetched"] < base["instructions_fetched"]
    assert got["instructions_executed"] < base["instructions_executed"]
    m = got["mechanism"]
    assert m["darsie.skipped"] == base["instructions_executed"] - got["instructions_executed"]
    assert m["darsie.leader"] > 0 and m["darsie.probes"] > 0
    assert got["instructions_skipped"] == m["darsie.skipped"]


def test_uv_keeps_fetch_but_removes_execution():
    base = _job("MM")["timing"]
    got = _check_identical("MM", "uv")["timing"]
    # still fetched and decoded (only timing-dependent refetches after flushes differ)
    assert abs(got["instructions_fetched"] - base["instructions_fetched"]) < 0.001 * base["instructions_fetched"]
    assert got["instructions_executed"] < base["instructions_executed"]
    assert got["mechanism"]["uv.eliminated"] == base["instructions_executed"] - got["instructions_executed"]


@pytest.mark.slow
def test_darsie_removes_instructions_on_hs(shrink_small):
    shrink_small.tiny("HS")
    base = _job("HS")["timing"]
    got = _check_identical("HS", "darsie")["timing"]
    assert got["instructions_fetched"] < base["instructions_fetched"]


# ----------------------------------------------------------------------------- tiny kernels

TINY = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry tiny(.param .u64 tiny_in, .param .u64 tiny_out, .param .u32 tiny_k)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [tiny_in];
	ld.param.u64 %rd5, [tiny_out];
	ld.param.u32 %r9, [tiny_k];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.u32 %r3, [%rd4];
	mov.u32 %r2, %ctaid.x;
	add.s32 %r7, %r3, %r2;
	mul.lo.s32 %r8, %r7, %r9;
	mov.u32 %r4, %tid.y;
	mov.u32 %r5, %ntid.x;
	mad.lo.s32 %r6, %r4, %r5, %r1;
	add.s32 %r10, %r8, %r6;
	cvta.to.global.u64 %rd6, %rd5;
	mul.wide.u32 %rd7, %r6, 4;
	add.s64 %rd8, %rd6, %rd7;
	st.global.u32 [%rd8], %r10;
	ret;
}
"""


def _run_tiny(block, mechanisms, grid=1):
    rng = np.random.default_rng(SEED)
    cfg = load_config("pascal")
    mechs = make_mechanisms(mechanisms, cfg)
    dev = TimingDevice(cfg, mechanisms=mechs, echo_printf=False)
    mod = dev.load_module(code=TINY)
    n = block[0] * block[1]
    src_h = rng.integers(0, 1000, size=max(block[0], n), dtype=np.uint32)
    src = dev.to_device(src_h)
    out = dev.zeros(n, np.uint32)
    st = mod.get_function("tiny")((grid, 1), block, (src, out, np.uint32(5)))
    tid = np.arange(n)
    want = ((src_h[tid % block[0]] + (grid - 1)) * 5 + tid).astype(np.uint32)
    return out.get(), want, st


def test_tiny_kernel_2d_followers_skip_and_results_exact():
    got, want, st = _run_tiny((8, 16), ("darsie",))
    assert np.array_equal(got, want)
    m = st.timing.mechanism
    assert m["darsie.skipped"] > 0
    # 4 warps: every led instruction is skipped by the 3 others, or executed privately by
    # a warp that had already fetched it when the leader issued it
    assert m["darsie.skipped"] + m.get("darsie.private_redundant", 0) == 3 * m["darsie.leader"]
    base_got, _, base_st = _run_tiny((8, 16), ())
    assert np.array_equal(got, base_got)
    assert st.timing.instructions_fetched == base_st.timing.instructions_fetched - m["darsie.skipped"]


def test_tiny_kernel_1d_tb_skips_only_uniform_work():
    _, _, st2 = _run_tiny((8, 16), ("darsie",))
    got, _, st1 = _run_tiny((128, 1), ("darsie",))
    base_got, _, _ = _run_tiny((128, 1), ())
    assert np.array_equal(got, base_got)
    # 1D: CR (tid.x-derived) instructions are V, so fewer instructions are skipped
    assert 0 < st1.timing.mechanism["darsie.skipped"] < st2.timing.mechanism["darsie.skipped"]


def test_tiny_kernel_x_not_power_of_two_no_cr_promotion():
    got, _, st = _run_tiny((12, 8), ("darsie",))
    base_got, _, _ = _run_tiny((12, 8), ())
    assert np.array_equal(got, base_got)
    _, _, st16 = _run_tiny((16, 8), ("darsie",))
    assert st.timing.mechanism.get("darsie.skipped", 0) < st16.timing.mechanism["darsie.skipped"]


def test_tiny_kernel_all_variants_identical():
    base_got, _, _ = _run_tiny((8, 16), ())
    for v in VARIANTS:
        got, _, _ = _run_tiny((8, 16), (v,))
        assert np.array_equal(got, base_got), v


def test_no_freelist_means_no_skipping():
    cfg = load_config("pascal")
    mech = DarsieMechanism(cfg, DarsieParams(freelist=1))
    dev = TimingDevice(cfg, mechanisms=[mech], echo_printf=False)
    run = registry.run_workload(registry.get("DCT"), "small", 0, device=dev)
    assert not run.mismatches()
    m = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    # one register per TB: every leader takes the last one, so every entry is a sync point
    assert m["darsie.sync_points"] == m["darsie.leader"] > 0
    assert m["darsie.freelist_short"] > 0


def test_params_validation():
    with pytest.raises(ConfigError):
        DarsieParams(variant="darsie-fast")
    with pytest.raises(ConfigError):
        DarsieParams(entries=0)
    with pytest.raises(ConfigError):
        DarsieMechanism(load_config("pascal"), DarsieParams(variant="darsie-no-cf-sync"))


def test_trace_recording_replays_on_golden(tmp_path):
    """Traces recorded from a real run replay cycle for cycle on fresh golden instances."""
    from golden.structures.darsie import STRUCTURES

    cfg = load_config("pascal")
    mech = DarsieMechanism(cfg, DarsieParams(skip_tbs=4, pc_width=16, trace_dir=str(tmp_path),
                                             trace_meta={"workload": "DCT"}))
    dev = TimingDevice(cfg, mechanisms=[mech], echo_printf=False)
    run = registry.run_workload(registry.get("DCT"), "small", 0, device=dev)
    assert not run.mismatches()
    files = sorted(tmp_path.glob("*.jsonl"))
    names = {read_trace(f).structure for f in files}
    assert names == set(STRUCTURES)
    for f in files:
        tr = read_trace(f)
        assert tr.cycles, f
        golden = STRUCTURES[tr.structure].golden_cls(tr.params)
        for ops, out in tr.cycles:
            assert golden.step(ops) == out


def _counters(run) -> dict:
    m: dict = {}
    for s in run.stats:
        for k, v in s.timing.mechanism.items():
            m[k] = m.get(k, 0) + v
    return m


def test_dead_versions_return_to_the_freelist():
    """free_dead (default): a warp drops a rename entry once the register is dead (PTX
    liveness), so MM's 32-register freelist no longer runs dry; without it dead versions
    stay renamed until the warp exits (issue 13 item 1). Outputs stay bit-identical."""
    base = _job("MM")
    on = _job("MM", ("darsie",))
    off = _job("MM", ("darsie:free_dead=false",))
    for r in (on, off):
        assert r["outputs_match"] and r["output_digest"] == base["output_digest"]
    mon, moff = on["timing"]["mechanism"], off["timing"]["mechanism"]
    assert moff.get("darsie.freelist_short", 0) > 1000 and "darsie.dead_releases" not in moff
    assert mon.get("darsie.freelist_short", 0) < moff["darsie.freelist_short"] / 10
    assert mon["darsie.dead_releases"] > 0
    assert mon["darsie.skipped"] > moff["darsie.skipped"]
    assert on["cycles"] < off["cycles"]


def test_dead_release_replays_on_the_golden_structures(tmp_path):
    """The drops and frees free_dead adds are ordinary rename-table / freelist
    transactions: the recorded traces replay on fresh golden instances."""
    from golden.structures.darsie import STRUCTURES
    cfg = load_config("pascal")
    mech = DarsieMechanism(cfg, DarsieParams(skip_tbs=4, pc_width=16, trace_dir=str(tmp_path)))
    run = registry.run_workload(registry.get("MM"), "small", 0,
                                device=TimingDevice(cfg, mechanisms=[mech], echo_printf=False))
    assert not run.mismatches() and _counters(run)["darsie.dead_releases"] > 0
    for f in sorted(tmp_path.glob("*freelist*.jsonl")) + sorted(tmp_path.glob("*rename*.jsonl")):
        tr = read_trace(f)
        golden = STRUCTURES[tr.structure].golden_cls(tr.params)
        for ops, out in tr.cycles:
            assert golden.step(ops) == out


def test_registry_arguments_reach_the_params():
    cfg = load_config("pascal")
    (m,) = make_mechanisms(["darsie:freelist=64,rename_entries=64,free_dead=false"], cfg)
    assert (m.params.freelist, m.params.rename_entries, m.params.free_dead) == (64, 64, False)
    with pytest.raises(ConfigError, match="unknown argument.*trace_dir"):
        make_mechanisms(["darsie:trace_dir=x"], cfg)
    with pytest.raises(ConfigError, match="free_dead must be true/false/on/off/yes/no/1/0"):
        make_mechanisms(["darsie:free_dead=2"], cfg)


def test_followers_wait_for_the_writeback_instead_of_reprobing():
    """wait_for_wb (default): a follower that found LeaderWB = 0 probes again only after the
    writeback, so it neither counts a wait per cycle nor takes skip-table ports meanwhile
    (issue 13 item 4). Outputs stay bit-identical."""
    base = _job("MM")
    wait = _job("MM", ("darsie",))
    poll = _job("MM", ("darsie:wait_for_wb=false",))
    assert poll["output_digest"] == wait["output_digest"] == base["output_digest"]
    mw, mp = wait["timing"]["mechanism"], poll["timing"]["mechanism"]
    assert mw["darsie.follower_waits"] < mp["darsie.follower_waits"] / 3
    assert mw["darsie.probes"] < mp["darsie.probes"]
    assert mw["darsie.port_retries"] < mp["darsie.port_retries"] / 3
    assert mw["darsie.skipped"] >= mp["darsie.skipped"] * 0.95
