"""The simtlab command: list, run, characterise, clean errors."""

import json

from golden.cli import main


def test_list_names_every_workload(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("MM", "HS", "BFS", "NQU", "ST"):
        assert f"\n{name} " in out


def test_run_prints_summary_and_writes_json(tmp_path, capsys):
    js = tmp_path / "mm.json"
    assert main(["run", "mm", "--size", "small", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    assert "MATCH" in out and "warp instructions" in out and "SIMD utilisation" in out
    d = json.loads(js.read_text())
    assert d["outputs_match"] and d["warp_instructions"] > 0 and d["workload"] == "MM"


def test_unknown_workload_is_a_clean_error(capsys):
    assert main(["run", "NOPE"]) == 2
    err = capsys.readouterr().err
    assert "NOPE" in err and "MM" in err and "Traceback" not in err


def test_characterise_small_subset_is_deterministic(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        assert main(["characterise", "--size", "small", "-j", "1", "--only", "MM", "BFS",
                     "--out", str(out)]) == 0
    ra = json.loads((a / "characterisation.json").read_text())
    rb = json.loads((b / "characterisation.json").read_text())
    for x in ra + rb:
        x.pop("wall_seconds")
    assert ra == rb and [r["workload"] for r in ra] == ["BFS", "MM"]
