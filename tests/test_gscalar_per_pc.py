"""Per-PC G-Scalar counters (golden/mechanisms/gscalar/per_pc.py) and the HS input study."""

from golden.mechanisms.gscalar.hs_study import INPUTS, run_case
from golden.mechanisms.gscalar.per_pc import pc_table


def test_per_pc_counts_sum_to_the_observer_totals():
    row, obs = run_case("small", "generated")
    rows = pc_table(obs)
    c = obs.counts
    assert sum(r["insts"] for r in rows) == c.warp_insts
    assert sum(r["div"] for r in rows) == c.divergent
    assert sum(r["oracle"] for r in rows) == c.div_scalar_values
    assert sum(r["e_div"] for r in rows) == c.elig_div
    assert row["outputs_match"]


def test_hs_constant_input_raises_divergent_scalar_and_keeps_outputs():
    gen, _ = run_case("small", "generated")
    const, _ = run_case("small", "constant")
    assert const["outputs_match"] and gen["outputs_match"]
    assert const["warp_insts"] == gen["warp_insts"]      # input changes values, not control flow
    assert const["e_div"] > gen["e_div"]
    assert set(INPUTS) >= {"generated", "constant", "smooth"}
