"""Shared pytest configuration. Markers (declared in pyproject.toml):

* ``slow``: long-running tests (e.g. default-size workload runs); part of ``make test``;
  deselect them for a quick run with ``pytest -m "not slow"``.
* ``sweep``: every workload under every variant of a mechanism in timing mode (about
  1,900 timing runs of small inputs: CPU-hours). ``make test`` deselects them
  (``-m "not sweep"``) to stay inside the CI time budget; ``make speedups`` performs the
  same bit-identical-output check on every run and fails if it does not hold;
  ``make test-sweep`` runs them.

Option ``--shard I/N`` keeps every N-th collected test starting with the I-th (1-based),
so N machines or sessions can share a long run: ``make test-sweep SHARD=3/8``. The
collection order is fixed, so the N shards cover every test exactly once.
"""

import pytest


def pytest_addoption(parser):
    parser.addoption("--shard", default=None, metavar="I/N",
                     help="run only every N-th collected test, starting with the I-th (1-based)")


def _parse_shard(text: str) -> tuple[int, int]:
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise pytest.UsageError(f"--shard {text!r}: expected I/N, e.g. 2/8") from None
    if not 1 <= i <= n:
        raise pytest.UsageError(f"--shard {text!r}: need 1 <= I <= N")
    return i, n


@pytest.hookimpl(trylast=True)   # after -m / -k deselection: shards of what would run
def pytest_collection_modifyitems(config, items):
    text = config.getoption("--shard")
    if not text:
        return
    i, n = _parse_shard(text)
    keep = [it for k, it in enumerate(items) if k % n == i - 1]
    drop = [it for k, it in enumerate(items) if k % n != i - 1]
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


@pytest.fixture
def shrink_small(monkeypatch):
    """``shrink_small("BP", inputs=256)``: give a workload a smaller ``small`` input for
    one test. For tests that check a property (outputs unchanged, two counts equal, a
    structure replays) rather than a number: they hold on any input, and a smaller one
    keeps ``make test`` inside its time budget. Patches the defining module's ``WORKLOAD``
    (what :func:`golden.workloads.registry.all_workloads` reads) in this process only;
    returns the patched :class:`Workload`."""
    import dataclasses
    import importlib
    import pkgutil

    from golden.workloads import registry

    def apply(name: str, **params):
        w = registry.get(name)
        unknown = set(params) - set(w.sizes["small"])
        if unknown:
            raise KeyError(f"{name}: small size has no parameter(s) {sorted(unknown)}")
        small = {**w.sizes["small"], **params}
        # the module that defines WORKLOAD (its functions may live in a shared helper module);
        # found by name: the registry's object may be a copy (the published size added)
        module = next((m for m in (importlib.import_module(f"{registry.DEFS_PACKAGE}.{i.name}")
                                   for i in pkgutil.iter_modules(
                                       importlib.import_module(registry.DEFS_PACKAGE).__path__)
                                   if not i.name.startswith("_"))
                       if getattr(getattr(m, "WORKLOAD", None), "name", None) == w.name), None)
        assert module is not None, f"{name}: defining module not found"
        own = module.WORKLOAD
        monkeypatch.setattr(module, "WORKLOAD", dataclasses.replace(
            own, sizes={**own.sizes, "small": small}))
        return registry.get(name)

    def tiny(*names: str) -> None:
        """``shrink_small.tiny("BFS", "HS")``: each named workload (those in :data:`TINY`;
        others keep their ``small`` input) gets its :data:`TINY` input."""
        for name in names:
            if name in TINY:
                apply(name, **TINY[name])

    apply.tiny = tiny
    return apply


#: smaller ``small`` inputs for property tests (``shrink_small.tiny``): a few TBs per SM of
#: the small GPUs, every code path of the kernel still taken (tests/test_tiny_inputs.py runs
#: each against its numpy reference)
TINY = {
    "BFS": {"n_nodes": 1024},
    "HS": {"rows": 32, "cols": 32},
    "MM": {"hA": 32, "wA": 32, "wB": 32},
    "NQU": {"n": 8},
    "CP": {"atoms": 32},
    "SP": {"n_vectors": 32, "grid": 16},
    "MUM": {"n_reads": 256},
    "RAY": {"width": 64, "height": 48},
    "SCAN": {"n": 2500},
    "DT": {"width": 256, "height": 48},
    "LIB": {"paths": 256},
    "BP": {"inputs": 256},
    "BS": {"n_options": 4096},
    "MV": {"n_rows": 2048},
    "STO": {"n_messages": 1024},
}
