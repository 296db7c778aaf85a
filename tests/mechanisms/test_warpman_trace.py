"""golden/mechanisms/warpman/trace.py: the recorder contract with the WarpMan mechanism.

The real mechanism (golden/mechanisms/warpman/mechanism.py) is written separately; these
tests stand in a minimal mechanism that honours the documented contract, so the recording
path (factory, trace header, recorded cycles, read back) is checked on its own.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass

import pytest

from golden.errors import SimtlabError
from golden.mechanisms.warpman.trace import record_warpman_trace
from golden.structures.trace import read_trace
from golden.structures.warpman import (DispatchCheck, DispatchCheckParams, WorkloadBuffer,
                                       WorkloadBufferParams)
from golden.timing.hooks import Mechanism


@dataclass(frozen=True)
class _Params:
    spatial: bool = True


class _StandIn(Mechanism):
    """Per SM: one DispatchCheck and one WorkloadBuffer built through recorder_factory;
    every dispatched TB is checked, then loaded whole into the buffer and issued."""

    name = "warpman"

    def __init__(self, config, params, *, recorder_factory=None):
        self.config, self.params, self.factory = config, params, recorder_factory
        self.calls: list = []
        self.sms: dict = {}

    def _structures(self, sm):
        if sm.id not in self.sms:
            cp = DispatchCheckParams.from_config(self.config)
            wp = WorkloadBufferParams(tb_slots=cp.tb_slots, max_warps_per_tb=cp.max_warps_per_tb)
            self.calls += [("warpman_check", sm.id, cp), ("warpman_wb", sm.id, wp)]
            self.sms[sm.id] = (DispatchCheck(cp, recorder=self.factory("warpman_check", sm.id, cp)),
                               WorkloadBuffer(wp, recorder=self.factory("warpman_wb", sm.id, wp)))
        return self.sms[sm.id]

    def on_dispatch(self, sm, tb_id: int, warps_per_tb: int) -> bool:
        check, wb = self._structures(sm)
        cp = check.params
        assert check.check(free_warps=cp.warp_slots, free_tbs=cp.tb_slots,
                           free_regs=cp.registers, free_shared=cp.shared_bytes,
                           warps_per_tb=warps_per_tb, regs_per_warp=0, shared_per_tb=0).tb_ok
        wb.load(0, tb_id, 0, warps_per_tb - 1)
        while wb.issue() is not None:
            pass
        return True


@pytest.fixture
def stand_in(monkeypatch):
    made = []

    def make(config, params, *, recorder_factory=None):
        mech = _StandIn(config, params, recorder_factory=recorder_factory)
        made.append(mech)
        return mech

    module = types.ModuleType("golden.mechanisms.warpman.mechanism")
    module.WarpManMechanism, module.WarpManParams = make, _Params
    monkeypatch.setitem(sys.modules, "golden.mechanisms.warpman.mechanism", module)
    return made


@pytest.mark.parametrize("structure", ["warpman_wb", "warpman_check"])
def test_records_sm0s_structure_through_the_factory(stand_in, structure, tmp_path):
    path = record_warpman_trace(structure, "VA", tmp_path / f"{structure}.jsonl", max_cycles=7,
                                spatial=False)
    (mech,) = stand_in
    assert mech.params == _Params(spatial=False)
    assert {name for name, _, _ in mech.calls} == {"warpman_wb", "warpman_check"}
    trace = read_trace(path)
    assert trace.structure == structure
    assert trace.meta["workload"] == "VA" and trace.meta["sm"] == 0
    assert trace.meta["config"] == "gtx480_warpman"
    assert 0 < len(trace.cycles) <= 7
    golden = (WorkloadBuffer if structure == "warpman_wb" else DispatchCheck)(trace.params)
    assert [golden.step(ops) for ops, _ in trace.cycles] == [out for _, out in trace.cycles]


def test_unknown_structure_is_an_error(tmp_path):
    with pytest.raises(SimtlabError, match="warpman_wb"):
        record_warpman_trace("warpman_nope", "VA", tmp_path / "x.jsonl")
