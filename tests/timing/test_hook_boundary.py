"""The hook boundary of the timing model (golden/timing/hooks.py, issue 70 item 3):
launch_begin / launch_end bracket every launch, and mechanisms reach the SM only through
its public fields and services, never its private state or private names of golden.timing."""

import ast
from pathlib import Path

from golden.workloads import registry
from golden.configs import load_config
from golden.timing.hooks import Mechanism
from golden.timing.timing_device import TimingDevice

MECHANISMS = Path(__file__).resolve().parents[2] / "golden" / "mechanisms"


class _Recorder(Mechanism):
    """Records the launch hooks and which launch every other hook call belongs to."""

    name = "recorder"
    sampling = "any"
    sampling_reason = "test"

    def __init__(self):
        self.events = []
        self.current = None
        self.misplaced = 0
        self.completed = 0

    def launch_begin(self, launch, sms):
        assert self.current is None, "launch_begin before the previous launch ended"
        self.current = launch
        self.events.append(("begin", id(launch), len(sms)))

    def launch_end(self, launch, stats):
        assert launch is self.current
        self.events.append(("end", id(launch), stats.cycles))
        self.current = None
        super().launch_end(launch, stats)

    def on_complete(self, stats):
        self.completed += 1

    def on_dispatch(self, sm, tb_id, warps_per_tb):
        self.misplaced += sm.launch is not self.current
        return True

    def on_issue(self, sm, warp, pc, inst):
        self.misplaced += sm.launch is not self.current
        return None


def test_launch_begin_and_end_bracket_every_launch_and_call_on_complete():
    cfg = load_config("pascal")
    rec = _Recorder()
    registry.run_workload("FWS", "small", 0,
                          device=TimingDevice(cfg, mechanisms=(rec,), echo_printf=False))
    begins = [e for e in rec.events if e[0] == "begin"]
    assert len(begins) > 1                       # FWS launches its kernel several times
    assert [e[0] for e in rec.events] == ["begin", "end"] * len(begins)
    assert all(e[2] == cfg.core.num_sms for e in begins)
    assert all(e[2] > 0 for e in rec.events if e[0] == "end")
    assert rec.completed == len(begins)          # the base launch_end calls on_complete
    assert rec.misplaced == 0 and rec.current is None


def _private_uses(path: Path) -> list[str]:
    """Private SM state (``sm._x``, ``sm.oc``), ``sm.launch`` identity tests and private
    imports from golden.timing in one mechanism module."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            owner = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
            if owner == "sm" and (node.attr.startswith("_") or node.attr == "oc"):
                out.append(f"{path.name}:{node.lineno}: sm.{node.attr}")
        if isinstance(node, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot))
                                                 for o in node.ops):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "launch" for s in sides):
                out.append(f"{path.name}:{node.lineno}: compares a launch by identity")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("golden.timing"):
            out += [f"{path.name}:{node.lineno}: imports {node.module}.{a.name}"
                    for a in node.names if a.name.startswith("_")]
    return out


def test_mechanisms_use_no_private_sm_state_nor_launch_comparisons():
    found = [u for p in sorted(MECHANISMS.rglob("*.py")) for u in _private_uses(p)]
    assert found == []


def test_the_boundary_check_finds_a_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from golden.timing.sm import _NO_DST\n"
                   "def f(self, sm):\n"
                   "    sm._seq += 1\n"
                   "    sm.oc.read(0, 0, [], None)\n"
                   "    return sm.launch is not self._launch\n")
    assert len(_private_uses(bad)) == 4
