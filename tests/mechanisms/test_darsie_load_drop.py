"""DARSIE §4.4: a store removes the TB's load entries. The warps that already took a
removed entry (its leader, the followers that skipped it) are past its PC and must count as
arrived at a later entry for that PC in the same barrier window; otherwise a later Sync
entry for the PC waits for them forever (LIBBENCH, the LIBOR benchmark's inputs, deadlocked
on a 2-SM Pascal with plain ``darsie``)."""

import dataclasses
import importlib.util
from pathlib import Path

import pytest

from golden.configs import load_config
from golden.mechanisms.darsie.skip import DarsieMechanism
from golden.mechanisms.registry import make_mechanisms
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry

BENCH = Path(__file__).resolve().parents[2] / "docs" / "results" / "darsie_lib_bench"


def _libbench(paths: int):
    spec = importlib.util.spec_from_file_location("lib_bench_test", BENCH / "lib_bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    w = mod.WORKLOAD
    return dataclasses.replace(w, sizes={"small": dict(w.sizes["small"], paths=paths)})


def _drops_checked(monkeypatch, mech: str) -> list[bool]:
    """Run LIBBENCH (one TB) and, at every load-entry drop, whether each dropped entry's
    arrived warps (not held at it) are recorded as passed for its PC."""
    orig = DarsieMechanism._drop_loads
    seen: list[bool] = []

    def checked(self, sm, s, slots, store_tb):
        before = []
        for slot in slots:
            rows = s.table.entries_of(slot.index)
            for e in slot.entries.values():
                r = rows.get(e.index) if e.is_load and not e.complete else None
                if r is not None:
                    held = 0
                    for x in e.waiters:
                        held |= 1 << x.widx
                    if r.mask & ~held:
                        before.append((slot, e.pc, r.mask & ~held))
        orig(self, sm, s, slots, store_tb)
        seen.extend(slot.passed.get(pc, 0) & m == m for slot, pc, m in before)

    monkeypatch.setattr(DarsieMechanism, "_drop_loads", checked)
    cfg = load_config("pascal")
    dev = TimingDevice(cfg, mechanisms=make_mechanisms([mech], cfg), echo_printf=False)
    run = registry.run_workload(_libbench(256), size="small", device=dev)
    assert not run.mismatches()
    return seen


@pytest.mark.slow
def test_warps_that_took_a_dropped_load_entry_count_as_passed(monkeypatch):
    new = _drops_checked(monkeypatch, "darsie:freelist=64,rename_entries=64")
    assert new and all(new)
    old = _drops_checked(monkeypatch, "darsie:freelist=64,rename_entries=64,drop_keeps_arrivals=false")
    assert old and not any(old)   # the model before: their arrivals were forgotten
