"""User kernels as workloads: any PTX (or CUDA source) run by ``simtlab run`` with a spec.

* :func:`kernel_workload` turns a ``.ptx`` file (or a ``.cu`` file, compiled once by
  :func:`compile_cu`) and a :class:`~golden.workloads.kernel_spec.KernelSpec` into a
  :class:`~golden.workloads.base.Workload` that follows the suite's protocol
  (``make_inputs`` / ``launch`` / ``reference``), so the registry's ``run_workload``, the
  functional ``Device`` and the timing ``TimingDevice`` (any config and mechanism) run it
  like a built-in, and ``--json`` writes the same record. Its one size is called
  ``spec`` (the spec fixes every shape).
* :func:`load_workload_dir` reads a ``--workloads DIR`` folder: each ``*.yaml`` spec that
  names its kernel file (``ptx:``), and each ``*.py`` module that defines
  ``WORKLOAD = Workload(...)`` as the built-ins in ``golden/workloads/defs/`` do (its
  ``source`` may be an absolute path, e.g. ``str(Path(__file__).with_name("k.cu"))``).
* :func:`add_run_arguments` / :func:`run_target` / :func:`extra_workloads` are the
  command-line side (``--kernel --grid --block --args --workloads``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import shutil
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from golden.errors import ConfigError, SimtlabError
from golden.fileio import write_output
from golden.workloads.base import Tolerance, Workload
from golden.workloads.kernel_spec import KernelSpec, load_spec, parse_dim3
from golden.workloads.suite import all_workloads

#: the one input size of a spec workload (its shapes are fixed by the spec)
SPEC_SIZE = "spec"

KERNEL_SUFFIXES = (".ptx", ".cu")

NVCC_ARCH = "sm_75"


def compile_cu(cu: Path) -> Path:
    """The PTX of CUDA source ``cu``: ``nvcc -ptx -arch=sm_75``, cached in ``build/`` beside
    the source under a name carrying the source's hash (so an edit recompiles)."""
    try:
        source = cu.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{cu}: cannot read: {exc.strerror or exc}") from None
    digest = hashlib.sha256(source + NVCC_ARCH.encode()).hexdigest()[:12]
    out = cu.parent / "build" / f"{cu.stem}-{digest}.ptx"
    if out.is_file():
        return out
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise ConfigError(f"{cu}: nvcc is not on the PATH, so a .cu file cannot be compiled; "
                          f"run `nvcc -ptx -arch={NVCC_ARCH} -o {cu.stem}.ptx {cu.name}` "
                          f"where CUDA is installed and pass the .ptx")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp.ptx")
    proc = subprocess.run([nvcc, "-ptx", f"-arch={NVCC_ARCH}", "-o", str(tmp), str(cu)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        first = next((ln for ln in proc.stderr.splitlines() if "error" in ln),
                     proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else "")
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"{cu}: nvcc failed (exit {proc.returncode}): {first}")
    tmp.replace(out)
    return out


def kernel_file_ptx(path: Path) -> Path:
    """The PTX to load for a kernel file given on the command line or in a spec."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such kernel file")
    if path.suffix == ".cu":
        return compile_cu(path)
    if path.suffix != ".ptx":
        raise ConfigError(f"{path}: expected a .ptx or .cu file")
    return path


# --------------------------------------------------------------------------- the workload

def kernel_workload(kernel_file: Path, spec: KernelSpec, kernel: str | None = None,
                    grid: tuple | None = None, block: tuple | None = None) -> Workload:
    """The workload that launches ``kernel`` of ``kernel_file`` once as ``spec`` says;
    ``kernel``/``grid``/``block`` (the command line's) replace the spec's."""
    ptx = kernel_file_ptx(Path(kernel_file)).resolve()
    kernel = kernel or spec.kernel
    grid, block = grid or spec.grid, block or spec.block
    for what, value, flag in (("kernel", kernel, "--kernel NAME"), ("grid", grid, "--grid X,Y,Z"),
                              ("block", block, "--block X,Y,Z")):
        if value is None:
            raise ConfigError(f"{spec.path.name}: no {what}: give {flag} or '{what}:' in the spec")
    _check_signature(ptx, kernel, spec)
    name = spec.name or kernel

    def make_inputs(params, rng):
        return _make_inputs(spec, rng)

    def launch(dev, module, inputs, params):
        return _launch(spec, kernel, grid, block, dev, module, inputs)

    def reference(inputs, params):
        return _reference(spec, inputs)

    return Workload(
        name=name,
        description=spec.description or f"user kernel {kernel} of {Path(kernel_file).name}",
        source=str(ptx),
        tb_dims=tuple(block),
        stands_for=spec.stands_for + (f"user kernel {kernel} ({Path(kernel_file).name}, "
                                      f"spec {spec.path.name})",),
        sizes={SPEC_SIZE: {}},
        make_inputs=make_inputs,
        launch=launch,
        reference=reference,
        tolerance={o.name: Tolerance(o.rtol, o.atol) for o in spec.outputs
                   if o.rtol or o.atol},
    )


def _check_signature(ptx: Path, kernel: str, spec: KernelSpec) -> None:
    """The spec's arguments against the kernel's ``.param`` list (count, pointer or scalar
    size), so a mismatch names the spec line rather than failing at launch."""
    from golden.ptx import load_ptx
    module = load_ptx(ptx)
    f = module.functions.get(kernel)
    if f is None or not f.is_entry:
        known = ", ".join(sorted(module.kernels)) or "none"
        raise ConfigError(f"{spec.where('kernel')}: no kernel named {kernel!r} in {ptx.name}; "
                          f"kernels: {known}")
    params = f.params
    if len(params) != len(spec.args):
        sig = ", ".join(f".{p.type} {p.name}" for p in params)
        raise ConfigError(f"{spec.where('args')}: args: kernel {kernel} takes {len(params)} "
                          f"argument(s) ({sig}), the spec gives {len(spec.args)}")
    for a, p in zip(spec.args, params):
        key = f"args[{a.index}]"
        if a.is_array and p.size != 8:
            raise ConfigError(f"{spec.where(key)}: {key}: {a.name!r} is an array, but parameter "
                              f"{p.name} is .{p.type} ({p.size} bytes), not a 64-bit pointer")
        if not a.is_array:
            if a.dtype.itemsize != p.size:
                raise ConfigError(f"{spec.where(key + '.dtype')}: {key}.dtype: {a.dtype.name} is "
                                  f"{a.dtype.itemsize} bytes; parameter {p.name} is .{p.type} "
                                  f"({p.size} bytes)")
            if (a.dtype.kind == "f") != p.type.startswith("f") and not p.type.startswith("b"):
                raise ConfigError(f"{spec.where(key + '.dtype')}: {key}.dtype: {a.dtype.name} "
                                  f"does not match parameter {p.name} (.{p.type})")


def _make_inputs(spec: KernelSpec, rng: np.random.Generator) -> dict[str, Any]:
    base = int(rng.integers(1 << 62))  # per-argument streams: [run stream, argument index]
    out: dict[str, Any] = {}
    for a in spec.args:
        key = f"args[{a.index}]"
        if not a.is_array:
            out[a.name] = a.value
        elif a.npy is not None:
            try:
                arr = np.load(a.npy, allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise ConfigError(f"{spec.where(key + '.npy')}: {key}.npy: cannot load "
                                  f"{a.npy.name}: {exc}") from None
            if a.dtype is not None and arr.dtype != a.dtype:
                raise ConfigError(f"{spec.where(key + '.dtype')}: {key}.dtype: {a.npy.name} "
                                  f"holds {arr.dtype}, the spec says {a.dtype.name}")
            if arr.dtype.kind not in "iuf" or arr.size == 0:
                raise ConfigError(f"{spec.where(key + '.npy')}: {key}.npy: {a.npy.name} holds "
                                  f"{arr.size} element(s) of {arr.dtype}; expected a non-empty "
                                  f"integer or float array")
            out[a.name] = np.ascontiguousarray(arr)
        else:
            out[a.name] = _generate(a, base)
    return out


def _generate(a, base: int) -> np.ndarray:
    if a.generate == "zeros":
        return np.zeros(a.shape, a.dtype)
    if a.generate == "ones":
        return np.ones(a.shape, a.dtype)
    n = int(np.prod(a.shape))
    if a.generate == "arange":
        return (a.start + a.step * np.arange(n)).astype(a.dtype).reshape(a.shape)
    rng = np.random.default_rng(a.seed if a.seed is not None else [base, a.index])
    if a.dtype.kind in "iu":
        return rng.integers(a.low, a.high, size=a.shape, dtype=a.dtype)
    return rng.uniform(a.low, a.high, size=a.shape).astype(a.dtype)


def _launch(spec, kernel, grid, block, dev, module, inputs) -> dict[str, np.ndarray]:
    device_args, arrays = [], {}
    for a in spec.args:
        value = inputs[a.name]
        if a.is_array:
            arrays[a.name] = dev.to_device(value)
            device_args.append(arrays[a.name])
        else:
            device_args.append(value)
    module.get_function(kernel)(grid, block, tuple(device_args), shared_mem=spec.shared_mem)
    checked = {}
    for o in spec.outputs:
        got = arrays[o.name].get()
        if o.save is not None:
            buf = io.BytesIO()
            np.save(buf, got, allow_pickle=False)
            write_output(o.save, buf.getvalue())  # an unwritable path: one-line error
        if o.reference is not None or spec.reference_fn is not None:
            checked[o.name] = got
    return checked


def _reference(spec: KernelSpec, inputs: dict[str, Any]) -> dict[str, np.ndarray]:
    want: dict[str, np.ndarray] = {}
    by_fn = [o for o in spec.outputs if o.reference is None]
    for i, o in enumerate(spec.outputs):
        if o.reference is not None:
            key = f"outputs[{i}].reference"
            try:
                want[o.name] = np.load(o.reference, allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise ConfigError(f"{spec.where(key)}: {key}: cannot load "
                                  f"{o.reference.name}: {exc}") from None
    if spec.reference_fn is not None and by_fn:
        got = _call_reference(spec, {k: np.copy(v) for k, v in inputs.items()})
        if not isinstance(got, dict):
            if len(by_fn) != 1:
                raise SimtlabError(f"{_fn_label(spec)} returned {type(got).__name__}; with "
                                   f"{len(by_fn)} outputs to check it must return a dict "
                                   f"{{name: array}} of {', '.join(o.name for o in by_fn)}")
            got = {by_fn[0].name: got}
        names = {o.name for o in by_fn}
        for k in got:
            if k not in names:
                raise SimtlabError(f"{_fn_label(spec)} returned {k!r}, which is not an output it "
                                   f"checks (outputs: {', '.join(sorted(names))})")
        for o in by_fn:
            if o.name not in got:
                raise SimtlabError(f"{_fn_label(spec)} returned no {o.name!r}")
            want[o.name] = np.asarray(got[o.name])
    dtypes = {a.name: inputs[a.name].dtype for a in spec.args if a.is_array}
    return {k: _as_output_dtype(v, dtypes[k]) for k, v in want.items()}


def _as_output_dtype(ref: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A reference of the output's kind (float, or integer) in the output's dtype, when the
    values survive the conversion; else unchanged (the comparison then names the dtype)."""
    family = {"f": "f", "i": "iu", "u": "iu"}
    if ref.dtype == dtype or ref.dtype.kind not in family or dtype.kind not in family \
            or family[ref.dtype.kind] != family[dtype.kind]:
        return ref
    conv = ref.astype(dtype)
    if dtype.kind in "iu" and not np.array_equal(conv.astype(ref.dtype), ref):
        return ref
    return conv


def _fn_label(spec: KernelSpec) -> str:
    file, func = spec.reference_fn
    return f"{spec.where('reference')}: reference {file.name}:{func}"


def _call_reference(spec: KernelSpec, inputs: dict[str, Any]):
    file, func = spec.reference_fn
    mod_name = f"simtlab_user_reference_{hashlib.sha1(str(file.resolve()).encode()).hexdigest()[:10]}"
    try:
        spec_ = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(spec_)
        spec_.loader.exec_module(module)
    except Exception as exc:  # the user's module: report, do not crash
        raise SimtlabError(f"{_fn_label(spec)}: importing {file.name} failed: "
                           f"{_user_frame(exc, file)}") from None
    fn = getattr(module, func, None)
    if not callable(fn):
        raise SimtlabError(f"{_fn_label(spec)}: {file.name} defines no function {func!r}")
    try:
        return fn(**inputs)
    except Exception as exc:
        raise SimtlabError(f"{_fn_label(spec)} raised {_user_frame(exc, file)}") from None


def _user_frame(exc: Exception, file: Path) -> str:
    """``Type: message (file.py:line)`` of the deepest frame of the user's file."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == file.resolve():
            line = frame.lineno
    where = f" ({file.name}:{line})" if line else ""
    return f"{type(exc).__name__}: {exc}{where}"


# --------------------------------------------------------------------------- --workloads DIR

def load_workload_dir(folder: str | Path) -> dict[str, Workload]:
    """The user workloads of ``folder`` by name: specs with ``ptx:`` and Python modules that
    define ``WORKLOAD``. A name used twice, or by a built-in, is an error."""
    return {n: w for n, (w, _) in workload_dir_files(folder).items()}


def workload_dir_files(folder: str | Path) -> dict[str, tuple[Workload, Path]]:
    """:func:`load_workload_dir` with the file each workload was read from (a spec or a
    Python module), sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"--workloads {folder}: no such directory")
    builtin = {n.lower() for n in all_workloads()}
    found: dict[str, tuple[Workload, Path]] = {}
    for path in sorted(folder.iterdir()):
        w = workload_file(path)
        if w is None:
            continue
        if w.name.lower() in builtin:
            raise ConfigError(f"{path}: workload name {w.name!r} is already a built-in workload")
        clash = [n for n in found if n.lower() == w.name.lower()]
        if clash:
            raise ConfigError(f"{path}: workload name {w.name!r} is already used by "
                              f"{found[clash[0]][1].name}")
        found[w.name] = (w, path)
    return dict(sorted(found.items()))


def workload_file(path: Path) -> Workload | None:
    """The workload of one file of a ``--workloads`` folder: a spec (``*.yaml``, which must
    name its kernel file with ``ptx:``) or a Python module defining ``WORKLOAD``; None for
    any other file (a helper module, a ``.npy``...)."""
    if path.suffix in (".yaml", ".yml"):
        spec = load_spec(path)
        if spec.ptx is None:
            raise ConfigError(f"{path.name}: a spec in a --workloads folder names its kernel "
                              f"file with 'ptx: FILE.ptx' (or FILE.cu)")
        return kernel_workload(spec.ptx, spec)
    if path.suffix == ".py" and not path.name.startswith("_"):
        return _workload_module(path)
    return None


def _workload_module(path: Path) -> Workload | None:
    """``WORKLOAD`` of a Python file (None when it defines none: a helper module)."""
    mod_name = f"simtlab_user_workload_{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:10]}"
    try:
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module  # dataclasses and pickling look modules up here
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(mod_name, None)
        raise SimtlabError(f"{path}: importing it failed: {_user_frame(exc, path)}") from None
    w = getattr(module, "WORKLOAD", None)
    if w is None:
        return None
    if not isinstance(w, Workload):
        raise SimtlabError(f"{path}: WORKLOAD must be a golden.workloads.base.Workload, "
                           f"got {type(w).__name__}")
    return w


# --------------------------------------------------------------------------- command line

def add_run_arguments(parser) -> None:
    """``simtlab run``'s options for kernel files and user workload folders."""
    parser.add_argument("--kernel", metavar="NAME", help="with a .ptx/.cu file: the kernel "
                        "to launch (default: the spec's 'kernel')")
    parser.add_argument("--grid", metavar="X[,Y[,Z]]", help="with a .ptx/.cu file: the grid "
                        "(default: the spec's)")
    parser.add_argument("--block", metavar="X[,Y[,Z]]", help="with a .ptx/.cu file: the block "
                        "(default: the spec's)")
    parser.add_argument("--args", metavar="SPEC.yaml", help="with a .ptx/.cu file: the argument "
                        "spec (arrays, scalars, outputs and references; docs/own-kernel.md)")
    parser.add_argument("--workloads", metavar="DIR", help="also find WORKLOAD among the user "
                        "workloads of DIR (specs with 'ptx:' and Python WORKLOAD modules)")


def run_target(args) -> tuple[Workload | str, str]:
    """What ``simtlab run`` runs and at which size: a built-in's name and ``--size``, or a
    user :class:`Workload` (a kernel file with ``--args``, or a ``--workloads`` entry)."""
    target = args.workload
    flags = [f for f, v in (("--kernel", args.kernel), ("--grid", args.grid),
                            ("--block", args.block), ("--args", args.args)) if v]
    if target.endswith(KERNEL_SUFFIXES):
        if not args.args:
            raise ConfigError(f"{target}: a kernel file needs --args SPEC.yaml (its arguments; "
                              f"see docs/own-kernel.md)")
        spec = load_spec(args.args)
        grid = parse_dim3(args.grid, "--grid") if args.grid else None
        block = parse_dim3(args.block, "--block") if args.block else None
        w = kernel_workload(Path(target), spec, kernel=args.kernel, grid=grid, block=block)
        if spec.reference_fn is None and not any(o.reference for o in spec.outputs):
            print(f"simtlab: note: {spec.path.name} gives no reference, so no output is "
                  f"checked (the MATCH below compares nothing)", file=sys.stderr)
        return w, SPEC_SIZE
    if flags:
        raise ConfigError(f"{' and '.join(flags)} go with a .ptx or .cu file, not with the "
                          f"workload {target!r}")
    if args.workloads:
        for name, w in load_workload_dir(args.workloads).items():
            if name.lower() == target.lower():
                return w, (SPEC_SIZE if SPEC_SIZE in w.sizes else args.size)
    return target, args.size


def extra_workloads(args) -> dict[str, Workload]:
    """The ``--workloads DIR`` entries of a command (empty without the option)."""
    folder = getattr(args, "workloads", None)
    return load_workload_dir(folder) if folder else {}
