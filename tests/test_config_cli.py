"""`simtlab config new NAME --from CONFIG` and `simtlab config show NAME|FILE`: the new file
inherits every value, show names the file:line that set each value, and a run uses it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from golden.cli import main
from golden.configs import load_config
from golden.configs.provenance import effective_config

DATA = Path(__file__).resolve().parent / "data"


def _new(tmp_path, capsys, name="mygpu", parent="gtx480") -> Path:
    out = tmp_path / f"{name}.yaml"
    assert main(["config", "new", name, "--from", parent, "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_new_config_inherits_every_value(tmp_path, capsys):
    out = _new(tmp_path, capsys)
    cfg, parent = load_config(out), load_config("gtx480")
    assert cfg.name == "mygpu"
    assert replace(cfg, name=parent.name, description=parent.description) == parent
    text = out.read_text()
    assert "inherits: gtx480" in text
    # every inherited key is listed, commented out, with the citation of the line that set it
    assert "#   num_sms: 15" in text and "gtx480.yaml:11: G-Scalar Table 1: 15 SMs" in text


def test_show_names_the_file_and_line_of_every_value(tmp_path, capsys):
    _, rows = effective_config("gtx480_warpman")
    by_key = {r.key: r for r in rows}
    for r in rows:
        if r.file is None:
            continue
        line = r.file.read_text().splitlines()[r.line - 1]
        assert f"{r.key.split('.')[-1]}:" in line, (r.key, r.where, line)
    assert by_key["core.scheduler"].file.name == "gtx480_warpman.yaml"
    assert by_key["core.num_sms"].file.name == "gtx480.yaml"
    assert by_key["memory.l1.assoc"].file.name == "gtx480_warpman.yaml"
    assert by_key["memory.l1.fetch_group"].where == "default (schema)"
    assert main(["config", "show", "gtx480_warpman", "--json", str(tmp_path / "s.json")]) == 0
    shown = capsys.readouterr().out
    assert "gtx480_warpman.yaml:9" in shown
    d = json.loads((tmp_path / "s.json").read_text())
    assert {v["key"]: v["set_by"] for v in d["values"]}["memory.l1.fetch_group"] == \
        "default (schema)"


def test_edited_new_config_round_trips_through_show_and_runs(tmp_path, capsys, monkeypatch):
    out = _new(tmp_path, capsys)
    text = out.read_text().replace(
        "# core:\n#   num_sms: 15", "core:\n  num_sms: 4 # my GPU: 4 SMs\n#   num_sms: 15", 1)
    out.write_text(text)
    changed = text.splitlines().index("  num_sms: 4 # my GPU: 4 SMs") + 1
    monkeypatch.chdir(tmp_path)
    assert main(["config", "show", str(out)]) == 0
    shown = capsys.readouterr().out.splitlines()
    num_sms = next(ln for ln in shown if ln.startswith("core.num_sms "))
    assert num_sms.split()[1] == "4" and num_sms.endswith(f"mygpu.yaml:{changed}")
    clock = next(ln for ln in shown if ln.startswith("core.clock_mhz "))
    assert "golden/configs/gtx480.yaml:12" in clock
    assert load_config(out).core.num_sms == 4
    monkeypatch.chdir(Path(__file__).resolve().parent.parent)
    rc = main(["run", str(DATA / "user_kernels.ptx"), "--args", str(DATA / "histogram.yaml"),
               "--mode", "timing", "--config", str(out), "--json", str(tmp_path / "r.json")])
    assert rc == 0, capsys.readouterr()
    d = json.loads((tmp_path / "r.json").read_text())
    assert d["config"] == "mygpu" and d["outputs_match"]


def test_new_refuses_to_overwrite_and_bad_parent_is_one_line(tmp_path, capsys):
    out = _new(tmp_path, capsys)
    assert main(["config", "new", "mygpu", "--from", "gtx480", "--out", str(out)]) == 2
    assert "exists; choose another --out or pass --force" in capsys.readouterr().err
    assert main(["config", "new", "x", "--from", "gtx999", "--out",
                 str(tmp_path / "x.yaml")]) == 2
    err = capsys.readouterr().err
    assert "unknown configuration 'gtx999'" in err and err.count("\n") == 1
    assert main(["config", "new", "bad name", "--from", "gtx480", "--out",
                 str(tmp_path / "y.yaml")]) == 2
    assert "use letters, digits" in capsys.readouterr().err


def test_new_from_a_user_file_inherits_it_by_relative_path(tmp_path, capsys):
    out = tmp_path / "sub" / "g2.yaml"
    assert main(["config", "new", "g2", "--from", str(DATA / "gtx480_8sm.yaml"),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert "inherits: ../" in out.read_text()
    cfg = load_config(out)
    assert cfg.name == "g2" and cfg.core.num_sms == 8 and cfg.memory.l1.size_bytes == 32768
    _, rows = effective_config(out)
    assert {r.key: r for r in rows}["core.num_sms"].file.name == "gtx480_8sm.yaml"


@pytest.mark.parametrize("parent", ["pascal", "gtx280_ilp", "gtx480_coarse"])
def test_new_from_any_shipped_config_loads_equal_to_it(parent, tmp_path, capsys):
    out = _new(tmp_path, capsys, name="g", parent=parent)
    cfg, want = load_config(out), load_config(parent)
    assert replace(cfg, name=want.name, description=want.description) == want


def test_show_of_an_unknown_key_in_a_user_file_is_the_loaders_error(tmp_path, capsys):
    out = _new(tmp_path, capsys)
    out.write_text(out.read_text() + "core:\n  num_smz: 4\n")
    assert main(["config", "show", str(out)]) == 2
    assert "mygpu.yaml: core.num_smz: unknown key" in capsys.readouterr().err


def test_own_gpu_doc_commands_run(tmp_path, capsys, monkeypatch):
    import re
    import shlex
    import shutil
    page = DATA.parent.parent / "docs" / "own-gpu.md"
    blocks = re.findall(r"```sh\n(.*?)```", page.read_text(), flags=re.S)
    commands = [shlex.split(line)[1:] for b in blocks for line in b.splitlines()
                if line.startswith(".venv/bin/simtlab ")]
    assert len(commands) == 4
    shutil.copytree(DATA, tmp_path / "tests" / "data")  # the page runs from the repo root
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert main(argv) == 0, argv
        out = capsys.readouterr().out
        assert "MISMATCH" not in out
    assert load_config(tmp_path / "build" / "mygpu.yaml").core.num_sms == 15
    # the example file of the page says what the page quotes from it
    example = (DATA / "gtx480_8sm.yaml").read_text()
    assert "  num_sms: 8 " in example and "    size_bytes: 32768 " in example
