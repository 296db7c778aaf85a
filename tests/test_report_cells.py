"""The shared markdown table cell helper of the report and study modules."""

from golden.report.present.cells import markdown_table


def test_markdown_table_formats_floats_and_keeps_column_order():
    rows = [{"b": 2.345, "a": "x"}, {"a": 7, "b": "n/a"}]
    text = markdown_table(rows, ["a", "b"])
    assert text.splitlines() == ["| a | b |", "|---|---|", "| x | 2.3 |", "| 7 | n/a |"]
    assert markdown_table(rows, ["b"], digits=3).splitlines()[2] == "| 2.345 |"
