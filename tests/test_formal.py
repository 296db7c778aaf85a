"""The formal flow (``make formal``): every job proves its invariants and reaches its covers;
a false invariant is caught; the same properties run in the Amaranth simulator."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from amaranth.back import rtlil
from amaranth.sim import Simulator

from rtl.common.cam import CAM
from rtl.common.freelist import FreeList
from rtl.common.properties import PropertyPlatform, with_properties
from tb.formal.flow import FormalJob, ok, run_jobs, sby_command
from tb.formal.report import write_report
from tb.formal.harness import Harness, ports
from tb.formal.jobs import all_jobs

_JOBS = {job.name: job for job in all_jobs()}

needs_sby = pytest.mark.skipif(shutil.which(sby_command()[0]) is None
                               and not Path(sby_command()[0]).exists(),
                               reason="yowasp-sby not installed")


@needs_sby
def test_every_formal_job_proves_its_invariants_and_reaches_its_covers(tmp_path):
    rows = run_jobs(all_jobs(), tmp_path, workers=2)
    report = write_report(rows, tmp_path, 0.0)
    bad = [f"{r.structure}/{r.job}: {r.prop} -> {r.result}" for r in rows if not ok(r)]
    assert not bad, "\n".join(bad) + f"\n(see {report})"
    asserted = {r.structure for r in rows if r.kind == "assert"}
    for structure in asserted:
        props = {r.prop for r in rows if r.structure == structure and r.kind == "assert"}
        assert len(props) >= 3, f"{structure} has only {len(props)} invariants"


def _false_invariant(fv):
    dut = FreeList(entries=3)

    def props(m, fv, dut, state):
        fv.check(m, dut.free_count != 0, "never empty (false: 3 allocations empty it)")
    return Harness(dut, props), ports(dut)


@needs_sby
def test_formal_flow_reports_a_false_invariant_as_failed(tmp_path):
    job = FormalJob("false_invariant", "FreeList", "entries=3", _false_invariant, depth=5)
    rows = run_jobs([job], tmp_path, workers=1)
    by_name = {r.prop: r.result for r in rows}
    assert by_name["never empty (false: 3 allocations empty it)"] == "FAIL"
    assert by_name["free_count equals the free entries"] == "pass (another failed)"


def test_properties_are_not_emitted_for_the_ordinary_platform():
    assert "$check" not in rtlil.convert(FreeList(entries=4))
    assert "$check" in rtlil.convert(FreeList(entries=4), platform=PropertyPlatform())


def _simulate(top, stimulus, cycles, seed=1):
    sim = Simulator(with_properties(top))
    sim.add_clock(1e-6)
    rng = random.Random(seed)

    async def bench(ctx):
        for _ in range(cycles):
            stimulus(ctx, rng)
            await ctx.tick()
    sim.add_testbench(bench)
    sim.run()


def test_freelist_and_cam_properties_hold_in_the_amaranth_simulator():
    fl = FreeList(entries=4, index_width=3)

    def drive_fl(ctx, rng):
        ctx.set(fl.alloc, rng.random() < 0.6)
        ctx.set(fl.free, rng.random() < 0.5)
        ctx.set(fl.free_index, rng.randrange(8))
    _simulate(fl, drive_fl, 300)

    cam = CAM(entries=4, tag_width=3)

    def drive_cam(ctx, rng):
        for sig, p in ((cam.insert_en, 0.5), (cam.lookup_touch, 0.5), (cam.inv_index_en, 0.1),
                       (cam.inv_tag_en, 0.1), (cam.flush, 0.02)):
            ctx.set(sig, rng.random() < p)
        for sig in (cam.lookup_tag, cam.insert_tag, cam.inv_tag):
            ctx.set(sig, rng.randrange(8))
        ctx.set(cam.inv_index, rng.randrange(4))
    _simulate(cam, drive_cam, 300)


def test_a_violated_property_raises_in_the_amaranth_simulator():
    top, _ = _false_invariant(PropertyPlatform())

    def drive(ctx, rng):
        ctx.set(top.dut.alloc, 1)
    with pytest.raises(AssertionError, match="never empty"):
        _simulate(top, drive, 6)


def _random_inputs(job, seed=7, cycles=150):
    """Drive every solver-driven input of ``job``'s structure with random values in the
    Amaranth simulator, with every property of the job (structure + harness) checked."""
    top, solver_ports = job.build(PropertyPlatform())
    dut = top.dut
    driven = {id(p) for p in solver_ports}
    inputs = []
    for name, member in dut.signature.members.items():
        port = getattr(dut, name)
        port = port.as_value() if hasattr(port, "as_value") else port
        if member.flow.name == "In" and id(port) in driven:
            inputs.append(port)

    def drive(ctx, rng):
        for port in inputs:
            ctx.set(port, rng.getrandbits(len(port)))
    _simulate(top, drive, cycles, seed)


# Jobs whose harness assumes an input contract are left to the solver (random inputs
# would break the Assume, which the simulator checks like an Assert).
_SIMULATED = sorted(name for name, job in _JOBS.items()
                    if name not in ("srf_map", "dispatch_check", "workload_buffer"))


@pytest.mark.parametrize("name", _SIMULATED)
def test_formal_properties_hold_in_the_amaranth_simulator_on_random_inputs(name):
    _random_inputs(_JOBS[name])


def test_formal_cli_names_an_unknown_job_in_one_line(capsys):
    from tb.formal.run import main
    assert main(["--only", "no_such_job"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: unknown formal job(s) no_such_job")


# ----------------------------------------------------------------------------- the summary
@pytest.fixture(scope="module")
def stated_summary():
    """Every job (paper sizes too) elaborated once, no solver: its per-structure summary."""
    from tb.formal.summary import stated_rows, summarise
    jobs = all_jobs(paper=True)
    return summarise(stated_rows(jobs), jobs)


def test_every_key_structure_and_primitive_states_at_least_three_checked_invariants(
        stated_summary):
    """Issue 69 acceptance, from the code: each of the 14 key structures (DESIGN.md) and
    each rtl/common primitive has >= 3 distinct assertions in a k-induction or BMC job."""
    from tb.formal.summary import KEY_STRUCTURES, PRIMITIVES, unmet
    summaries = stated_summary
    assert len(KEY_STRUCTURES) == 14 and not unmet(summaries)
    have = {s.structure for s in summaries}
    assert have >= set(KEY_STRUCTURES) | set(PRIMITIVES)
    ren = next(s for s in summaries if s.structure == "RenameTable")
    assert ren.bounded >= 1 and ren.bmc_depth == 8           # rename_own_version is BMC 8
    assert ren.proved + ren.bounded == ren.asserts == len(set(ren.names))


def test_summary_counts_a_structure_short_of_invariants_and_a_failed_proof():
    from tb.formal.flow import Row
    from tb.formal.summary import summarise, unmet
    job = FormalJob("j", "CAM", "x", _false_invariant, mode="bmc", depth=7)
    rows = [Row("CAM", "x", "j", "assert", p, "bmc", 7, "holds to 7", 0.0) for p in "ab"]
    rows += [Row("CAM", "x", "j", "assert", "c", "bmc", 7, "FAIL", 0.0)]
    (s,) = summarise(rows, [job])
    assert (s.asserts, s.bounded, s.bmc_depth, s.failing, s.checked) == (3, 3, 7, 1, 2)
    bad = unmet([s])
    assert "CAM: 2 invariants proved or bounded (< 3)" in bad
    assert "FreeList: no formal job" in bad


def test_formal_doc_table_is_the_generated_one(stated_summary):
    """docs/formal.md's per-structure table is generated (python -m tb.formal.run --paper
    --update-doc docs/formal.md), not typed: it equals what the code states today."""
    from tb.formal.summary import DOC_BEGIN, DOC_END, summary_markdown
    want = summary_markdown(stated_summary)
    doc = (Path(__file__).resolve().parents[1] / "docs" / "formal.md").read_text()
    block = doc[doc.index(DOC_BEGIN) + len(DOC_BEGIN):doc.index(DOC_END)].strip()
    assert block == want.strip(), ("docs/formal.md's formal summary is stale: regenerate it with "
                                   ".venv/bin/python -m tb.formal.run --paper --update-doc "
                                   "docs/formal.md")
