"""Cross-block synchronisation through global memory (issue 19): spin-waits on a lock or a
flag that another thread block releases must finish in functional mode (fair scheduling of
warp groups), contended compare-and-swap loops must be fast, and the watchdogs must stop a
kernel that never terminates with a report of the loops its warps are stuck in.

Sources: tests/simt/kernels/spin_sync.cu (PTX committed beside it, ``nvcc -ptx -arch=sm_75``).
"""

from pathlib import Path

import numpy as np
import pytest

from golden.errors import DeadlockError
from golden.host import Device
from golden.simt.engine import FunctionalLaunch

PTX = Path(__file__).parent / "kernels" / "spin_sync.ptx"


@pytest.fixture()
def dev():
    return Device(echo_printf=False)


@pytest.fixture()
def mod(dev):
    return dev.load_module(PTX)


def _run(dev, k, grid, block, args, limit=2_000_000):
    """Launch through FunctionalLaunch with an explicit warp-instruction watchdog, so that a
    livelock fails the test quickly instead of hanging it."""
    geo, dyn = k.launch_geometry(grid, block, 0)
    launch = FunctionalLaunch(dev, k.program, geo, k.pack_args(args), dyn_shared=dyn,
                              watchdog=limit)
    return launch.run()


def test_cross_block_spinlock_makes_progress(dev, mod):
    nb = 40
    lock, counter = dev.zeros(1, np.int32), dev.zeros(1, np.int32)
    seen = dev.to_device(np.full(nb, -1, np.int32))
    _run(dev, mod.get_function("lock_counter"), nb, 64, (lock, counter, seen))
    assert counter.get()[0] == nb           # every increment happened under the lock
    assert sorted(seen.get().tolist()) == list(range(nb))  # ... once, each seeing a new value
    assert lock.get()[0] == 0


def test_flag_set_by_another_block_is_seen(dev, mod):
    work = 200
    flag, out = dev.zeros(1, np.int32), dev.zeros(2, np.int32)
    _run(dev, mod.get_function("flag_wait"), 6, 64, (flag, out, np.int32(work)))
    acc = 0
    for i in range(work):
        acc = (acc + (i ^ (acc >> 3))) & 0xFFFFFFFF
    acc = acc - (1 << 32) if acc >> 31 else acc
    assert out.get().tolist() == [1 + (acc & 1023), acc]
    assert flag.get()[0] == 1 + (acc & 1023)
