"""`simtlab run FILE.ptx --args SPEC.yaml`: a kernel that is not in the suite (saxpy and a
histogram with shared and global atomics, tests/data/user_kernels.cu), run in functional
and timing mode with its outputs checked against a user reference; failing references,
bad specs, .cu compilation and --workloads DIR."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from golden.cli import main
from golden.workloads.kernel_spec import load_spec

DATA = Path(__file__).resolve().parent / "data"
PTX = DATA / "user_kernels.ptx"


def _run(capsys, *argv):
    rc = main(["run", *map(str, argv)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def _spec(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    """A spec in tmp_path beside a copy of the test reference module."""
    shutil.copy(DATA / "user_reference.py", tmp_path / "user_reference.py")
    p = tmp_path / name
    p.write_text(text)
    return p


HIST = """kernel: histogram
grid: 8
block: 128
shared_mem: 1024
args:
  - {name: data, generate: random, dtype: uint8, shape: 6000, low: 0, high: 256}
  - {name: bins, generate: zeros, dtype: uint32, shape: 256}
  - {name: n, value: 6000, dtype: int32}
outputs:
  - name: bins
"""


# --------------------------------------------------------------------------- both modes

@pytest.mark.parametrize("spec", ["saxpy.yaml", "histogram.yaml"])
def test_user_kernel_functional_matches_user_reference(spec, tmp_path, capsys):
    rc, out, err = _run(capsys, PTX, "--args", DATA / spec, "--json", tmp_path / "r.json")
    assert rc == 0, out + err
    assert "outputs vs numpy reference : MATCH" in out
    d = json.loads((tmp_path / "r.json").read_text())
    assert d["outputs_match"] and d["size"] == "spec" and d["launches"] == 1
    assert d["warp_instructions"] > 0


def test_user_kernel_timing_mode_with_config_and_mechanism(tmp_path, capsys):
    rc, out, err = _run(capsys, PTX, "--args", DATA / "histogram.yaml", "--mode", "timing",
                        "--config", "gtx480", "--mechanism", "darsie",
                        "--json", tmp_path / "t.json")
    assert rc == 0, out + err
    d = json.loads((tmp_path / "t.json").read_text())
    assert d["outputs_match"] and d["config"] == "gtx480" and d["mechanisms"] == ["darsie"]
    assert d["workload"] == "histogram" and d["cycles"] > 0 and d["mode"] == "timing"
    # the same record keys as a built-in's timing run
    assert {"timing", "energy", "stall_fractions", "per_launch"} <= set(d)


def test_user_kernel_timing_saxpy_on_default_config(tmp_path, capsys):
    rc, out, err = _run(capsys, PTX, "--args", DATA / "saxpy.yaml", "--mode", "timing",
                        "--json", tmp_path / "t.json")
    assert rc == 0, out + err
    d = json.loads((tmp_path / "t.json").read_text())
    assert d["outputs_match"] and d["config"] == "pascal_1080ti"


# --------------------------------------------------------------------------- references

def test_failing_reference_exits_1_and_names_the_differing_bins(tmp_path, capsys):
    spec = _spec(tmp_path, HIST + "reference: user_reference.py:histogram_off_by_one\n")
    rc, out, err = _run(capsys, PTX, "--args", spec)
    assert rc == 1
    assert "MISMATCH" in out
    assert "bins: 1 of 256 elements differ (exact compare)" in out


def test_reference_npy_and_saved_output(tmp_path, capsys, monkeypatch):
    data = np.random.default_rng(5).integers(0, 256, 6000, dtype=np.uint8)
    np.save(tmp_path / "data.npy", data)
    np.save(tmp_path / "want.npy", np.bincount(data, minlength=256).astype(np.uint32))
    text = HIST.replace("{name: data, generate: random, dtype: uint8, shape: 6000, low: 0, "
                        "high: 256}", "{name: data, npy: data.npy, dtype: uint8}")
    text = text.replace("  - name: bins\n",
                        "  - {name: bins, reference: want.npy, save: out/bins.npy}\n")
    spec = _spec(tmp_path, text)
    monkeypatch.chdir(tmp_path)  # save paths are relative to the current directory
    rc, out, err = _run(capsys, PTX, "--args", spec)
    assert rc == 0, out + err
    saved = np.load(tmp_path / "out" / "bins.npy")
    assert saved.dtype == np.uint32 and saved.sum() == 6000
    assert np.array_equal(saved, np.load(tmp_path / "want.npy"))


def test_spec_without_reference_says_nothing_was_checked(tmp_path, capsys):
    spec = _spec(tmp_path, HIST)
    rc, out, err = _run(capsys, PTX, "--args", spec)
    assert rc == 0 and "gives no reference, so no output is checked" in err


def test_unwritable_save_path_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    spec = _spec(tmp_path, HIST.replace("  - name: bins\n",
                                        f"  - {{name: bins, save: {tmp_path / 'file' / 'b.npy'}}}\n"))
    rc, _, err = _run(capsys, PTX, "--args", spec)
    assert rc == 2 and "cannot write" in err and "Traceback" not in err, err


def test_float_tolerance_is_applied(tmp_path, capsys):
    spec_text = (DATA / "saxpy.yaml").read_text()
    # an exact compare of a fused a*x+y against numpy's two roundings may differ; with the
    # spec's rtol it matches, and a wrong reference still fails far outside it
    spec = _spec(tmp_path, spec_text.replace("user_reference.py:saxpy", "wrong.py:saxpy"))
    (tmp_path / "wrong.py").write_text("def saxpy(a, x, y, n):\n    return a * x + y + 1e-3\n")
    rc, out, err = _run(capsys, PTX, "--args", spec)
    assert rc == 1 and "outside tolerance (rtol=1e-06" in out


def test_generated_inputs_follow_the_run_seed(tmp_path, capsys):
    spec = _spec(tmp_path, HIST.replace(", low: 0, high: 256", ", high: 7"))
    stats = []
    for seed in (0, 0, 1):
        np_path = tmp_path / f"b{len(stats)}.npy"
        spec.write_text(spec.read_text().split("outputs:")[0]
                        + f"outputs:\n  - {{name: bins, save: {np_path}}}\n")
        rc, out, err = _run(capsys, PTX, "--args", spec, "--seed", seed)
        assert rc == 0, err
        stats.append(np.load(np_path))
    assert np.array_equal(stats[0], stats[1]) and not np.array_equal(stats[0], stats[2])
    assert stats[0][7:].sum() == 0 and stats[0].sum() == 6000


# --------------------------------------------------------------------------- errors

BAD_SPECS = [
    (HIST.replace("dtype: int32", "dtype: f33"), "spec.yaml:8: args[2].dtype: unknown dtype 'f33'"),
    (HIST.replace("grid: 8", "grid: [8, 0]"), "spec.yaml:2: grid: expected a positive integer, got 0"),
    (HIST.replace("generate: zeros", "generate: ramp"),
     "spec.yaml:7: args[1].generate: unknown generator 'ramp' (known: zeros, ones, arange, random)"),
    (HIST.replace("  - name: bins", "  - name: count"),
     "spec.yaml:10: outputs[0].name: 'count' is not an argument (arguments: data, bins, n)"),
    (HIST.replace("  - name: bins", "  - name: n"),
     "spec.yaml:10: outputs[0].name: 'n' is a scalar; only arrays are read back"),
    (HIST + "reference: missing.py:f\n",
     "spec.yaml:11: reference: no such file 'missing.py'"),
    (HIST + "refrence: user_reference.py:histogram\n", "spec.yaml:11: refrence: unknown key"),
    (HIST.replace("value: 6000, dtype: int32", "value: 6000"),
     "spec.yaml:8: args[2]: a scalar needs a dtype"),
    (HIST.replace("value: 6000, dtype: int32", "value: 70000, dtype: int16"),
     "spec.yaml:8: args[2].value: 70000 does not fit in int16"),
    (HIST.replace("{name: n, value: 6000, dtype: int32}", "{name: n, value: 6000, npy: a.npy}"),
     "spec.yaml:8: args[2]: give exactly one of value (a scalar), npy (an array file) or "
     "generate (an array generator); got value, npy"),
    (HIST.replace("{name: n, value: 6000, dtype: int32}", "{name: n, npy: nothere.npy}"),
     "spec.yaml:8: args[2].npy: no such file 'nothere.npy'"),
    (HIST.replace("  - {name: n, value: 6000, dtype: int32}\n", ""),
     "spec.yaml:5: args: kernel histogram takes 3 argument(s) (.u64 histogram_param_0, "
     ".u64 histogram_param_1, .u32 histogram_param_2), the spec gives 2"),
    (HIST.replace("dtype: int32", "dtype: int64"),
     "spec.yaml:8: args[2].dtype: int64 is 8 bytes; parameter histogram_param_2 is .u32 (4 bytes)"),
    (HIST.replace("value: 6000, dtype: int32", "value: 1.5, dtype: int32"),
     "spec.yaml:8: args[2].value: expected an integer, got float 1.5"),
    (HIST.replace("value: 6000, dtype: int32", "value: 1.5, dtype: float32"),
     "spec.yaml:8: args[2].dtype: float32 does not match parameter histogram_param_2 (.u32)"),
    (HIST.replace("{name: n, value: 6000, dtype: int32}", "{name: n, generate: zeros, "
                  "dtype: int32, shape: 1}"),
     "spec.yaml:8: args[2]: 'n' is an array, but parameter histogram_param_2 is .u32 (4 bytes), "
     "not a 64-bit pointer"),
    (HIST.replace("kernel: histogram", "kernel: histo"),
     "spec.yaml:1: no kernel named 'histo' in user_kernels.ptx; kernels: histogram, saxpy"),
    (HIST.replace("args:\n  - {name: data", "args:\n  - {name: data, data2: 1"),
     "spec.yaml:6: args[0].data2: unknown key"),
    ("kernel: [unclosed\n", "spec.yaml:2: malformed YAML"),
]


@pytest.mark.parametrize("text,message", BAD_SPECS, ids=[m.split(": ", 1)[1][:30]
                                                          for _, m in BAD_SPECS])
def test_bad_spec_is_one_line_error_with_file_line_and_key(text, message, tmp_path, capsys):
    spec = _spec(tmp_path, text)
    rc, out, err = _run(capsys, PTX, "--args", spec)
    assert rc == 2
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert message in err, err


def test_every_bad_spec_message_names_a_line():
    """Every BAD_SPECS message names a line: the spec's key paths all map to lines."""
    assert all(m.startswith("spec.yaml:") and m.split(":")[1].isdigit() for _, m in BAD_SPECS)


def test_known_dtypes_include_numpy_and_ptx_names(tmp_path):
    spec = _spec(tmp_path, HIST.replace("dtype: int32", "dtype: s32"))
    assert load_spec(spec).args[2].dtype == np.int32


def test_missing_grid_and_bad_command_line_dims(tmp_path, capsys):
    spec = _spec(tmp_path, HIST.replace("grid: 8\n", ""))
    rc, _, err = _run(capsys, PTX, "--args", spec)
    assert rc == 2 and "no grid: give --grid X,Y,Z or 'grid:' in the spec" in err
    rc, out, err = _run(capsys, PTX, "--args", spec, "--grid", "3", "--block", "64,1")
    assert rc == 0, err
    assert "3 TBs of (64, 1, 1)" in out
    rc, _, err = _run(capsys, PTX, "--args", spec, "--grid", "3,x")
    assert rc == 2 and "--grid: expected 1 to 3 positive integers" in err


def test_kernel_file_needs_args_and_flags_need_kernel_file(capsys):
    rc, _, err = _run(capsys, PTX)
    assert rc == 2 and "a kernel file needs --args SPEC.yaml" in err
    rc, _, err = _run(capsys, "VA", "--grid", "4")
    assert rc == 2 and "--grid go with a .ptx or .cu file" in err


def test_reference_function_that_raises_is_one_line(tmp_path, capsys):
    spec = _spec(tmp_path, HIST + "reference: boom.py:ref\n")
    (tmp_path / "boom.py").write_text("def ref(data, bins, n):\n    return {'bins': data[n + 1]}\n")
    rc, _, err = _run(capsys, PTX, "--args", spec)
    assert rc == 2 and "Traceback" not in err
    assert "reference boom.py:ref raised IndexError" in err and "(boom.py:2)" in err


# --------------------------------------------------------------------------- .cu files

def test_cu_file_is_compiled_once_into_build(tmp_path, capsys):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on the PATH")
    shutil.copy(DATA / "user_kernels.cu", tmp_path / "k.cu")
    spec = _spec(tmp_path, HIST + "reference: user_reference.py:histogram\n")
    rc, out, err = _run(capsys, tmp_path / "k.cu", "--args", spec)
    assert rc == 0, err
    built = list((tmp_path / "build").glob("k-*.ptx"))
    assert len(built) == 1
    mtime = built[0].stat().st_mtime_ns
    rc, out, err = _run(capsys, tmp_path / "k.cu", "--args", spec)
    assert rc == 0 and built[0].stat().st_mtime_ns == mtime  # cached


def test_cu_file_that_does_not_compile_is_one_line_with_nvccs_error(tmp_path, capsys):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on the PATH")
    (tmp_path / "bad.cu").write_text('extern "C" __global__ void k(int *p) { p[0] = q; }\n')
    spec = _spec(tmp_path, "kernel: k\ngrid: 1\nblock: 1\nargs:\n"
                           "  - {name: p, generate: zeros, dtype: int32, shape: 1}\n")
    rc, _, err = _run(capsys, tmp_path / "bad.cu", "--args", spec)
    assert rc == 2 and "bad.cu: nvcc failed (exit" in err and "identifier" in err, err
    assert err.count("\n") == 1 and not list((tmp_path / "build").glob("*.ptx"))


def test_missing_spec_or_kernel_file_is_one_line(tmp_path, capsys):
    rc, _, err = _run(capsys, PTX, "--args", tmp_path / "nope.yaml")
    assert rc == 2 and "nope.yaml: no such spec file" in err
    rc, _, err = _run(capsys, tmp_path / "nope.ptx", "--args", DATA / "saxpy.yaml")
    assert rc == 2 and "nope.ptx: no such kernel file" in err


def test_cu_file_without_nvcc_is_a_clear_error(tmp_path, capsys, monkeypatch):
    shutil.copy(DATA / "user_kernels.cu", tmp_path / "k.cu")
    spec = _spec(tmp_path, HIST)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rc, _, err = _run(capsys, tmp_path / "k.cu", "--args", spec)
    assert rc == 2 and "nvcc is not on the PATH" in err and "nvcc -ptx -arch=sm_75" in err


# --------------------------------------------------------------------------- --workloads DIR

PY_WORKLOAD = '''"""A user workload in the built-in protocol: saxpy on 3000 elements."""
from pathlib import Path
import numpy as np
from golden.workloads.base import Tolerance, Workload

def make_inputs(params, rng):
    return {"x": rng.uniform(-1, 1, params["n"]).astype(np.float32),
            "y": rng.uniform(-1, 1, params["n"]).astype(np.float32)}

def launch(dev, module, inputs, params):
    n = params["n"]
    d_x, d_y = dev.to_device(inputs["x"]), dev.to_device(inputs["y"])
    module.get_function("saxpy")((-(-n // 128),), (128,), (np.float32(3.0), d_x, d_y, np.int32(n)))
    return {"y": d_y.get()}

def reference(inputs, params):
    return {"y": np.float32(3.0) * inputs["x"] + inputs["y"]}

WORKLOAD = Workload(name="MYSAXPY", description="saxpy, y = 3x + y", source=str(Path(PTX)),
                    tb_dims=(128, 1, 1), stands_for=("a user workload",),
                    sizes={"small": {"n": 3000}, "default": {"n": 30000}},
                    make_inputs=make_inputs, launch=launch, reference=reference,
                    tolerance={"y": Tolerance(rtol=1e-6, atol=1e-6)})
'''


def _workload_dir(tmp_path: Path) -> Path:
    d = tmp_path / "mine"
    d.mkdir()
    shutil.copy(DATA / "user_reference.py", d / "user_reference.py")
    (d / "hist.yaml").write_text(f"name: myhist\nptx: {PTX}\n" + HIST
                                 + "reference: user_reference.py:histogram\n")
    (d / "mysaxpy.py").write_text(PY_WORKLOAD.replace("Path(PTX)", repr(str(PTX))))
    return d


def test_workloads_dir_is_listed_and_run(tmp_path, capsys):
    d = _workload_dir(tmp_path)
    assert main(["list", "--workloads", str(d)]) == 0
    out = capsys.readouterr().out
    assert "myhist" in out and "MYSAXPY" in out and "a user workload" in out
    rc, out, err = _run(capsys, "myhist", "--workloads", d)
    assert rc == 0 and "myhist (spec, seed 0)" in out and "MATCH" in out, err
    rc, out, err = _run(capsys, "mysaxpy", "--workloads", d, "--mode", "timing",
                        "--config", "gtx480", "--json", tmp_path / "s.json")
    assert rc == 0, err
    d2 = json.loads((tmp_path / "s.json").read_text())
    assert d2["workload"] == "MYSAXPY" and d2["size"] == "small" and d2["outputs_match"]


def test_workloads_dir_name_clash_with_builtin_is_an_error(tmp_path, capsys):
    d = _workload_dir(tmp_path)
    (d / "hist.yaml").write_text((d / "hist.yaml").read_text().replace("name: myhist",
                                                                       "name: va"))
    rc, _, err = _run(capsys, "myhist", "--workloads", d)
    assert rc == 2 and "workload name 'va' is already a built-in workload" in err


def test_spec_in_workloads_dir_needs_ptx(tmp_path, capsys):
    d = tmp_path / "w"
    d.mkdir()
    (d / "a.yaml").write_text(HIST)
    rc, _, err = _run(capsys, "a", "--workloads", d)
    assert rc == 2 and "a.yaml: a spec in a --workloads folder names its kernel file" in err


# --------------------------------------------------------------------------- the how-to page

def doc_commands(page: Path) -> list[list[str]]:
    """The ``.venv/bin/simtlab ...`` lines of a page's ```sh blocks, as argument lists."""
    import re
    import shlex
    blocks = re.findall(r"```sh\n(.*?)```", page.read_text(), flags=re.S)
    return [shlex.split(line)[1:] for b in blocks for line in b.splitlines()
            if line.startswith(".venv/bin/simtlab ")]


def test_own_kernel_doc_commands_run(tmp_path, capsys, monkeypatch):
    commands = [c for c in doc_commands(DATA.parent.parent / "docs" / "own-kernel.md")
                if c[0] == "run"]   # the report lines: tests/test_report_user_workloads.py
    assert len(commands) == 4
    shutil.copytree(DATA, tmp_path / "tests" / "data")  # the page runs from the repo root
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        if argv[1].endswith(".cu") and shutil.which("nvcc") is None:
            continue
        rc = main(argv)
        out = capsys.readouterr()
        assert rc == 0, (argv, out.out[-500:], out.err)
        assert "MATCH" in out.out and "MISMATCH" not in out.out
    assert json.loads((tmp_path / "build" / "histogram.json").read_text())["outputs_match"]


# --------------------------------------------------------------------------- fuzzing the spec

SPEC_TOKENS = ["0", "-1", "1.5", "1e12", "[1, 2]", "[]", "{}", "f33", "int8", "float64",
               "random", "zeros", "arange", "npy", "value", "name", "''", "null", "true",
               ":", "- ", "x.npy", "user_reference.py:nothing", "saxpy", "histogram"]


def test_fuzzed_specs_load_or_fail_with_a_project_error(tmp_path):
    """Random edits of the example specs: loading, checking against the PTX, making the
    inputs and computing the reference either work or raise a SimtlabError."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from golden.errors import SimtlabError
    from golden.workloads.user_kernel import kernel_workload

    texts = [(DATA / n).read_text() for n in ("saxpy.yaml", "histogram.yaml")]
    shutil.copy(DATA / "user_reference.py", tmp_path / "user_reference.py")

    @settings(max_examples=int(os.environ.get("SPECFUZZ", 150)), deadline=None, derandomize=not os.environ.get("SPECFUZZ"), database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(which=st.integers(0, 1), edits=st.lists(
        st.tuples(st.integers(0, 400), st.integers(0, 6), st.sampled_from(SPEC_TOKENS)),
        min_size=1, max_size=4))
    def check(which, edits):
        text = texts[which]
        for pos, cut, token in edits:
            pos %= len(text) + 1
            text = text[:pos] + token + text[pos + cut:]
        spec_path = tmp_path / "fuzz.yaml"
        spec_path.write_text(text)
        try:
            w = kernel_workload(PTX, load_spec(spec_path))
            inputs = w.make_inputs({}, np.random.default_rng(0))
            w.reference(inputs, {})
        except SimtlabError:
            pass

    check()
