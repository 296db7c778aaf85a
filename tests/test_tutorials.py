"""Every tutorial in docs/ runs as written (tests/tutorials.py extracts its ``tutorial``
blocks and runs them in a temporary copy of the tree), so a tutorial cannot go stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutorials import REPO, copy_tree, run, steps

PAGES = sorted((REPO / "docs").glob("tutorial-*.md"))


def test_tutorial_pages_exist_and_have_steps():
    assert PAGES, "no docs/tutorial-*.md"
    for page in PAGES:
        assert any(s.kind == "bash" for s in steps(page)), page.name


def test_tutorial_steps_are_extracted_in_page_order(tmp_path):
    page = tmp_path / "tutorial-x.md"
    page.write_text("intro\n```python tutorial file=a/b.py\nX = 1\n```\n"
                    "```text\nnot run\n```\n```bash tutorial\necho hi\n```\n")
    got = steps(page)
    assert [(s.kind, s.path, s.line) for s in got] == [("file", "a/b.py", 2), ("bash", None, 8)]
    assert got[0].body == "X = 1\n"


def test_a_failing_tutorial_step_fails_with_its_line(tmp_path):
    page = tmp_path / "tutorial-x.md"
    page.write_text("```bash tutorial\ntest -f missing.txt\n```\n")
    with pytest.raises(AssertionError, match="tutorial-x.md:1: step exited 1"):
        run(page, tmp_path)


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_tutorial_runs_as_written(page: Path, tmp_path):
    run(page, copy_tree(tmp_path))
