"""The bad-input corpus (issue 19): tests/bad_inputs/manifest.yaml lists malformed PTX, YAML
configurations, wrong kernel launches and command lines, each with the project error class
and a message fragment it must produce. Command-line cases run ``python -m golden.cli`` as a
subprocess: a non-zero exit, the fragment on stderr and never a Python traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

import golden.errors as errors
from golden.configs import load_config
from golden.host import Device

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES = yaml.safe_load((CORPUS / "manifest.yaml").read_text())
KINDS = ("ptx", "config", "launch", "cli")


def _cases(*kinds):
    return [pytest.param(c, id=c["id"]) for c in CASES if c["kind"] in kinds]


def test_manifest_is_well_formed():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    for c in CASES:
        assert c["kind"] in KINDS, c
        assert c.get("match"), c
        if c["kind"] != "cli":
            assert issubclass(getattr(errors, c["error"]), errors.SimtlabError), c
            if c["id"] != "config-missing-file":
                assert (CORPUS / c["file"]).is_file(), c
    # the user-error items that are fixed are all covered
    covered = {c["item"] for c in CASES}
    assert {1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18} <= covered


def _expect(case, fn):
    cls = getattr(errors, case["error"])
    with pytest.raises(errors.SimtlabError) as e:
        fn()
    assert type(e.value) is cls, f"{type(e.value).__name__}: {e.value}"
    assert case["match"] in str(e.value), str(e.value)


@pytest.fixture()
def in_corpus(monkeypatch):
    """File names in messages are relative to the corpus folder, as the manifest gives them."""
    monkeypatch.chdir(CORPUS)


@pytest.mark.parametrize("case", _cases("ptx"))
def test_ptx_case(case, in_corpus):
    def run():
        m = Device(echo_printf=False).load_module(case["file"])
        if "kernel" in case:
            m.get_function(case["kernel"]).program  # noqa: B018 - linking is the check
    _expect(case, run)


@pytest.mark.parametrize("case", _cases("config"))
def test_config_case(case, in_corpus):
    _expect(case, lambda: load_config(case["file"]))


def _device(case):
    if case.get("device") == "timing":
        from golden.timing.timing_device import TimingDevice
        return TimingDevice(load_config("gtx480"), echo_printf=False)
    return Device(echo_printf=False)


def _arg(dev, a):
    if isinstance(a, dict):
        (kind, v), = ((k, v) for k, v in a.items() if k != "size")
        if kind == "array":
            return dev.zeros(a["size"], np.dtype(v))
        if kind == "other_device_array":
            return Device(echo_printf=False).zeros(a["size"], np.dtype(v))
        return np.dtype(kind).type(v)
    return a


@pytest.mark.parametrize("case", _cases("launch"))
def test_launch_case(case, in_corpus):
    def run():
        dev = _device(case)
        k = dev.load_module(case["file"]).get_function(case["kernel"])
        grid, block = case["grid"], case["block"]
        grid = tuple(grid) if isinstance(grid, list) else grid
        block = tuple(block) if isinstance(block, list) else block
        k(grid, block, [_arg(dev, a) for a in case["args"]], shared_mem=case.get("shared_mem", 0))
    _expect(case, run)


def _cli(argv, tmp_path):
    argv = [a.replace("{dir}", str(CORPUS)).replace("{tmp}", str(tmp_path)) for a in argv]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "golden.cli", *argv], cwd=CORPUS, env=env,
                          capture_output=True, text=True, timeout=120)


def _check_cli(p, fragment, exit_code=None):
    out = p.stdout + p.stderr
    assert "Traceback" not in out, out
    assert p.returncode != 0, out
    if exit_code is not None:
        assert p.returncode == exit_code, out
    assert fragment in p.stderr, out


@pytest.mark.parametrize("case", _cases("cli"))
def test_cli_case(case, tmp_path):
    _check_cli(_cli(case["argv"], tmp_path), case["match"], case.get("exit"))


@pytest.mark.parametrize("case", [c for c in _cases("config") if c.values[0].get("cli")])
def test_config_case_on_the_command_line(case, tmp_path):
    """The same configuration through ``simtlab list --occupancy FILE``."""
    _check_cli(_cli(["list", "--occupancy", case["file"]], tmp_path), case["match"])
