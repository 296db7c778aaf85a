"""Paper-specific versions of a workload (``Workload.variant_of``, golden/workloads/base.py):
the registry's checks, ``simtlab list``, which version each paper's report runs, the four
versions of issue 66 (MM-WARPMAN and CONV-WARPMAN for WarpMan Table 5, FFT-ILP for the ILP
chapter, MM-UV for UV Table 3) against numpy and against their papers' published properties (functional columns
of the fidelity table), and their ptxas register files."""

from __future__ import annotations

import dataclasses

import pytest

from golden.errors import SimtlabError
from golden.report import fidelity
from golden.report.fidelity import FidelityProbe, build_row, results_lookup, row_specs
from golden.report.runner import standing_for
from golden.timing.ptxas_file import read_ptxas_file
from golden.workloads import registry

VERSIONS = {"MM-WARPMAN": ("MM", "WarpMan"), "CONV-WARPMAN": ("CONV", "WarpMan"),
            "FFT-ILP": ("FFT", "ILP"), "MM-UV": ("MM", "UV")}


# ----------------------------------------------------------------------- registry
def test_versions_are_registered_with_their_base():
    ws = registry.all_workloads()
    for name, (base, _) in VERSIONS.items():
        assert ws[name].variant_of == base
        assert name in registry.variants_of(base)
        assert ws[base].variant_of is None


def test_each_paper_runs_one_version_of_a_benchmark():
    """The paper of a version reports the version, every other paper the base."""
    for name, (base, paper) in VERSIONS.items():
        assert name in standing_for(paper) and base not in standing_for(paper)
    assert {"MM-UV", "CONV", "FFT"} <= set(standing_for("UV"))
    assert {"MM", "CONV"} <= set(standing_for("DARSIE"))
    assert "FFT" in standing_for("CAPRI") and "FFT-ILP" not in standing_for("CAPRI")


def _with(ws: dict, w) -> dict:
    return {**ws, w.name: w}


@pytest.mark.parametrize("change,message", [
    ({"variant_of": "NOPE"}, "not a workload"),
    ({"variant_of": "MM", "name": "MMX"}, "call it MM-<PAPER>"),
    ({"variant_of": "MM", "name": "MM-"}, "call it MM-<PAPER>"),
    ({"variant_of": "MM-WARPMAN", "name": "MM-WARPMAN-X"}, "itself a version of 'MM'"),
    ({"variant_of": "MM", "name": "MM-DARSIE",
      "stands_for": ("DARSIE Table 1: MM (16,16)",)}, "both stand for DARSIE"),
])
def test_bad_version_is_a_clear_error(change, message):
    ws = registry.all_workloads()
    bad = dataclasses.replace(ws["MM-WARPMAN"], **change)
    with pytest.raises(SimtlabError, match=message.replace("(", r"\(").replace(")", r"\)")):
        registry.check_variant(bad, _with(ws, bad))


def test_list_shows_the_version_and_its_base(capsys):
    from golden.cli import main
    assert main(["list"]) == 0
    lines = {l.split()[0]: l for l in capsys.readouterr().out.splitlines() if l.strip()}
    assert "[version of MM] WarpMan" in lines["MM-WARPMAN"]
    assert "[version of CONV] WarpMan" in lines["CONV-WARPMAN"]
    assert "[version of FFT] ILP" in lines["FFT-ILP"]
    assert "[version of MM] UV" in lines["MM-UV"]
    assert "version of" not in lines["MM"] and "WarpMan" not in lines["MM"]


# ----------------------------------------------------------------------- correctness
@pytest.mark.parametrize("name", list(VERSIONS))
def test_version_matches_numpy_at_small_size(name):
    run = registry.run_workload(name, size="small", seed=0)
    assert run.launches and not run.mismatches(), run.mismatches()
    assert all(r.block == registry.get(name).tb_dims for r in run.launches)


# ----------------------------------------------------------------------- registers
#: the papers' register budgets per thread (WarpMan Table 5 / §3.3; ILP §4.1's 8 TBs of 64
#: threads in 16,384 registers)
BUDGET = {"mm_warpman": 24, "conv_warpman": 24, "fft_ilp": 32}


#: register files the tool writes (fft_ilp gets none: the PTX estimate, 29, gives the same
#: TBs per SM as ptxas's 32 on every configuration FFT-ILP is reported on)
WITH_FILE = ("mm_warpman", "conv_warpman")


@pytest.mark.parametrize("stem", WITH_FILE)
def test_ptxas_file_has_the_budget_without_spills(stem):
    from golden.workloads.base import KERNEL_DIR
    kernels = read_ptxas_file(KERNEL_DIR / f"{stem}.ptxas.yaml").kernels
    assert kernels
    for name, k in kernels.items():
        assert k.registers == BUDGET[stem], (name, k.registers)
        assert k.spill_stores == 0 and k.spill_loads == 0, name


@pytest.mark.parametrize("stem", list(BUDGET))
def test_ptxas_allocates_the_budget_without_spills(stem):
    """ptxas itself (skipped without it) on the committed PTX, which carries the budget
    as ``.maxnreg``."""
    from golden.workloads.base import KERNEL_DIR
    from golden.workloads.cuda_tools import find_ptxas
    from golden.workloads.ptxas import parse_ptxas_output, run_ptxas
    ptx = KERNEL_DIR / f"{stem}.ptx"
    assert f".maxnreg {BUDGET[stem]}" in ptx.read_text()
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("ptxas is not installed")
    kernels = parse_ptxas_output(run_ptxas(ptx, ptxas))
    assert kernels
    for name, k in kernels.items():
        assert k.registers == BUDGET[stem], (name, k.registers)
        assert k.spill_stores == 0 and k.spill_loads == 0, name


# ----------------------------------------------------------------------- fidelity
#: size each version's functional columns are checked at (FFT-ILP runs the chapter's 128
#: TBs at default and paper size)
FIDELITY_SIZE = {"MM-WARPMAN": "small", "CONV-WARPMAN": "small", "FFT-ILP": "default",
                 "MM-UV": "paper"}


#: published facts the paper contradicts itself on, with what the version measures: CT's
#: Table 5 registers per TB (vs its own 7 TBs register-limited and §3.3's 512 free
#: registers) and FFT's 16,384 threads (§4.5) vs 128 TBs of 64x1 (§4.4)
SELF_CONTRADICTED = {("CONV-WARPMAN", "regs_per_tb"): 4608, ("FFT-ILP", "threads"): 8192}


@pytest.mark.parametrize("name", list(VERSIONS))
def test_version_is_within_its_papers_functional_columns(name):
    """Every functional property of the version's fidelity row is within tolerance, or
    out with a stated reason where the paper contradicts itself (SELF_CONTRADICTED)."""
    size = FIDELITY_SIZE[name]
    specs, _ = row_specs(fidelity.load_facts(), {name: registry.get(name).stands_for})
    (spec,) = specs
    assert spec.paper == VERSIONS[name][1]
    probe = FidelityProbe(name, size, 0)
    row = build_row(spec, results_lookup({probe.key: probe.compute()}, size, 0))
    functional = [c for c in row.cells if not fidelity.SOURCES[
        fidelity.PROPERTIES[c.prop].source].timing and c.kind != "info"]
    assert functional
    for c in functional:
        assert c.measured is not None, (c.prop, c.missing)
        if (name, c.prop) in SELF_CONTRADICTED:
            assert c.ok is False and c.measured == SELF_CONTRADICTED[name, c.prop]
            assert c.explained
        else:
            assert c.ok is True, (c.prop, c.measured, c.published)
