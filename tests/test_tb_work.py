"""Work per thread block (golden/workloads/tb_work.py): the ILP report's workload facts."""

from __future__ import annotations

import numpy as np
import pytest

from golden.configs import load_config
from golden.workloads.tb_work import main_launch, summarise, tb_work


def test_summarise_on_a_known_launch():
    launch = {"kernel": "k", "num_tbs": 4, "warp": np.array([10, 2, 2, 6]),
              "thread": np.array([320, 64, 64, 192]), "branch": np.array([5, 0, 1, 0])}
    s = summarise(launch)
    assert s["warp_instructions"] == 20 and s["thread_instructions"] == 640
    assert s["tb0_share"] == 0.5 and s["largest_tb"] == 0 and s["largest_tb_share"] == 0.5
    assert s["largest_over_mean"] == 2.0            # 10 against a mean of 5
    assert s["branch_share"] == 0.3 and s["tb0_branch_share"] == 0.5


def test_balanced_kernel_and_the_observer_counts_every_instruction():
    # MM: every TB computes one tile, the same instruction stream; the observer's per-TB
    # counts add up to the launch's own statistics (tb_work raises otherwise)
    r = tb_work("MM", "small", 0, load_config("gtx280"))
    assert r["outputs_match"]
    m = main_launch(r)
    assert m["largest_over_mean"] == pytest.approx(1.0)
    assert m["tb0_share"] == pytest.approx(1 / m["num_tbs"])
    assert 0 < m["branch_share"] < 0.2


def test_nqu_holds_15_4_kb_of_shared_memory_per_tb_one_tb_per_sm():
    # ILP chapter §4.1: 15.4 kB per TB (four 10 x 96-word stacks + a 96-word reduction
    # buffer = 15,744 B), so one TB per SM on the 16 KB-shared gtx280_ilp
    r = tb_work("NQU", "small", 0, load_config("gtx280"))
    assert r["outputs_match"]
    (k,) = r["occupancy"]["kernels"]
    assert k["shared_per_tb"] == 15744 and k["tbs_per_sm"] == 1
    assert "shared memory" in k["limiters"]
    m = main_launch(r)
    assert m["kernel"] == "nqueens_count" and r["launches"] == [m]
    # §4.4.3: 13.7% of TB0's instructions are branches
    assert 0.10 < m["tb0_branch_share"] < 0.18


def test_nqu_tb0_does_nearly_all_the_work():
    # ILP chapter §4.1: NQU's TB0 dominates the runtime (its `if (idx < total_conditions)`
    # test); every sub-problem falls in TB0, the other TBs only run the block reduction
    r = tb_work("NQU", "small", 0)
    m = main_launch(r)
    assert m["num_tbs"] > 1 and m["largest_tb"] == 0
    assert m["tb0_share"] > 0.9        # 96% at small size (8 TBs) and at paper size (32)


def test_nqu_split_fills_every_warp_of_tb0_at_paper_size():
    # the host's rule: the deepest split whose sub-problems fit one 96-thread TB, no
    # symmetry folding; at paper size (n = 10) that is 72 sub-problems after 2 rows, so
    # all three warps of TB0 have sub-problems and no other TB has any
    from golden.workloads.defs import nqu
    n = nqu.WORKLOAD.sizes["paper"]["n"]
    depth = nqu.split_depth(n)
    total = len(nqu._conditions(n, depth))
    assert (n, depth, total) == (10, 2, 72)
    assert 2 * 32 < total <= nqu.TB     # warp 2 busy, nothing beyond TB0
    assert len(nqu._conditions(n, depth + 1)) > nqu.TB   # one row deeper would not fit


def test_nqu_split_depth_refuses_a_board_whose_first_row_leaves_too_much():
    from golden.errors import ConfigError
    from golden.workloads.defs import nqu
    with pytest.raises(ConfigError, match="NQU"):
        nqu.make_inputs({"n": 12, "grid_tbs": 1}, None)
