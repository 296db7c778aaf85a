"""Which source files a report job's result depends on (the result cache's validity key).

A cached simulation result stays valid exactly as long as the files that could change it
are unchanged. Rather than one hash over the whole golden model (any edit anywhere, say to
the CAPRI mechanism, would throw away days of DARSIE simulations), each job gets its own
dependency set, found statically:

* **Python modules**: the transitive closure of ``import`` statements (module level and
  inside functions, absolute and relative; only ``golden.*`` modules) starting from the
  job's roots: the module that defines the job's class, :mod:`golden.jobs.job` (which
  runs timing jobs), the module of every mechanism the job names (through the mechanism
  registry) and the definition module of every workload it names. Importing a module also
  runs its packages' ``__init__.py``, so those are in the set too. Reading every import
  statement, including ones on paths the job never takes, over-approximates: the set may
  hold files that cannot change this result, never the other way round.
* **Data files beside those modules**: ``*.yaml`` (configs, energy and mechanism
  constants), ``*.pxd`` (the compiled core's type declarations) and ``*.pyx`` in the
  directory of every module in the set, except :data:`NOT_DATA`.
* **Kernels**: the ``.ptx`` of every workload the job names (the model reads the PTX,
  never the ``.cu``), and the ptxas register file beside it (``<stem>.ptxas.yaml``,
  :mod:`golden.timing.ptxas_file`) when one is committed: only that workload's results
  depend on it.
* **User workloads** (a reference ``NAME@FILE``, :mod:`golden.workloads.user_ref`): the
  user's own files (spec, kernel file, reference module and ``.npy`` files, or the Python
  module and the other modules of its folder), named by absolute path, and
  :mod:`golden.workloads.user_ref` with its imports: editing the kernel re-runs it.
* **GPU configurations**: a job that names the one configuration it loads (a
  :class:`~golden.jobs.job.TimingJob`: ``config``) depends only on that file and the
  files it ``inherits`` from, not on every ``*.yaml`` beside :mod:`golden.configs.loader`;
  other job kinds keep the whole directory (an over-approximation).

A stored result is valid while every file the job depends on *today* has the digest the
result recorded (:func:`holds`). The stored map may list more files (an earlier, coarser
finder): those cannot change the result, so a finer dependency rule keeps old results.

Digests are SHA-256 over file bytes (memoised per process by path, size and mtime). The
compiled timing core is built from these same ``.py``/``.pxd`` sources and gives the same
statistics as plain Python (tested), so it needs no entry of its own.

Limit: a sweep's worker processes import the model once; editing the source under a
running sweep can store results against digests the workers did not run. Run long sweeps
from a separate worktree (``git worktree add``) when you keep editing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path

from golden.configs.loader import ALIASES
from golden.jobs.job import TimingJob
from golden.mechanisms.registry import MECHANISMS, parse_name
from golden.timing.ptxas_file import ptxas_file_for
from golden.workloads import registry, user_ref

#: the golden package directory
PACKAGE_DIR = Path(__file__).resolve().parents[1]

#: data files (relative to the package) that never change a simulation: the bench
#: script's reference figures
NOT_DATA = ("bench_reference.yaml",)

#: modules (relative to the package; a directory ends in ``/``) that only dispatch, cache
#: or present results: not followed, not part of any job's dependencies
NOT_MODEL = ("report/present/", "report/cli.py", "jobs/cache.py", "jobs/executors.py",
             "jobs/deps.py", "jobs/rekey.py", "jobs/kinds.py")


def holds(stored: dict, today: dict) -> bool:
    """True when every dependency of ``today`` has the digest ``stored`` recorded (the
    stored map may hold more files: dependencies a coarser rule listed)."""
    return all(stored.get(k) == v for k, v in today.items())


def stale_files(stored: dict, today: dict) -> tuple:
    """Today's dependencies whose digest differs from (or is missing in) ``stored``."""
    return tuple(sorted(k for k, v in today.items() if stored.get(k) != v))


def config_chain(name: str, config_dir: Path) -> list[Path] | None:
    """The YAML files configuration ``name`` (a name or alias) is read from: its file and
    the files it ``inherits`` from, in ``config_dir``; None when that cannot be told (a
    path, a missing file, an unreadable ``inherits``)."""
    import yaml

    out: list[Path] = []
    cur = name
    while cur is not None:
        if not isinstance(cur, str) or "/" in cur or cur.endswith((".yaml", ".yml")):
            return None
        p = config_dir / f"{ALIASES.get(cur, cur)}.yaml"
        if not p.is_file() or p in out or len(out) > 16:
            return None
        out.append(p)
        try:
            raw = yaml.safe_load(p.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            return None
        cur = raw.get("inherits") if isinstance(raw, dict) else None
    return out


def _stamp(p: Path) -> tuple | None:
    """``(size, mtime_ns)`` of a file, None if it is gone."""
    try:
        st = p.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def is_model_file(rel: str) -> bool:
    """True for a file (path relative to the package) that can change a result: not one of
    :data:`NOT_MODEL`."""
    return not any(rel.startswith(n) if n.endswith("/") else rel == n for n in NOT_MODEL)

_DATA_SUFFIXES = (".yaml", ".pxd", ".pyx")


@functools.lru_cache(maxsize=4096)
def _imported_names(source: bytes, package: str, filename: str) -> frozenset:
    """``golden.*`` module names that the import statements of ``source`` (a module of
    ``package``) can name: ``import a.b``, ``from a import b`` (``a`` and ``a.b``) and
    relative forms. Memoised on the bytes, so fresh finders (a test's copies of the
    package, a re-key after an edit) parse each distinct file once per process."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            # ``from pkg import sub`` may name a submodule
            found.update(f"{mod}.{a.name}" for a in node.names if a.name != "*")
    return frozenset(m for m in found if m.split(".")[0] == "golden")


class DependencyFinder:
    """Static import closure and file digests over one copy of the golden package."""

    def __init__(self, package_dir: Path | None = None):
        self.root = Path(package_dir or PACKAGE_DIR).resolve()
        self._imports: dict[Path, tuple[int, int, frozenset]] = {}
        self._digests: dict[Path, tuple[int, int, str]] = {}
        self._workloads: dict[str, tuple[str, Path]] = {}
        self._files: dict[tuple, tuple] = {}   # roots -> (files, their digests, dir mtimes)
        self._module_files: dict[str, Path | None] = {}
        self._rel: dict[Path, str] = {}
        self._chains: dict[str, tuple] = {}    # config name -> (its files, their stat stamps)

    # -- module names and files ---------------------------------------------------------
    def module_file(self, name: str) -> Path | None:
        """The file of module ``golden.a.b`` (``a/b.py`` or ``a/b/__init__.py``), or None."""
        if name in self._module_files:
            return self._module_files[name]
        found = None
        parts = name.split(".")
        if parts[0] == "golden":
            base = self.root.joinpath(*parts[1:])
            for p in (base.with_suffix(".py") if len(parts) > 1 else None, base / "__init__.py"):
                if p is not None and p.is_file():
                    found = p
                    break
        self._module_files[name] = found
        return found

    def _module_name(self, path: Path) -> str:
        rel = path.relative_to(self.root).with_suffix("")
        parts = ["golden", *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    def imports_of(self, path: Path) -> frozenset:
        """Names of the ``golden.*`` modules that ``path``'s import statements can load."""
        st = path.stat()
        memo = self._imports.get(path)
        if memo is not None and memo[:2] == (st.st_size, st.st_mtime_ns):
            return memo[2]
        name = self._module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = _imported_names(path.read_bytes(), package, str(path))
        out = frozenset(m for m in found if self.module_file(m) is not None)
        self._imports[path] = (st.st_size, st.st_mtime_ns, out)
        return out

    def closure(self, roots) -> set[Path]:
        """Module files reachable from the module names ``roots`` (with their packages)."""
        seen: set[Path] = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            parts = name.split(".")
            for i in range(1, len(parts) + 1):   # the packages' __init__ run first
                p = self.module_file(".".join(parts[:i]))
                if p is None:
                    if i == len(parts):
                        raise ValueError(f"dependency root or import {name!r}: no such module "
                                         f"under {self.root}")
                    continue
                if p not in seen and is_model_file(p.relative_to(self.root).as_posix()):
                    seen.add(p)
                    todo.extend(self.imports_of(p))
        return seen

    def data_files(self, modules) -> set[Path]:
        """``*.yaml``/``*.pxd``/``*.pyx`` files in the directories of ``modules``."""
        out = set()
        for d in {m.parent for m in modules}:
            for p in d.iterdir():
                if (p.suffix in _DATA_SUFFIXES and p.is_file()
                        and p.relative_to(self.root).as_posix() not in NOT_DATA):
                    out.add(p)
        return out

    def digest(self, path: Path) -> str:
        st = path.stat()
        memo = self._digests.get(path)
        if memo is not None and memo[:2] == (st.st_size, st.st_mtime_ns):
            return memo[2]
        d = hashlib.sha256(path.read_bytes()).hexdigest()[:20]
        self._digests[path] = (st.st_size, st.st_mtime_ns, d)
        return d

    # -- jobs ---------------------------------------------------------------------------
    def job_roots(self, job) -> tuple[set[str], set[Path]]:
        """Root module names and extra files (kernels) of a report job.

        Looked up from the job's fields: its class's module; ``golden.jobs.job``;
        ``mechanisms`` (registry names, ``name:args`` allowed); ``workload`` or
        ``kernels`` (workload names). A job kind may add more with a
        ``dependency_roots()`` method returning module names."""
        mods = {type(job).__module__, "golden.jobs.job", "golden.mechanisms.registry",
                "golden.workloads.registry"}
        files: set[Path] = set()
        for m in getattr(job, "mechanisms", ()) or ():
            name, _ = parse_name(m)
            if name in MECHANISMS:
                mods.add(MECHANISMS[name].partition(":")[0])
        names = [getattr(job, "workload", None), *(getattr(job, "kernels", ()) or ())]
        for w in filter(None, names):
            if user_ref.is_ref(w):      # a user workload: its own files, outside the package
                mods.add("golden.workloads.user_ref")
                files.update(user_ref.user_files(w))
                continue
            hit = self._workloads.get(w)
            if hit is None:
                wl = registry.get(w)
                # the registry is the installed package's; the kernel is read from this copy
                hit = self._workloads[w] = (wl.make_inputs.__module__, self.root / wl.ptx_path
                                            .resolve().relative_to(PACKAGE_DIR))
            mods.add(hit[0])
            files.update(p for p in (hit[1], ptxas_file_for(hit[1])) if p.is_file())
        if hasattr(job, "dependency_roots"):
            mods.update(job.dependency_roots())
        return mods, files

    def workload_files(self, name: str) -> set[str]:
        """The files (relative paths) that belong to workload ``name`` alone: its
        definition module, its PTX and the ptxas register file beside the PTX (whether or
        not it exists today: adding or removing it changes only this workload)."""
        if user_ref.is_ref(name):
            return {self._rel_of(p) for p in user_ref.user_files(name)}
        self.job_roots(TimingJob(name, "-"))
        mod, ptx = self._workloads[name]
        out = {ptx.relative_to(self.root).as_posix(),
               ptxas_file_for(ptx).relative_to(self.root).as_posix()}
        f = self.module_file(mod)
        if f is not None:
            out.add(f.relative_to(self.root).as_posix())
        return out

    def job_dependencies(self, job) -> dict[str, str]:
        """``{path relative to the golden package: digest}`` of everything ``job``'s
        result depends on, sorted by path."""
        mods, files = self.job_roots(job)
        chain = self._config_files(job)
        key = (frozenset(mods), frozenset(files), tuple(chain) if chain is not None else None)
        memo = self._files.get(key)
        if memo is not None:
            # the file set found before still holds while none of its files and none of
            # their directories (a file added beside a module) changed
            every, digests, dirs = memo
            if self._digests_of(every) == digests and self._dir_times(every) == dirs:
                return dict(digests)
        code = self.closure(mods)
        data = self.data_files(code)
        if chain is not None:
            cdir = self.root / "configs"
            data = {p for p in data if p.parent != cdir or p.suffix != ".yaml"} | \
                {p for p in chain if p in data}
        every = sorted(code | data | files, key=lambda p: p.as_posix())
        digests = self._digests_of(every)
        self._files[key] = (every, digests, self._dir_times(every))
        return dict(digests)

    def _config_files(self, job) -> list[Path] | None:
        """The configuration files a job reads, when its kind says which (a timing job
        loads exactly ``job.config``); None = every config file counts."""
        if type(job) is not TimingJob:
            return None
        # memoised per name while its files keep their size and mtime (no YAML parse per
        # lookup: this runs for every cache lookup of every job)
        memo = self._chains.get(job.config)
        if memo is not None and all(_stamp(p) == st for p, st in memo[1]):
            return memo[0]
        chain = config_chain(job.config, self.root / "configs")
        if chain is not None:
            self._chains[job.config] = (chain, [(p, _stamp(p)) for p in chain])
        return chain

    def _digests_of(self, files) -> dict[str, str]:
        rel = self._rel
        out = {}
        for p in files:
            r = rel.get(p)
            if r is None:
                r = rel[p] = self._rel_of(p)
            out[r] = self.digest(p)
        return out

    def _rel_of(self, p: Path) -> str:
        """A dependency's name in a map: its path relative to the package, or its absolute
        path for a file outside it (a user workload's; ``root / name`` finds either)."""
        return p.relative_to(self.root).as_posix() if p.is_relative_to(self.root) \
            else p.as_posix()

    @staticmethod
    def _dir_times(files) -> tuple:
        return tuple(d.stat().st_mtime_ns for d in sorted({p.parent for p in files}))

    def changed(self, deps: dict[str, str]) -> list[str]:
        """The entries of a stored dependency map whose file is missing or differs now."""
        out = []
        for rel, d in deps.items():
            p = self.root / rel
            try:
                if self.digest(p) != d:
                    out.append(rel)
            except OSError:
                out.append(rel)
        return out


_DEFAULT: dict[int, DependencyFinder] = {}


def default_finder() -> DependencyFinder:
    """One finder per process for the installed package (its memo tables are per process)."""
    pid = os.getpid()
    f = _DEFAULT.get(pid)
    if f is None:
        _DEFAULT.clear()
        f = _DEFAULT[pid] = DependencyFinder()
    return f
