"""G-Scalar value statistics (golden/mechanisms/gscalar): hand-built kernels and events with
known answers, RF energy arithmetic, BDI, determinism, and a few real workloads."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from golden.errors import ConfigError
from golden.host import Device
from golden.mechanisms.gscalar.analysis import (
    PAPER, analyse_suite, analyse_workload, average_row, render_tables, summarise,
)
from golden.mechanisms.gscalar.observer import GScalarStatsObserver
from golden.mechanisms.gscalar.regstate import RegisterEncodingTracker, bdi_delta_bytes
from golden.mechanisms.gscalar.rf_energy import DEFAULT_PATH, RFEnergyParams, load_rf_energy
from golden.ptx.ir import Reg, SpecialReg
from golden.simt.observer import ExecEvent

SEED = 20170204

# Two warps (64 threads). Comments: per-warp register-write class (number of common MSB
# bytes nc, 4 = scalar) and the eligibility class each instruction must get.
KERNEL = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 k_param_0)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<16>;
    .reg .b64   %rd<2>;

    ld.param.u64        %rd1, [k_param_0];      // mem scalar; writes lo+hi, both nc=4
    mov.u32             %r1, %tid.x;            // nc=3
    mul.lo.u32          %r2, %r1, 16843009;     // tid * 0x01010101: nc=0
    shl.b32             %r3, %r1, 8;            // nc=2 (low common byte not exploited)
    shl.b32             %r4, %r1, 16;           // nc=1
    mov.u32             %r5, 7;                 // ALU scalar; nc=4
    shr.u32             %r6, %r1, 8;            // nc=4 (tid < 256)
    shr.u32             %r11, %r1, 5;           // nc=4: warp 0 holds 0, warp 1 holds 1
    add.u32             %r12, %r11, 1;          // ALU scalar; at 64 threads quarter-scalar
    mov.u32             %r10, %laneid;          // nc=3
    shr.u32             %r13, %r10, 4;          // nc=3, each half scalar
    add.u32             %r14, %r13, 1;          // half-scalar; nc=3
    setp.lt.u32         %p1, %r10, 8;
    @%p1 add.u32        %r7, %r5, 1;            // divergent scalar (source D=0 scalar)
    @%p1 add.u32        %r8, %r7, 1;            // divergent scalar (D=1, same mask)
    @!%p1 add.u32       %r9, %r7, 1;            // not: r7's stored mask differs (Fig. 7b)
    @%p1 mov.u32        %r5, 3;                 // divergent scalar; special move (r5 compressed)
    st.global.u32       [%rd1], %r6;            // mem scalar
    ret;
}
"""


def _run_kernel(observer):
    dev = Device()
    out = dev.to_device(np.zeros(4, dtype=np.uint32))
    mod = dev.load_module(code=KERNEL)
    mod.get_function("k")((1,), (64,), (out,), observers=[observer])
    return out.get()


def test_hand_kernel_known_answers():
    obs = GScalarStatsObserver()
    out = _run_kernel(obs)
    assert out[0] == 0
    c = obs.counts
    assert c.warp_insts == 2 * 19
    assert c.by_class == {"alu": 2 * 16, "sfu": 0, "mem": 2 * 2, "ctrl": 2, "other": 0}
    assert c.divergent == 2 * 4 and c.path_divergent == 0 and c.predicated_off == 0
    assert c.div_scalar_values == 2 * 4        # value oracle: r7 is 0 on lanes 8..31 too
    assert (c.elig_alu, c.elig_sfu, c.elig_mem) == (2 * 2, 0, 2 * 2)
    assert c.elig_half == 2 * 1
    assert c.elig_div == 2 * 3
    assert c.special_moves == 2 * 1
    assert c.writes == 2 * 17 and c.write_div == 2 * 4
    assert c.write_nc == [2 * 1, 2 * 1, 2 * 1, 2 * 4, 2 * 6]
    assert (c.w64_insts, c.w64_full, c.w64_quarter) == (19, 3, 2)
    s = summarise(c)
    assert s["div"] == pytest.approx(100 * 8 / 38)
    assert s["e_total"] == pytest.approx(100 * (4 + 4 + 2 + 6) / 38)


def test_tracker_state_after_divergent_writes():
    """D bit, stored mask and enc of the Fig. 7b-style sequence, read back from the tracker."""
    obs = GScalarStatsObserver()
    kept = {}

    class Spy:
        def on_exec(self, ev):
            pass

        def on_launch_end(self, stats):
            t = obs.tracker
            for name in ("%r7", "%r5", "%r2", "%r13"):
                col = t.column(("r:" + name, 0))
                kept[name] = (t.nc[:2, col].tolist(), t.d[:2, col].tolist(),
                              t.mask[:2, col].tolist(), t.ncg[:2, col].tolist())

    dev = Device()
    out = dev.to_device(np.zeros(4, dtype=np.uint32))
    dev.load_module(code=KERNEL).get_function("k")((1,), (64,), (out,), observers=[Spy(), obs])  # Spy ends first
    assert kept["%r7"] == ([4, 4], [True, True], [0xFF, 0xFF], [[0, 0], [0, 0]])
    assert kept["%r5"] == ([4, 4], [True, True], [0xFF, 0xFF], [[0, 0], [0, 0]])
    assert kept["%r2"] == ([0, 0], [False, False], [0, 0], [[0, 0], [0, 0]])
    assert kept["%r13"] == ([3, 3], [False, False], [0, 0], [[4, 4], [4, 4]])


# ------------------------------------------------------------------ hand-built events
def _launch(warps_per_tb=1, tbs=1, threads=32):
    geo = SimpleNamespace(warps_per_tb=warps_per_tb, num_tbs=tbs, threads_per_tb=threads)
    return SimpleNamespace(geo=geo)


def _event(op, pc, active, srcs=(), dsts=()):
    active = np.asarray(active, bool).reshape(-1, 32)
    n = active.shape[0]
    return ExecEvent(inst=SimpleNamespace(opcode=op), pc=pc, warps=np.arange(n),
                     tbs=np.zeros(n, np.int64), warp_in_tb=np.arange(n), active=active,
                     path_mask=np.ones_like(active), srcs=list(srcs), dsts=list(dsts))


def test_energy_of_scalar_write_and_read_by_hand():
    e = RFEnergyParams()
    obs = GScalarStatsObserver(e)
    obs.on_launch_begin(_launch())
    full = np.ones(32, bool)
    r1 = Reg("%r1")
    obs.on_exec(_event("mov", 0, full, dsts=[(r1, np.full((1, 32), 5, np.uint32))]))
    en = obs.counts.energy
    assert en["baseline"] == pytest.approx(8 * e.array_access)
    assert en["gscalar"] == pytest.approx(e.metadata_access)
    assert en["scalar_rf"] == pytest.approx(e.scalar_rf_access)
    assert en["bdi"] == pytest.approx(1 * e.array_access + e.bdi_metadata_access)   # 4-byte base
    r2 = Reg("%r2")
    vals = (np.arange(32, dtype=np.uint32) + 0x1000)[None, :]
    obs.on_exec(_event("add", 8, full, srcs=[(r1, np.full((1, 32), 5, np.uint32))],
                       dsts=[(r2, vals)]))
    # read of scalar r1 + write of r2 (nc=3: 2 arrays; BDI <4,1>: 36 bytes -> 3 arrays)
    assert en["baseline"] == pytest.approx(3 * 8 * e.array_access)
    assert en["gscalar"] == pytest.approx(3 * e.metadata_access + 2 * e.array_access)
    assert en["bdi"] == pytest.approx((1 + 1 + 3) * e.array_access + 3 * e.bdi_metadata_access)
    assert obs.counts.elig_alu == 2          # mov 5 (no register source) and add of a scalar
    c = obs.counts
    assert c.bytes_raw == 2 * 128
    assert c.bytes_gscalar == 4 + (3 + 32)
    assert c.bytes_bdi == 4 + (4 + 32)
    # a divergent write to compressed r2: special move, baseline writes only 1 array
    part = np.zeros(32, bool)
    part[:4] = True
    before = dict(en)
    obs.on_exec(_event("mov", 16, part, dsts=[(r2, np.full((1, 32), 9, np.uint32))]))
    assert c.special_moves == 1
    assert en["baseline"] - before["baseline"] == pytest.approx(1 * e.array_access)
    move = 2 * e.array_access + e.metadata_access + 8 * e.array_access + e.metadata_access
    assert en["gscalar"] - before["gscalar"] == pytest.approx(8 * e.array_access + e.metadata_access + move)


def test_special_register_sources_and_partial_warp():
    """A 48-thread TB: warp 1 has 16 threads; a full mask of those is non-divergent and
    ``%ctaid`` (equal in every thread) is scalar while ``%tid`` is not."""
    obs = GScalarStatsObserver()
    obs.on_launch_begin(_launch(warps_per_tb=2, threads=48))
    active = np.zeros((2, 32), bool)
    active[0] = True
    active[1, :16] = True
    ctaid = np.zeros((2, 32), np.uint32)
    tid = np.arange(64, dtype=np.uint32).reshape(2, 32)
    obs.on_exec(_event("mov", 0, active, srcs=[(SpecialReg("ctaid", "x"), ctaid)],
                       dsts=[(Reg("%r1"), ctaid)]))
    obs.on_exec(_event("mov", 8, active, srcs=[(SpecialReg("tid", "x"), tid)],
                       dsts=[(Reg("%r2"), tid)]))
    c = obs.counts
    assert c.divergent == 0
    assert c.elig_alu == 2
    assert c.write_nc[4] == 2 and c.write_nc[3] == 2


def test_bdi_delta_bytes():
    vals = np.array([[100] * 32,
                     [100 + (i % 3) - 1 for i in range(32)],
                     [1000 + 200 * i for i in range(32)],
                     [1 << 20] + [0] * 31], dtype=np.int64).astype(np.uint32)
    act = np.ones_like(vals, bool)
    base = vals[:, 0]
    assert bdi_delta_bytes(vals, act, base, (0, 1, 2)).tolist() == [0, 1, 2, -1]
    # inactive lanes do not count
    act[3, 1:] = False
    assert bdi_delta_bytes(vals, act, base, (0, 1, 2))[3] == 0


def test_tracker_columns_grow():
    t = RegisterEncodingTracker(3, capacity=1)
    cols = [t.column(("r:%r", i)) for i in range(5)]
    assert cols == [0, 1, 2, 3, 4] and t.capacity >= 5 and t.column(("r:%r", 2)) == 2
    v = np.full((1, 32), 7, np.uint32)
    res = t.write(np.array([2]), 4, v, np.ones((1, 32), bool), np.array([True]),
                  np.array([0xFFFFFFFF], np.uint32))
    assert res.prev_nc.tolist() == [0] and t.nc[2, 4] == 4 and t.bdi[2, 4] == 0


# ------------------------------------------------------------------ energy YAML
def test_energy_yaml_sources_and_errors(tmp_path):
    e = load_rf_energy()
    assert e.metadata_access == pytest.approx(0.052)       # seed 003 §5.1
    assert e.arrays_per_register * e.array_access == pytest.approx(1.0)
    import yaml
    raw = yaml.safe_load(DEFAULT_PATH.read_text())
    assert all(isinstance(v.get("source"), str) and v["source"] for v in raw.values())
    bad = tmp_path / "bad.yaml"
    bad.write_text("array_acces:\n  value: 0.1\n  source: typo\n")
    with pytest.raises(ConfigError, match="array_acces"):
        load_rf_energy(bad)
    bad.write_text("array_access:\n  value: 0.1\n")
    with pytest.raises(ConfigError, match="source"):
        load_rf_energy(bad)
    with pytest.raises(ConfigError, match="bdi_delta_bytes"):
        RFEnergyParams(bdi_delta_bytes=(2, 1))


# ------------------------------------------------------------------ real workloads
def test_determinism_on_a_workload():
    a = analyse_workload("BP", "small", seed=SEED)
    b = analyse_workload("BP", "small", seed=SEED)
    assert a["counts"] == b["counts"]


def test_small_workloads_table(tmp_path):
    rows = analyse_suite(["HS", "MM", "LBM"], size="small", jobs=1)
    assert [r["workload"] for r in rows] == ["HS", "MM", "LBM"]
    for r in rows:
        assert r["outputs_match"]
        c = r["counts"]
        assert sum(c["write_nc"]) + c["write_div"] == c["writes"] > 0
        assert 0 <= r["e_alu"] <= r["e_total"] <= 100
        assert 1.0 < r["ratio_gscalar"] and 1.0 < r["ratio_bdi"]
        # compression cuts RF energy below the baseline on these mostly convergent kernels
        assert r["rf_gscalar"] < 0 and r["rf_scalar_rf"] < 0
    by = {r["workload"]: r for r in rows}
    assert by["MM"]["div"] == 0 and by["HS"]["div"] > 0 and by["LBM"]["e_div"] > 0
    avg = average_row(rows)
    assert avg["div"] == pytest.approx(sum(r["div"] for r in rows) / 3)
    assert avg["warp_insts"] == sum(r["warp_insts"] for r in rows)
    text = render_tables(rows)
    assert "paper" in text and "average" in text and f"{PAPER['rf_gscalar']:.1f}" in text
    json.dumps(rows)


def test_cli_gscalar_stats(tmp_path, capsys):
    from golden.cli import main
    out = tmp_path / "g.json"
    assert main(["gscalar-stats", "MM", "--json", str(out)]) == 0
    assert "G-Scalar" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["rows"][0]["workload"] == "MM" and data["paper"]["w_scalar"] == 36.0


def test_predicated_off_instruction_is_neither_divergent_nor_a_write():
    obs = GScalarStatsObserver()
    obs.on_launch_begin(_launch())
    obs.on_exec(_event("add", 0, np.zeros(32, bool), srcs=[(Reg("%r1"), np.zeros((1, 32), np.uint32))],
                       dsts=[(Reg("%r2"), np.zeros((1, 32), np.uint32))]))
    c = obs.counts
    assert (c.warp_insts, c.predicated_off, c.divergent, c.writes, c.reads) == (1, 1, 0, 0, 1)
    assert c.elig_div == 0 and c.elig_alu == 0


@pytest.mark.parametrize("config, sfu", [("gtx480", 4), ("pascal", 3), (None, 1)])
def test_sfu_class_follows_the_configs_pipeline_routing(config, sfu):
    # integer mad, mul, div, rem and ex2: GPGPU-Sim 3.x (gtx480) issues all but rem to the
    # SFU, 4.x (pascal) div, rem and ex2; without a config only the transcendental counts
    from golden.configs import load_config
    pipes = load_config(config).pipelines if config else None
    obs = GScalarStatsObserver(None, pipes)
    obs.on_launch_begin(_launch())
    full = np.ones(32, bool)
    ops = [("mad", "s32"), ("mul", "s32"), ("div", "u32"), ("rem", "s32"), ("ex2", "f32")]
    for pc, (op, ty) in enumerate(ops):
        ev = _event(op, 8 * pc, full)
        ev.inst.types = (ty,)
        obs.on_exec(ev)
    assert obs.counts.by_class["sfu"] == sfu
    assert obs.counts.by_class["alu"] == 5 - sfu
