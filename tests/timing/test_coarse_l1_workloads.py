"""The coarse-grained L1 (memory.l1.fetch_group) on whole kernels: a streaming kernel (VA)
misses less in the L1 at G = 2 and 4, the L2 and DRAM see the bytes the groups fetch,
outputs stay bit-identical, and a policy can switch SMs per launch through the SM's
memory hierarchy (the hook a set-dueling helper uses)."""

import numpy as np
import pytest

from golden.configs import load_config
from golden.timing.hooks import Mechanism
from golden.timing.memory import L1AccessRecorder
from golden.timing.timing_device import TimingDevice
from golden.workloads import registry


def run(group, mechanisms=(), workload="VA", size="small"):
    cfg = load_config("gtx480_coarse", {"memory.l1.fetch_group": group})
    dev = TimingDevice(cfg, mechanisms=mechanisms, echo_printf=False)
    rec = L1AccessRecorder()
    dev.gpu.memory_observers.append(rec)
    r = registry.run_workload(workload, size=size, seed=0, device=dev)
    assert not r.mismatches()
    return r, rec


@pytest.fixture(scope="module")
def va_runs():
    return {g: run(g) for g in (1, 2, 4)}


def test_streaming_kernel_misses_less_with_fetch_groups(va_runs):
    t = {g: va_runs[g][0].stats[0].timing for g in (1, 2, 4)}
    assert t[2].l1_misses < t[1].l1_misses and t[4].l1_misses < t[2].l1_misses
    # VA reads each 128 B line once: the baseline misses on every load transaction
    assert t[1].l1_hits == 0
    # same L1 accesses (the recorder sees the same transactions at every G)
    assert len(va_runs[1][1]) == len(va_runs[2][1]) == len(va_runs[4][1])


def test_l2_and_dram_account_the_group_bytes(va_runs):
    t = {g: va_runs[g][0].stats[0].timing for g in (1, 2, 4)}
    # every line of the inputs is read once either way (the groups stay inside the
    # arrays or fetch lines the baseline never reads: never fewer bytes)
    for g in (2, 4):
        assert t[g].dram_read_bytes >= t[1].dram_read_bytes
        assert t[g].l2_hits + t[g].l2_misses >= t[1].l2_hits + t[1].l2_misses
        assert t[g].dram_read_bytes % 32 == 0


def test_outputs_unchanged(va_runs):
    out = {g: va_runs[g][0].outputs for g in (1, 2, 4)}
    for g in (2, 4):
        for k in out[1]:
            assert np.array_equal(out[1][k], out[g][k])


class OddSMsCoarse(Mechanism):
    """Puts odd SMs in coarse2 when they get a TB (what a set-dueling policy would do)."""

    name = "odd-coarse"

    def __init__(self):
        self.memories = set()

    def on_dispatch(self, sm, tb_id, warps_per_tb):
        if sm.memory.l1_fetch_group(sm.id) != 1 + sm.id % 2:
            sm.memory.set_l1_fetch_group(sm.id, 1 + sm.id % 2)
        self.memories.add(sm.memory)
        return True


def test_per_sm_switch_during_a_run(va_runs):
    mech = OddSMsCoarse()
    r, rec = run(1, mechanisms=(mech,))
    (mem,) = mech.memories
    assert [mem.l1_fetch_group(i) for i in range(4)] == [1, 2, 1, 2]
    gc = mem.l1_group_counters()
    assert gc["l1_group_requests"] > 0 and gc["l1_group_extra_lines"] > 0
    t = r.stats[0].timing
    assert va_runs[2][0].stats[0].timing.l1_misses < t.l1_misses < \
        va_runs[1][0].stats[0].timing.l1_misses
