"""docs/hooks.md is generated from golden/timing/hooks.py (golden/timing/hooks_doc.py):
the committed page equals what the code gives, every hook has its "called when / may
change / cost" entry, and the cost column is read from the timing model's filters."""

from __future__ import annotations

import pytest

from golden.errors import SimtlabError
from golden.timing import hooks_doc


def test_committed_hooks_page_equals_the_generated_one():
    assert hooks_doc.PAGE.read_text() == hooks_doc.render(), \
        "docs/hooks.md is out of date: run python -m golden.timing.hooks_doc"


def test_every_hook_has_its_entry_and_a_hook_without_one_is_refused(monkeypatch):
    hooks = hooks_doc.hook_names()
    assert "on_issue" in hooks and "on_complete" in hooks
    assert not [h for h in hooks if h not in hooks_doc.EVENTS]
    monkeypatch.delitem(hooks_doc.EVENTS, "on_issue")
    with pytest.raises(SimtlabError, match="on_issue .* no entry"):
        hooks_doc.render()


def test_cost_column_reads_which_hooks_the_sm_filters_by_override():
    rows = {line.split("|")[1].strip(): line.split("|")[-2].strip()
            for line in hooks_doc.render().splitlines() if line.startswith("| [`")}
    assert rows["[`predict_fetch`](#predict_fetch)"] == "mechanisms that override `predict_fetch`"
    assert rows["[`speculate_branch`](#speculate_branch)"] == "mechanisms that override `predict_fetch`"
    assert rows["[`on_issue`](#on_issue)"] == "every attached mechanism"


def test_check_mode_reports_a_stale_page(tmp_path, capsys):
    stale = tmp_path / "hooks.md"
    stale.write_text("# old\n")
    assert hooks_doc.main(["--check", "--out", str(stale)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert hooks_doc.main(["--out", str(stale)]) == 0
    assert hooks_doc.main(["--check", "--out", str(stale)]) == 0
