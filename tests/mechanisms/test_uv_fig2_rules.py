"""The UV limit study's counting (golden/mechanisms/uv/limit_study.py) against the rules of
the chapter's Fig. 2 (seed 002 ch. 2 §2.2, paper-facts §2.1), pinned on VA's PTX, whose
every instruction can be counted by hand.

VA at ``small`` (n = 10,000): 40 TBs of 256 threads = 320 warps. Every warp runs the nine
instructions before the bound check (4 ``ld.param``, ``mov`` of %ctaid / %ntid / %tid,
``mad``, ``setp``); the guarded ``bra`` has 240 taken lanes (the threads past n); 10,000
threads run the 11 body instructions (3 ``cvta.to.global``, ``mul.wide``, 4 ``add``,
2 ``ld.global``, ``st``); every lane runs ``ret``. 312 warps run the body with a full
mask; warp 312 (TB 39) with 16 lanes.
"""

from __future__ import annotations

from golden.mechanisms.uv.limit_study import study_workload

WARPS, TBS, FULL_BODY_WARPS = 320, 40, 312


def test_scalar_instructions_count_every_executed_lane_memory_and_branches_included():
    """§2.1: normalised to all dynamic scalar instructions, not only the countable ones."""
    d = study_workload("VA", "small")
    assert d["outputs_match"]
    assert d["scalar_instructions"] == WARPS * 32 * 9 + 240 + 10_000 * 11 + WARPS * 32


def test_intra_warp_uniform_excludes_memory_branches_and_partial_masks():
    """§2.1: all sources uniform and a full active mask; branches and memory instructions
    (here the four ld.param, whose values are uniform) never count. VA's intra-uniform
    instructions are mov %ctaid and mov %ntid in every warp and the three cvta.to.global
    in the 312 warps with a full mask in the body (warp 312's are divergent)."""
    d = study_workload("VA", "small")
    assert d["intra_instances"] == 2 * WARPS + 3 * FULL_BODY_WARPS
    assert d["intra"] == 31 * d["intra_instances"] / d["scalar_instructions"]


def test_inter_warp_uniform_is_an_earlier_warp_with_the_same_sources():
    """§2.1: an intra-uniform instance whose sources an earlier instance of the same
    instruction by another warp had; 32 alone, 1 combined with intra (31 counted there).
    mov %ntid: every warp but the first; mov %ctaid: every warp but the first of its TB;
    each cvta: every full-mask body warp but the first. Within one TB, ntid also misses the
    first warp of each TB and each cvta the first warp of each of the 39 full TBs."""
    d = study_workload("VA", "small")
    cvta = FULL_BODY_WARPS - 1
    assert d["inter_instances"] == (WARPS - 1) + (WARPS - TBS) + 3 * cvta
    assert d["inter_tb_instances"] == 2 * (WARPS - TBS) + 3 * 39 * 7
    n = d["scalar_instructions"]
    assert d["inter"] == 32 * d["inter_instances"] / n
    assert d["combined"] == (31 * d["intra_instances"] + d["inter_instances"]) / n
