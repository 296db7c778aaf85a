"""The RTL mutation check (tb/mutate/run.py, `make mutate`): mutant list validation and one
real run on the common free list (a caught bug, an equivalent rewrite, a missed one)."""

from __future__ import annotations

import pytest

from golden.errors import ConfigError
from tb.mutate.run import (REPO, formal_jobs_for, load_mutants, main, report_markdown,
                           split_tests)

FIND = "m.d.comb += self.error.eq(self.free & (out_of_range | double_free))"


def _write(tmp_path, body: str):
    p = tmp_path / "mutants.yaml"
    p.write_text("mutants:\n" + body)
    return p


def _mutant(id_, replace, equivalent=False, find=FIND):
    return (f"  - id: {id_}\n    file: rtl/common/freelist.py\n    what: test\n"
            f"    find: {find!r}\n    replace: {replace!r}\n"
            f"    tests: [tests/rtl/test_common_freelist.py]\n"
            + ("    equivalent: true\n" if equivalent else ""))


def test_committed_mutants_are_valid_and_span_structures():
    mutants = load_mutants()
    assert len(mutants) >= 10
    assert len({m.file for m in mutants}) >= 10
    assert all(any(t.startswith("tb/") for t in m.tests) for m in mutants)   # cocotb too
    assert all(formal_jobs_for(m.file) for m in mutants)                     # and formal


@pytest.mark.parametrize(("body", "message"), [
    (_mutant("a", "x", find="no such text"), r"mutants\[0\].find: the text occurs 0 times"),
    (_mutant("a", FIND), r"mutants\[0\].replace: same as find"),
    (_mutant("a", "x") + _mutant("a", "y"), r"mutants\[1\].id: 'a' is used twice"),
    ("  - id: a\n", r"mutants\[0\]: missing key 'file'"),
])
def test_malformed_mutant_lists_name_the_entry(tmp_path, body, message):
    with pytest.raises(ConfigError, match=message):
        load_mutants(_write(tmp_path, body))


def test_a_real_bug_is_caught_and_an_equivalent_one_survives(tmp_path, capsys):
    before = (REPO / "rtl/common/freelist.py").read_text()
    caught = _mutant("double-free-ok", "m.d.comb += self.error.eq(self.free & out_of_range)")
    same = "m.d.comb += self.error.eq((out_of_range | double_free) & self.free)"
    path = _write(tmp_path, caught + _mutant("reordered", same, equivalent=True))
    assert main(["--mutants", str(path), "--out", str(tmp_path / "out")]) == 0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| double-free-ok |" in report
    assert "| caught | no test | caught | simulator + formal | caught |" in report
    assert "survived (equivalent)" in report
    path = _write(tmp_path, _mutant("reordered", same))           # not marked: a failure
    assert main(["--mutants", str(path), "--out", str(tmp_path / "out")]) == 1
    assert "SURVIVED" in capsys.readouterr().out
    assert (REPO / "rtl/common/freelist.py").read_text() == before   # the checkout is untouched


def test_report_has_one_row_per_mutant_with_simulator_cocotb_and_formal_columns():
    m = load_mutants()[0]
    assert split_tests(m.tests) == (tuple(t for t in m.tests if not t.startswith("tb/")),
                                    tuple(t for t in m.tests if t.startswith("tb/")))
    rows = [(m, "missed", "caught", "caught", "caught", 3.0),
            (m, "missed", "missed", "missed", "SURVIVED", 4.0)]
    md = report_markdown(rows, "abc123")
    assert "on abc123: 2 injected bugs, 1 caught, 1 survived" in md
    assert "| simulator | cocotb | formal | caught by | verdict | seconds |" in md
    assert f"| {m.id} | {m.file} | {m.what} | missed | caught | caught | cocotb + formal | caught | 3 |" in md
    assert "| missed | missed | missed | none | SURVIVED | 4 |" in md
