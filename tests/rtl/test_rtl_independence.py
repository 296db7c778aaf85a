"""The RTL owns its encodings and widths (issue 18): no module under rtl/ imports golden
code, and every encoding the two sides share has the same values on both."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RTL = Path(__file__).resolve().parents[2] / "rtl"


def test_no_rtl_module_imports_golden_code():
    offenders = []
    for path in sorted(RTL.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            offenders += [f"{path.relative_to(RTL.parent)}: {n}" for n in names
                          if n == "golden" or n.startswith("golden.")]
    assert not offenders, offenders


@pytest.mark.parametrize(("rtl_name", "golden_path"), [
    ("SkipOp", "golden.structures.darsie.skip_table"),
    ("RenameOp", "golden.structures.darsie.rename_table"),
])
def test_op_encodings_agree_with_the_golden_models(rtl_name, golden_path):
    import importlib

    from rtl.darsie import ops
    rtl = {m.name: m.value for m in getattr(ops, rtl_name) if not m.name.startswith("RESERVED")}
    golden = {m.name: int(m) for m in getattr(importlib.import_module(golden_path), rtl_name)}
    assert rtl == golden
    width = getattr(ops, rtl_name).as_shape().width
    assert max(golden.values()) < 2 ** width
    assert len(getattr(ops, rtl_name)) == 2 ** width     # every code named: drivable in simulation


def test_widths_agree_with_the_golden_models():
    from golden.structures.popcount import count_width as g_count
    from golden.structures.priority_encoder import index_width as g_index
    from rtl.common.widths import count_width, index_width
    for n in range(1, 300):
        assert index_width(n) == g_index(n) and count_width(n) == g_count(n)
