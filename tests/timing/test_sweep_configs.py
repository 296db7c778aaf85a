"""``make test-sweep``: every workload on every shipped GPU configuration, and under every
ILP, UV, WarpMan and coarse-L1 variant, gives outputs bit-identical to the functional run
(small inputs)."""

import pytest

from golden.report.runner import TimingJob, output_digest, run_job
from golden.workloads import registry

CONFIGS = ("pascal", "gtx480", "gtx480_warpman", "gtx480_coarse", "gtx285", "fx5800", "gtx280")
ILP_VARIANTS = {"ilp-sc": (("ilp-sc",), ()), "bypass": ((), (("pipelines.bypass", True),)),
                "ilp-sc+bypass": (("ilp-sc",), (("pipelines.bypass", True),)),
                # the branch-prediction study (§4.4.4): BP+SC, branch latency 1, a predictor
                **{f"bp-{k}": (("ilp-sc", f"ilp-bp-{k}"),
                               (("pipelines.bypass", True), ("pipelines.control_latency", 1)))
                   for k in ("static", "gshare", "perfect")}}
_DIGESTS: dict = {}


def _functional(name: str) -> str:
    if name not in _DIGESTS:
        _DIGESTS[name] = output_digest(registry.run_workload(registry.get(name), size="small",
                                                             seed=0).outputs)
    return _DIGESTS[name]


@pytest.mark.sweep
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_on_every_config_matches_functional(workload, config):
    r = run_job(TimingJob(workload, config))
    assert r["outputs_match"], f"{workload} on {config}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} on {config}: != functional"


@pytest.mark.sweep
@pytest.mark.parametrize("variant", sorted(ILP_VARIANTS))
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_under_every_ilp_variant_matches_functional(workload, variant):
    mechs, ov = ILP_VARIANTS[variant]
    r = run_job(TimingJob(workload, "gtx280", mechanisms=mechs, overrides=ov))
    assert r["outputs_match"], f"{workload} {variant}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} {variant}: != functional"


@pytest.mark.sweep
@pytest.mark.parametrize("gpu", ["T", "I", "H"])
@pytest.mark.parametrize("mix", [(a, b) for a in ("NQU", "STO", "SCAN")
                                 for b in ("MM", "CONV", "DT", "MV")], ids="+".join)
def test_every_chapter_mix_runs_concurrently_with_identical_outputs(mix, gpu):
    """The heterogeneous-GPU mixes (seed 002 §4.5), every run of both kernels."""
    from golden.report.hetero import ConcurrentJob
    r = ConcurrentJob(mix, gpu).run()
    for s in r["streams"]:
        assert s["outputs_match"], f"{s['kernel']} in {mix} on GPU-{gpu}: differs from numpy"
        assert s["output_digest"] == _functional(s["kernel"]), f"{s['kernel']} != functional"


#: the UV chapter's designs (seed 002 ch. 2), with every uniform mark and IRB hit checked
#: against the real values (check=true)
UV_VARIANTS = ("uv-token-intra", "uv-token-inter", "uv-token", "uv-srf-intra", "uv-srf-inter",
               "uv-srf", "uv-token:reliability=true", "uv-srf:reliability=true,srf_entries=16")


@pytest.mark.sweep
@pytest.mark.parametrize("variant", UV_VARIANTS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_under_every_uv_variant_matches_functional(workload, variant):
    mech = variant + ("," if ":" in variant else ":") + "check=true"
    r = run_job(TimingJob(workload, "gtx285", mechanisms=(mech,)))
    assert r["outputs_match"], f"{workload} {variant}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} {variant}: != functional"
    assert r["timing"]["mechanism"].get("uv.irb_wrong", 0) == 0


#: WarpMan (seed 002 ch. 3) on a 3-SM gtx480_warpman, so small inputs run several waves and
#: partial TBs, buffered warps and the duel's follower SM are exercised; check mode compares
#: the golden workload buffer and dispatch check with the timing model at every event
WARPMAN_VARIANTS = ("warpman-temp", "warpman-spatial", "warpman-duel", "warpman-threshold")


@pytest.mark.sweep
@pytest.mark.parametrize("variant", WARPMAN_VARIANTS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_under_every_warpman_variant_matches_functional(workload, variant):
    r = run_job(TimingJob(workload, "gtx480_warpman", mechanisms=(variant,),
                          overrides=(("core.num_sms", 3),)))
    assert r["outputs_match"], f"{workload} {variant}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} {variant}: != functional"


#: the coarse-grained L1 (seed 002 ch. 5), static and with SM set-dueling
COARSE_VARIANTS = ("coarse2", "coarse4", "coarse2-duel", "coarse4-duel")


@pytest.mark.sweep
@pytest.mark.parametrize("variant", COARSE_VARIANTS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_under_every_coarse_l1_variant_matches_functional(workload, variant):
    r = run_job(TimingJob(workload, "gtx480_coarse", mechanisms=(variant,)))
    assert r["outputs_match"], f"{workload} {variant}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} {variant}: != functional"


#: thread block compaction and CAPRI (seed 004): every workload runs in dynamic warps
#: formed by the WCU, in check mode (every formed warp's threads are proven to be at its
#: PC); kernels with warp-synchronous instructions (shfl, vote...) are refused
TBC_VARIANTS = ("tbc", "tbc-plus", "capri", "capri-1bs", "capri-2bit", "capri:entries=2")


@pytest.mark.sweep
@pytest.mark.parametrize("variant", TBC_VARIANTS)
@pytest.mark.parametrize("workload", sorted(registry.all_workloads()))
def test_every_workload_under_tbc_and_capri_matches_functional(workload, variant):
    from golden.errors import PTXError
    try:
        mech = variant + ("," if ":" in variant else ":") + "check=true"
        r = run_job(TimingJob(workload, "fx5800", mechanisms=(mech,)))
    except PTXError as e:
        assert "dynamic warps cannot execute" in str(e), e
        pytest.skip(f"{workload}: {e}")
    assert r["outputs_match"], f"{workload} {variant}: outputs differ from numpy"
    assert r["output_digest"] == _functional(workload), f"{workload} {variant}: != functional"
