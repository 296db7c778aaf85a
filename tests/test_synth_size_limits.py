"""synth.export / synth.area refuse absurdly large targets before elaborating them
(issue 74 item 12), with a one-line error naming the stated limit; --allow-large lifts it."""

from __future__ import annotations

import time

import pytest

from synth.size_limits import MAX_DIMENSION, MAX_PRODUCT, size_problem
from synth.targets import load_targets, parse_targets

HUGE = """
targets:
  - name: pe_huge
    component: rtl.common.priority_encoder.PriorityEncoder
    params: {width: 100000}
  - name: cam_huge
    component: rtl.common.cam.CAM
    params: {entries: 65536, tag_width: 48}
"""


def test_every_listed_target_is_within_the_limits():
    for t in load_targets():
        assert size_problem(t) is None, t.name


def test_a_100000_wide_priority_encoder_and_a_65536_entry_cam_are_too_large():
    pe, cam = parse_targets(HUGE)
    assert "width=100,000 is above the limit of 4,096" in size_problem(pe)
    assert "entries=65,536" in size_problem(cam)
    wide, = parse_targets("targets:\n  - name: t\n    component: rtl.common.cam.CAM\n"
                          "    params: {entries: 4096, tag_width: 1024}\n")
    assert f"above the limit of {MAX_PRODUCT:,}" in size_problem(wide)
    budget, = parse_targets("targets:\n  - name: t\n    component: a.B\n"
                            "    params: {registers: 65536, shared_bytes: 98304, warps: 64}\n")
    assert size_problem(budget) is None     # budgets are counters, not replicated hardware
    assert MAX_DIMENSION >= 512 * 8


@pytest.mark.parametrize("tool", ["export", "area"])
def test_synth_refuses_a_huge_target_at_once_with_one_line(tool, tmp_path, capsys):
    import importlib
    main = importlib.import_module(f"synth.{tool}").main
    f = tmp_path / "targets.yaml"
    f.write_text(HUGE)
    t0 = time.monotonic()
    assert main(["--targets", str(f), "--out", str(tmp_path / "out")]) == 1
    assert time.monotonic() - t0 < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pe_huge" in err and "--allow-large" in err
    assert not (tmp_path / "out").exists()
