"""ptxas register files (issue 66 item 3): parsing ``ptxas -v``, the committed
``<stem>.ptxas.yaml`` reader (golden/timing/ptxas_file.py), the timing model reading them
for occupancy, their agreement with the PTX beside them, and the result cache's
dependency on them (golden/jobs/deps.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from golden.errors import SimtlabError
from golden.timing.ptxas_file import (PtxasFileError, PtxasKernel, PtxasLookup,
                                      ptxas_file_for, read_ptxas_file)
from golden.report.registers import record_text
from golden.workloads.base import KERNEL_DIR
from golden.workloads.cuda_tools import find_ptxas
from golden.workloads.ptxas import ARCH, parse_ptxas_output, run_ptxas

# captured from CUDA 13.0's ptxas -v -arch=sm_75 (cfd.ptx with --maxrregcount 24, to show
# spills; dsin.ptx from tests/ptx/samples, with a stack frame and a device function;
# mm.ptx with shared memory and a barrier)
CFD_SPILL = """\
ptxas info    : Overriding maximum register limit 256 for 'cfd_time_step' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem, 20 bytes cmem[3]
ptxas info    : Compiling entry function 'cfd_time_step' for 'sm_75'
ptxas info    : Function properties for cfd_time_step
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 392 bytes cmem[0]
ptxas info    : Compile time = 15.002 ms
ptxas info    : Compiling entry function 'cfd_flux' for 'sm_75'
ptxas info    : Function properties for cfd_flux
    120 bytes stack frame, 192 bytes spill stores, 216 bytes spill loads
ptxas info    : Used 24 registers, used 0 barriers, 120 bytes cumulative stack size, 388 bytes cmem[0]
ptxas info    : Compile time = 60.341 ms
"""
DSIN = """\
ptxas info    : 272 bytes gmem, 16 bytes cmem[4]
ptxas info    : Compiling entry function 'dsin' for 'sm_75'
ptxas info    : Function properties for dsin
    40 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 28 registers, used 0 barriers, 40 bytes cumulative stack size, 372 bytes cmem[0], 32 bytes cmem[2]
ptxas info    : Compile time = 16.562 ms
ptxas info    : Function properties for __internal_trig_reduction_slowpathd
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""
MM = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'matrix_mul' for 'sm_75'
ptxas info    : Function properties for matrix_mul
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 44 registers, used 1 barriers, 8192 bytes smem, 384 bytes cmem[0]
ptxas info    : Compile time = 13.198 ms
"""


def test_parse_ptxas_output_reads_every_entry_with_spills_stack_shared_and_barriers():
    got = parse_ptxas_output(CFD_SPILL)
    assert list(got) == ["cfd_time_step", "cfd_flux"]
    assert got["cfd_time_step"] == PtxasKernel(registers=24, const_bytes=392)
    assert got["cfd_flux"] == PtxasKernel(registers=24, const_bytes=388, stack_frame=120,
                                          spill_stores=192, spill_loads=216)
    assert parse_ptxas_output(MM) == {"matrix_mul": PtxasKernel(
        registers=44, barriers=1, shared_bytes=8192, const_bytes=384)}


def test_parse_ptxas_output_skips_device_functions_and_refuses_an_entry_without_registers():
    assert parse_ptxas_output(DSIN) == {"dsin": PtxasKernel(
        registers=28, const_bytes=372, stack_frame=40)}
    cut = "\n".join(ln for ln in MM.splitlines() if "Used" not in ln)
    with pytest.raises(SimtlabError, match="'matrix_mul' has no 'Used N registers'"):
        parse_ptxas_output(cut)


def _copy_kernel(tmp_path, stem="va") -> Path:
    dst = tmp_path / f"{stem}.ptx"
    shutil.copy(KERNEL_DIR / f"{stem}.ptx", dst)
    return dst


def test_record_text_round_trips_through_the_reader(tmp_path):
    ptx = _copy_kernel(tmp_path)
    kernels = {"vec_add": PtxasKernel(registers=12, const_bytes=380)}
    ptxas_file_for(ptx).write_text(record_text(ptx, kernels, "ptxas 0.0 (test)"))
    rec = read_ptxas_file(ptxas_file_for(ptx))
    assert rec.kernels == kernels and rec.arch == ARCH and rec.ptx == "va.ptx"
    assert rec.ptxas_version == "ptxas 0.0 (test)"


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("registers: 99", "registers: -1"), "non-negative integer"),
    (lambda t: t.replace("registers: 99", "registers: 0"), "has 0 registers"),
    (lambda t: t.replace("kernels:", "kernels: [\n"), "not valid YAML"),
    (lambda t: t.replace("format: 1", "format: 7"), "format 7"),
    (lambda t: t.replace("vec_add:", "other_kernel:"), "no kernel 'vec_add'"),
    (lambda t: t.replace("spill_loads: 0", "spill_loads: 0, colour: 3"), "unknown fields"),
    (lambda t: "", "not a mapping"),
])
def test_a_bad_register_file_is_an_error_naming_the_file(tmp_path, edit, message):
    from golden.configs import load_config
    from golden.host import Device
    from golden.timing.gpu import GPU
    ptx = _copy_kernel(tmp_path)
    f = ptxas_file_for(ptx)
    good = record_text(ptx, {"vec_add": PtxasKernel(registers=99)}, "test")
    f.write_text(edit(good))
    program = Device().load_module(ptx).get_function("vec_add").program
    with pytest.raises(PtxasFileError, match=message) as e:
        GPU(load_config("pascal")).registers_per_thread(program)
    assert str(f) in str(e.value) and "golden.report.registers" in str(e.value)


def test_a_register_file_made_from_other_ptx_is_refused(tmp_path):
    ptx = _copy_kernel(tmp_path)
    f = ptxas_file_for(ptx)
    f.write_text(record_text(ptx, {"vec_add": PtxasKernel(registers=99)}, "test"))
    ptx.write_text(ptx.read_text() + "\n// regenerated\n")
    with pytest.raises(PtxasFileError, match="made from a different va.ptx") as e:
        read_ptxas_file(f)
    assert str(f) in str(e.value)


def test_gpu_uses_the_register_file_when_present_and_the_estimate_otherwise(tmp_path):
    from golden.configs import load_config
    from golden.host import Device
    from golden.simt.engine import LaunchGeometry
    from golden.timing.gpu import GPU, ptx_registers_per_thread
    ptx = _copy_kernel(tmp_path)
    cfg = load_config("pascal")
    gpu = GPU(cfg)
    k = Device().load_module(ptx).get_function("vec_add")
    est = ptx_registers_per_thread(k.program)
    assert gpu.registers_per_thread(k.program) == est
    ptxas_file_for(ptx).write_text(record_text(ptx, {"vec_add": PtxasKernel(registers=est + 9)},
                                               "test"))
    assert gpu.registers_per_thread(k.program) == est + 9     # read when it appears
    # what GPU.occupancy reads of a FunctionalLaunch
    launch = SimpleNamespace(program=k.program, geo=LaunchGeometry((1, 1, 1), (256, 1, 1)),
                             shared_bytes=0)
    occ = gpu.occupancy(launch)
    assert occ.regs_per_thread == est + 9 and occ.regs_per_tb == (est + 9) * 256
    assert GPU(cfg, regs_per_thread=7).occupancy(launch).regs_per_thread == 7   # override wins
    ptxas_file_for(ptx).unlink()
    assert gpu.registers_per_thread(k.program) == est
    # a module from a string has no file beside it
    code = Device().load_module(code=ptx.read_text()).get_function("vec_add")
    assert PtxasLookup().registers(code.program) is None


def _committed() -> list[Path]:
    return sorted(KERNEL_DIR.glob("*.ptxas.yaml"))


def test_committed_register_files_agree_with_the_ptx_beside_them():
    """Each committed file names its PTX's digest (a regenerated PTX with a stale file
    fails here and at run time), lists exactly the PTX's kernels, and is the text the tool
    writes for its own record."""
    from golden.ptx import load_ptx
    for f in _committed():
        rec = read_ptxas_file(f)                  # checks the PTX digest
        ptx = f.with_name(rec.ptx)
        assert ptx_file_stem(f) == ptx.stem
        assert set(rec.kernels) == set(load_ptx(ptx).kernels), f
        assert rec.arch == ARCH
        assert f.read_text() == record_text(ptx, rec.kernels, rec.ptxas_version), f


def ptx_file_stem(f: Path) -> str:
    return f.name[:-len(".ptxas.yaml")]


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas (the CUDA toolkit)")
def test_committed_register_files_are_what_ptxas_reports():
    for f in _committed():
        rec = read_ptxas_file(f)
        assert parse_ptxas_output(run_ptxas(f.with_name(rec.ptx), find_ptxas(), rec.arch)) \
            == rec.kernels, f


def test_committed_files_are_the_ones_the_table_marks():
    """docs/registers.md (written by the same tool run) marks a file for exactly the
    committed kernel sources."""
    table = Path(__file__).resolve().parents[2] / "docs" / "registers.md"
    marked = {ln.split("|")[1].strip().split(":")[0] for ln in table.read_text().splitlines()
              if ln.startswith("| ") and ln.rstrip().endswith("| yes |")}
    assert marked == {ptx_file_stem(f) for f in _committed()}


def test_a_workloads_results_depend_on_its_own_register_file_only():
    from golden.jobs.deps import DependencyFinder
    from golden.report.runner import TimingJob
    from golden.workloads import registry
    files = {ptx_file_stem(f) for f in _committed()}
    if not files:
        pytest.skip("no register file committed")
    by_stem = {w.ptx_path.stem: w.name for w in registry.all_workloads().values()}
    with_file = by_stem[sorted(files)[0]]
    without = next(n for s, n in sorted(by_stem.items()) if s not in files)
    finder = DependencyFinder()
    deps = finder.job_dependencies(TimingJob(with_file, "pascal"))
    mine = f"workloads/kernels/{sorted(files)[0]}.ptxas.yaml"
    assert mine in deps and [d for d in deps if d.endswith(".ptxas.yaml")] == [mine]
    assert not any(d.endswith(".ptxas.yaml")
                   for d in finder.job_dependencies(TimingJob(without, "pascal")))
    assert mine in finder.workload_files(with_file)


def test_warp_level_allocation_counts_warps_the_register_file_holds():
    from golden.configs import load_config
    from golden.report.registers import warps_by_registers
    core = load_config("gtx480_warpman").core
    # 32 k registers, 32 threads a warp: 28 registers hold 36 warps, 24 hold 42
    assert warps_by_registers(core, 28) == core.registers_per_sm // (28 * core.warp_size) == 36
    assert warps_by_registers(core, 24) == 42
    assert warps_by_registers(core, 1) == core.max_warps_per_sm      # capped by the SM


def test_warp_granular_configs_are_those_with_a_tb_dispatch_mechanism():
    from golden.report.registers import warp_granular_configs
    st = warp_granular_configs("ST")
    assert ("gtx480_warpman", ()) in st                 # the WarpMan report's runs
    assert all(cfg == "gtx480_warpman" for cfg, _ in st)
    assert warp_granular_configs("DCT") == set()        # DARSIE only: TB-level dispatch
