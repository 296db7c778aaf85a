"""The built-in workload suite: discovery of ``golden/workloads/defs/`` and its checks.

* :func:`all_workloads` imports every module of ``golden/workloads/defs/`` and collects
  its ``WORKLOAD``;
* :func:`check_variant` checks a paper-specific version (``Workload.variant_of``).

The lookup by name, runs and output checks are :mod:`golden.workloads.registry`, which
also resolves user workloads (:mod:`golden.workloads.user_ref`); the user-workload modules
read the built-in names from here, so nothing below the registry imports it.
"""

from __future__ import annotations

import importlib
import pkgutil

from golden.errors import SimtlabError
from golden.workloads.base import Workload
from golden.workloads.published import with_published

DEFS_PACKAGE = "golden.workloads.defs"


def all_workloads() -> dict[str, Workload]:
    """Every workload defined under ``golden/workloads/defs/``, keyed by its name, sorted.

    A module whose name starts with ``_`` is a helper and is skipped; every other module
    must define ``WORKLOAD``. Two workloads with the same name (case-insensitive) are an
    error. A workload whose paper names its input gets a ``published`` size
    (:mod:`golden.workloads.published`).
    """
    package = importlib.import_module(DEFS_PACKAGE)
    found: dict[str, Workload] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{DEFS_PACKAGE}.{info.name}")
        workload = getattr(module, "WORKLOAD", None)
        if not isinstance(workload, Workload):
            raise SimtlabError(
                f"workload module {module.__name__} must define WORKLOAD = Workload(...); "
                f"found {type(workload).__name__}")
        clash = [n for n in found if n.lower() == workload.name.lower()]
        if clash:
            raise SimtlabError(
                f"workload name {workload.name!r} (module {module.__name__}) is already used")
        found[workload.name] = workload
    for workload in found.values():
        check_variant(workload, found)
    return with_published(dict(sorted(found.items())))


def _papers(w: Workload) -> set[str]:
    """The seeds ``w`` stands for: the first word of each ``stands_for`` entry."""
    return {s.split(None, 1)[0] for s in w.stands_for if s.strip()}


def check_variant(w: Workload, workloads: dict[str, Workload]) -> None:
    """A paper-specific version (``w.variant_of``, see :mod:`golden.workloads.base`) must
    name an existing base workload that is not itself a version, be called
    ``<base>-<SUFFIX>``, and stand for no paper its base also stands for (each paper runs
    one version of a benchmark)."""
    base_name = w.variant_of
    if base_name is None:
        return
    base = workloads.get(base_name)
    if base is None:
        raise SimtlabError(f"workload {w.name!r} is a version of {base_name!r}, "
                           f"which is not a workload")
    if base.variant_of is not None:
        raise SimtlabError(f"workload {w.name!r} is a version of {base_name!r}, which is "
                           f"itself a version of {base.variant_of!r}; name the base")
    if not w.name.startswith(base_name + "-") or len(w.name) == len(base_name) + 1:
        raise SimtlabError(f"workload {w.name!r} is a version of {base_name!r}; "
                           f"call it {base_name}-<PAPER>")
    both = sorted(_papers(w) & _papers(base))
    if both:
        raise SimtlabError(f"workload {w.name!r} and its base {base_name!r} both stand for "
                           f"{', '.join(both)}; a paper's entry belongs to one of them")
