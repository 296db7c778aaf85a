"""``simtlab publish`` on a malformed report JSON is a one-line error naming the file
(issue 74 item 9: a JSON list gave an AttributeError traceback)."""

from __future__ import annotations

import pytest

from golden.cli import main


@pytest.mark.parametrize("text, says", [
    ('{"report": "baseline", "size": 3', "not valid JSON"),
    ("[1, 2]", "a JSON list, not an object"),
    ('{"size": "huge"}', "size 'huge' is not one of small, default, paper, published"),
    ('{"size": "small", "seed": -1}', "seed -1 is not a non-negative integer"),
    ('{"size": "small", "all_configs": "yes"}', "all_configs 'yes' is not true or false"),
])
def test_publish_refuses_a_malformed_report_json_in_one_line(tmp_path, capsys, text, says):
    (tmp_path / "baseline.json").write_text(text)
    (tmp_path / "baseline.md").write_text("# baseline\n")
    assert main(["publish", "--out", str(tmp_path), "--cache-dir", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "baseline.json" in err
