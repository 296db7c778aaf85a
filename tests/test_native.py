"""The compiled timing core (golden/native): source-hash keyed builds, no stale shadowing,
and the plain-Python form reproducing the statistics fixtures."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden import native
from timing_fixtures import FIXTURE_DIR, diff

ROOT = Path(__file__).resolve().parents[1]


def _copy_sources(dst: Path) -> None:
    for m in native.HOT_MODULES:
        for src in native._source(m, ROOT):
            if src.is_file():
                out = dst / src.relative_to(ROOT)
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(src, out)


def test_group_hash_follows_every_source(tmp_path):
    _copy_sources(tmp_path)
    h0 = native.group_hash(tmp_path)
    assert h0 == native.group_hash(ROOT)
    sm_py = tmp_path / "golden" / "timing" / "sm.py"
    sm_py.write_text(sm_py.read_text() + "\n# edited\n")
    h1 = native.group_hash(tmp_path)
    assert h1 != h0
    pxd = tmp_path / "golden" / "timing" / "scoreboard.pxd"
    pxd.write_text(pxd.read_text() + "\n")
    assert native.group_hash(tmp_path) not in (h0, h1)


def _fake_build(root: Path, h: str) -> None:
    for m in native.HOT_MODULES:
        p = native.module_path(root / h, m)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"")


def test_only_a_build_of_the_current_sources_is_served(tmp_path, monkeypatch):
    monkeypatch.setenv(native.DIR_ENV, str(tmp_path))
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    st = native.status()
    assert not st.active and "not built" in st.reason
    _fake_build(tmp_path, "0123456789abcdef")   # a build of other (older) sources
    st = native.status()
    assert not st.active and "edited since" in st.reason
    _fake_build(tmp_path, native.group_hash())
    st = native.status()
    assert st.active and st.build == tmp_path / native.group_hash()
    monkeypatch.setenv(native.PURE_ENV, "1")
    assert not native.status().active


def test_finder_serves_hot_modules_only(tmp_path):
    f = native._Finder(tmp_path)
    assert f.find_spec("golden.timing.gpu") is None
    spec = f.find_spec("golden.timing.sm")
    assert spec.origin == str(native.module_path(tmp_path, "golden.timing.sm"))


def test_compiled_core_is_active_in_ci():
    """Under CI the suite must exercise the compiled form (make setup builds it)."""
    import golden.timing.sm  # noqa: F401
    st = native.status()
    if os.environ.get("CI") != "true" and not st.active:
        pytest.skip(f"compiled core not in use here: {st.reason}")
    assert st.active, st.reason
    assert all(native.active_modules().values()), native.active_modules()


PURE_CASES = ("MM-pascal-darsie", "NQU-gtx280-ilp-sc", "HS-pascal")


@pytest.mark.parametrize("case", PURE_CASES)
def test_plain_python_reproduces_the_fixture(case):
    """The same sources uncompiled (SIMTLAB_PURE_PYTHON=1) give the fixture's statistics
    exactly; the rest of the suite checks the compiled form against the same fixtures."""
    code = ("import json, sys\n"
            "import golden.timing.sm as sm\n"
            "assert sm.__file__.endswith('.py'), sm.__file__\n"
            "from tests.timing_fixtures import CASES, measure\n"
            f"json.dump(measure(CASES[{case!r}]), sys.stdout, sort_keys=True)\n")
    env = dict(os.environ, **{native.PURE_ENV: "1"})
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    want = json.loads((FIXTURE_DIR / f"{case}.json").read_text())
    diffs = diff(want, json.loads(r.stdout))
    assert not diffs, f"{case} in plain Python:\n  " + "\n  ".join(diffs[:20])
