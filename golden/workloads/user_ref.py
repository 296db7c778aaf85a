"""User workloads inside report jobs: the reference ``NAME@FILE`` (issue 71 item 2).

A report job names its workload with a string (``TimingJob.workload``, the probes'
``workload``), and a worker process (the local pool or a Dask worker) finds it with
:func:`golden.workloads.registry.get`. A user workload of a ``--workloads DIR`` folder is
named in jobs by its **reference** ``NAME@/absolute/path/of/its/file``: its name and the
spec (``*.yaml``) or Python module (``*.py``) it is read from. The job alone is then
enough to load it again in any process: no registry to fill, no environment, no global
state. :func:`golden.workloads.registry.get` resolves a reference with :func:`load`.

* :func:`refs_of_dir` reads a folder once (:func:`~golden.workloads.user_kernel.workload_dir_files`:
  a name used twice or by a built-in is a one-line error) and names its workloads by reference;
* :func:`load` loads the workload of a reference (memoised while the user's files keep
  their size and mtime), and checks that the file still defines that name;
* :func:`user_files` lists the files its results depend on (the result cache's key,
  :meth:`golden.jobs.deps.DependencyFinder.job_roots`): a spec, its kernel file
  (``.ptx`` or ``.cu``), its reference module and ``.npy`` files; a Python module, the
  kernel it names and the other Python files of its folder (helpers it may import);
* :func:`label` is how a report row shows it: ``NAME (user)``.

A spec workload fixes every shape, so it runs the same inputs at every report size
(``small``, ``default``, ``paper``); a Python module runs the sizes it defines.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from golden.errors import ConfigError
from golden.workloads.base import Workload
from golden.workloads.suite import all_workloads

#: separates the name from the file in a reference
SEP = "@"
#: the sizes a report asks for; a spec workload answers each with its one input
REPORT_SIZES = ("small", "default", "paper")

_MEMO: dict[str, tuple[tuple, Workload]] = {}


def ref(name: str, path: str | Path) -> str:
    """The reference of workload ``name`` read from ``path``."""
    if SEP in name:
        raise ConfigError(f"{path}: workload name {name!r}: '{SEP}' is not allowed in a name")
    return f"{name}{SEP}{Path(path).resolve()}"


def is_ref(name: str) -> bool:
    """True for a user workload reference (built-in names never hold ``@``)."""
    return SEP in name


def split(reference: str) -> tuple[str, Path]:
    """``(name, file)`` of a reference."""
    name, _, path = reference.partition(SEP)
    return name, Path(path)


def label(name: str) -> str:
    """A workload as a report row shows it: ``NAME (user)`` for a reference, else the name."""
    return f"{split(name)[0]} (user)" if is_ref(name) else name


def refs_of_dir(folder: str | Path) -> dict[str, Workload]:
    """``{reference: workload}`` of every user workload of ``folder``, sorted by name."""
    from golden.workloads.user_kernel import workload_dir_files
    return {ref(n, p): w for n, (w, p) in workload_dir_files(folder).items()}


def _stamps(paths) -> tuple:
    out = []
    for p in paths:
        try:
            st = p.stat()
            out.append((str(p), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((str(p), None, None))
    return tuple(out)


def load(reference: str) -> Workload:
    """The workload a reference names, loaded from its file; a spec workload gets every
    report size (:data:`REPORT_SIZES`, all its one input). A file that is gone, defines
    another name, or a name a built-in has is a one-line :class:`ConfigError`."""
    from golden.workloads.user_kernel import SPEC_SIZE, workload_file

    name, path = split(reference)
    if not path.is_file():
        raise ConfigError(f"user workload {name}: its file {path} is gone")
    memo = _MEMO.get(reference)
    if memo is not None and memo[0] == _stamps(_files_of(path, memo[1])):
        return memo[1]
    w = workload_file(path)
    if w is None or w.name.lower() != name.lower():
        raise ConfigError(f"user workload {name}: {path} no longer defines it"
                          + (f" (it defines {w.name!r})" if w is not None else ""))
    if any(n.lower() == name.lower() for n in all_workloads()):
        raise ConfigError(f"{path}: workload name {name!r} is already a built-in workload")
    if set(w.sizes) == {SPEC_SIZE}:
        w = dataclasses.replace(w, sizes={s: {} for s in (*REPORT_SIZES, SPEC_SIZE)})
    _MEMO[reference] = (_stamps(_files_of(path, w)), w)
    return w


def user_files(reference: str) -> list[Path]:
    """The user's files a result of this workload depends on (absolute, sorted)."""
    return _files_of(split(reference)[1], load(reference))


def _files_of(path: Path, w: Workload) -> list[Path]:
    files = {path.resolve()}
    if path.suffix in (".yaml", ".yml"):
        from golden.workloads.kernel_spec import load_spec
        try:
            spec = load_spec(path)
        except ConfigError:
            return sorted(files)    # changed into a bad spec: its own stamp already differs
        extra = [spec.ptx, spec.reference_fn[0] if spec.reference_fn else None]
        extra += [a.npy for a in spec.args] + [o.reference for o in spec.outputs]
        files.update(Path(p).resolve() for p in extra if p is not None)
    else:
        files.update(p.resolve() for p in path.parent.glob("*.py"))
        files.update(p.resolve() for p in (w.cu_path, w.ptx_path) if p.is_file())
    return sorted(files, key=str)
