"""The typed twins of DARSIE's skip table and rename table (``skip_table_fast``,
``rename_table_fast``: the timing model's hot path) against their reference structures:
the same event streams, seeded random ones and the events of a real-kernel DARSIE run, give
identical results and identical state after every event."""

from __future__ import annotations

import random

import pytest

from golden.structures.darsie.rename_table import RenameTable, RenameTableParams
from golden.structures.darsie.rename_table_fast import RenameTableFast
from golden.structures.darsie.skip_table import SkipTable, SkipTableParams
from golden.structures.darsie.skip_table_fast import SkipTableFast

_ALLOC_FIELDS = ("alloc_index", "alloc_hit", "alloc_evict", "alloc_evict_pc", "alloc_evict_mask")


# ---------------------------------------------------------------- state and result views
def skip_state(t, banks=None) -> list:
    """What a skip table holds in ``banks`` (default: every bank), through the interface
    both forms share."""
    banks = range(t.params.tbs) if banks is None else banks
    return [(t.entries_of(tb), t.majority(tb), t.lru_order(tb), t.full(tb)) for tb in banks]


def skip_changed(t, method: str, args: tuple) -> list:
    """The state a skip-table event can change: its bank, or every bank (global atomic)."""
    return skip_state(t, None if method == "global_atomic" else [args[0]])


def rename_state(t) -> tuple:
    """Everything a rename table holds, through the interface both forms share."""
    return t.valid, [t.mapping(w) for w in range(t.params.warps)]


def rename_changed(t, method: str, args: tuple):
    """The state a rename-table event can change in the per-warp organisation: none for a
    lookup, the entries in use and the event's warp's mappings for a set or drop, all for a
    clear or flush."""
    if method == "lookup":
        return None
    if method in ("set", "drop") and t.params.per_warp_versions:
        return t.valid, t.mapping(args[0])
    return rename_state(t)


def result_view(method: str, result):
    """A per-event result in comparable form: ``alloc`` of the reference returns the whole
    cycle's outputs, of the twin only the write port's; both carry the ``alloc_*`` fields."""
    if method == "alloc":
        return tuple(int(getattr(result, f)) for f in _ALLOC_FIELDS)
    return result


class Lockstep:
    """Forwards each per-event call to a reference structure and its twin, checks that the
    results agree and that the state the event can change (``changed(table, method, args)``)
    agrees after it, and returns the reference's result. :meth:`check_all` compares the
    whole state (``state(table)``)."""

    def __init__(self, ref, fast, state, changed=None):
        self.ref, self.fast, self.state = ref, fast, state
        self.changed = changed or (lambda t, method, args: state(t))
        self.events = 0

    def check_all(self):
        assert self.state(self.fast) == self.state(self.ref), f"after {self.events} events"

    @property
    def params(self):
        return self.ref.params

    def __getattr__(self, name):
        ref_method, fast_method = getattr(self.ref, name), getattr(self.fast, name)
        if not callable(ref_method):
            return ref_method

        def both(*args, **kwargs):
            want = ref_method(*args, **kwargs)
            got = fast_method(*args, **kwargs)
            where = f"event {self.events}: {name}{args}{kwargs or ''}"
            assert result_view(name, got) == result_view(name, want), where
            assert (self.changed(self.fast, name, args)
                    == self.changed(self.ref, name, args)), where
            self.events += 1
            return want
        return both


# ---------------------------------------------------------------- seeded random streams
SKIP_PARAMS = [
    SkipTableParams(tbs=3, entries=4, warps=6, pc_width=5),
    SkipTableParams(tbs=2, entries=3, warps=32, pc_width=6),          # index 3 fits, no entry
    SkipTableParams(tbs=3, entries=2, warps=5, pc_width=4, sync_bit=False),  # paper's 82 bits
    SkipTableParams(tbs=4, entries=8, warps=32, pc_width=48),         # paper sizes, 4 banks
    SkipTableParams(tbs=2, entries=32, warps=8, pc_width=6),          # full() past a C int's bits
    SkipTableParams(tbs=1, entries=64, warps=4, pc_width=7),
]


def random_skip_events(p: SkipTableParams, rng: random.Random, n: int):
    pcs = [rng.randrange(1 << p.pc_width) for _ in range(p.entries + 3)]
    index_span = 1 << p.index_width
    for _ in range(n):
        tb = rng.randrange(p.tbs)
        kind = rng.choices(["probe", "alloc", "arrive", "leader_wb", "invalidate", "flush_tb",
                            "store", "global_atomic", "set_majority"],
                           [20, 12, 25, 8, 5, 2, 4, 1, 6])[0]
        if kind == "probe":
            yield kind, (tb, rng.choice(pcs)), {}
        elif kind == "alloc":
            yield kind, (tb, rng.choice(pcs), rng.randrange(p.warps)), {
                "is_load": rng.random() < 0.4, "sync": rng.random() < 0.3}
        elif kind == "arrive":
            yield kind, (tb, rng.randrange(index_span), rng.randrange(p.warps)), {}
        elif kind in ("leader_wb", "invalidate"):
            yield kind, (tb, rng.randrange(index_span)), {}
        elif kind in ("flush_tb", "store"):
            yield kind, (tb,), {}
        elif kind == "global_atomic":
            yield kind, (), {}
        else:   # a sparse mask now and then, so that arrivals complete entries
            bits = rng.choice([p.warps, 2, 1])
            mask = 0
            for _ in range(bits):
                mask |= 1 << rng.randrange(p.warps)
            yield kind, (tb, mask), {}


@pytest.mark.parametrize("params", SKIP_PARAMS, ids=lambda p: f"{p.tbs}x{p.entries}w{p.warps}"
                         f"{'' if p.sync_bit else '-nosync'}")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_skip_table_twin_matches_reference_on_random_events(params, seed):
    rng = random.Random(seed)
    table = Lockstep(SkipTable(params), SkipTableFast(params), skip_state)
    for method, args, kwargs in random_skip_events(params, rng, 1500):
        getattr(table, method)(*args, **kwargs)
    assert table.events == 1500


RENAME_PARAMS = [
    RenameTableParams(warps=4, entries=3, reg_width=3, version_width=2),
    RenameTableParams(warps=32, entries=6, reg_width=4, version_width=3),
    RenameTableParams(warps=5, entries=3, reg_width=3, version_width=2, per_warp_versions=False),
    RenameTableParams(warps=32, entries=70, reg_width=8, version_width=5),   # entries past 63
]


def random_rename_events(p: RenameTableParams, rng: random.Random, n: int):
    regs = range(min(1 << p.reg_width, p.entries + 2))
    for _ in range(n):
        kind = rng.choices(["lookup", "set", "drop", "clear_warp", "flush"], [30, 35, 20, 4, 1])[0]
        w = rng.randrange(p.warps)
        if kind == "lookup":
            yield kind, (w, rng.choice(regs))
        elif kind == "set":
            yield kind, (w, rng.choice(regs), rng.randrange(1 << p.version_width))
        elif kind == "drop":
            yield kind, (w, rng.choice(regs))
        elif kind == "clear_warp":
            yield kind, (w,)
        else:
            yield kind, ()


@pytest.mark.parametrize("params", RENAME_PARAMS, ids=lambda p: f"w{p.warps}e{p.entries}"
                         f"{'' if p.per_warp_versions else '-paper'}")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rename_table_twin_matches_reference_on_random_events(params, seed):
    rng = random.Random(seed)
    table = Lockstep(RenameTable(params), RenameTableFast(params), rename_state)
    holders_checked = 0
    for method, args in random_rename_events(params, rng, 1500):
        getattr(table, method)(*args)
        if method == "set":        # the holders query both forms answer
            reg, ver = args[1], args[2]
            assert table.fast.holders(reg, ver) == table.ref.holders(reg, ver)
            holders_checked += 1
    assert table.events == 1500 and holders_checked > 0


# ---------------------------------------------------------------- a real-kernel DARSIE run
@pytest.mark.parametrize("variant", ["paper", "stress"])
def test_twins_match_references_on_a_real_darsie_run(monkeypatch, variant):
    """HS (size small) on the pascal model with DARSIE, every skip table and rename table a
    Lockstep pair: each event the mechanism issues is checked, and the run's outputs must
    still equal the numpy reference. ``stress`` is tb/darsie's small-table variant (2 skip
    entries per TB, 6 rename entries: evictions, full tables, synchronisation points)."""
    from golden.configs import load_config
    from golden.mechanisms.darsie import skip
    from golden.mechanisms.darsie.skip import DarsieMechanism, DarsieParams
    from golden.timing.timing_device import TimingDevice
    from golden.workloads import registry
    from tb.darsie.golden_traces import VARIANTS

    pairs = []

    def skip_pair(params):
        pairs.append(Lockstep(SkipTable(params, check=False), SkipTableFast(params), skip_state,
                              skip_changed))
        return pairs[-1]

    def rename_pair(params):
        pairs.append(Lockstep(RenameTable(params, check=False), RenameTableFast(params), rename_state,
                              rename_changed))
        return pairs[-1]

    monkeypatch.setattr(skip, "SkipTableFast", skip_pair)
    monkeypatch.setattr(skip, "RenameTableFast", rename_pair)
    cfg = load_config("pascal")
    mech = DarsieMechanism(cfg, DarsieParams(**VARIANTS[variant]))
    dev = TimingDevice(cfg, mechanisms=[mech], echo_printf=False)
    run = registry.run_workload(registry.get("HS"), "small", 0, device=dev)
    assert not run.mismatches()
    for pair in pairs:
        pair.check_all()
    skip_events = sum(p.events for p in pairs if isinstance(p.ref, SkipTable))
    rename_events = sum(p.events for p in pairs if isinstance(p.ref, RenameTable))
    assert skip_events > 1000 and rename_events > 1000, (skip_events, rename_events)
