"""Run the tutorials in docs/ as the test suite does (tests/test_tutorials.py).

A tutorial is a Markdown page whose executable steps are fenced blocks marked
``tutorial`` in their info string:

* ```` ```bash tutorial ```` -- run with ``bash -euo pipefail`` in the tutorial's tree;
* ```` ```python tutorial file=PATH ```` (any language) -- written to ``PATH`` in the tree,
  replacing the file (the page shows the whole file the reader writes).

Blocks run in page order in a temporary copy of this checkout's ``golden/``, ``rtl/``,
``tb/``, ``synth/`` (plus ``pyproject.toml`` and ``tests/conftest.py``), with that copy
first on ``PYTHONPATH`` -- so ``simtlab new`` writes into it -- and this interpreter's
``bin/`` first on ``PATH`` (``simtlab``, ``python``). Other blocks (```` ```text ````,
plain ```` ```python ````) are for reading only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TREE_PARTS = ("golden", "rtl", "tb", "synth")
_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)


@dataclass(frozen=True)
class Step:
    """One executable block: ``kind`` is ``"bash"`` or ``"file"``; ``line`` its line in
    the page."""

    kind: str
    body: str
    line: int
    path: str | None = None


def steps(page: Path) -> list[Step]:
    """The executable blocks of ``page`` in order."""
    text = page.read_text()
    out = []
    for m in _FENCE.finditer(text):
        words = m.group("info").split()
        if "tutorial" not in words[1:]:
            continue
        line = text.count("\n", 0, m.start()) + 1
        files = [w[5:] for w in words if w.startswith("file=")]
        if files:
            out.append(Step("file", m.group("body"), line, files[0]))
        elif words[0] == "bash":
            out.append(Step("bash", m.group("body"), line))
        else:
            raise ValueError(f"{page}:{line}: a tutorial block is bash or has file=PATH")
    return out


def copy_tree(dest: Path) -> Path:
    """A copy of the parts of this checkout a tutorial works in, under ``dest``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
    for part in TREE_PARTS:
        shutil.copytree(REPO / part, dest / part, ignore=ignore)
    (dest / "tests").mkdir(exist_ok=True)
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")
    shutil.copy2(REPO / "tests" / "conftest.py", dest / "tests" / "conftest.py")
    return dest


def environment(tree: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COCOTB"))}
    env["PYTHONPATH"] = str(tree)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.setdefault("SIMTLAB_NATIVE_DIR", str(REPO / "build" / "native"))
    return env


def run(page: Path, tree: Path) -> list[str]:
    """Run every step of ``page`` in ``tree``; return the output of each bash step. A
    failing step raises AssertionError naming the page line and showing its output."""
    env = environment(tree)
    outputs = []
    for step in steps(page):
        if step.kind == "file":
            target = tree / step.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(step.body)
            continue
        r = subprocess.run(["bash", "-euo", "pipefail", "-c", step.body], cwd=tree, env=env,
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            raise AssertionError(f"{page.name}:{step.line}: step exited {r.returncode}\n"
                                 f"$ {step.body}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
        outputs.append(r.stdout)
    return outputs
