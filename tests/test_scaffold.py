"""``simtlab new mechanism`` / ``simtlab new structure`` (golden/scaffold): the generated
skeletons pass their own generated tests as generated -- the mechanism beside the
baseline with identical outputs, the structure's golden model and synth target, and its
cocotb bench under Icarus (RTL vs golden on directed and random cycles) -- in a temporary
copy of the source tree; bad or existing names are one-line errors that write nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from golden.cli import main
from golden.scaffold.generate import default_dest
from tutorials import REPO, copy_tree, environment


def run_pytest(tree: Path, *paths: str) -> subprocess.CompletedProcess:
    """pytest on ``paths`` inside ``tree`` (its own golden/rtl/tb first on the path)."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           *paths], cwd=tree, env=environment(tree), capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return copy_tree(tmp_path_factory.mktemp("scaffold"))


def test_new_mechanism_and_structure_pass_their_generated_tests(tree, capsys):
    assert main(["new", "mechanism", "obs-count", "--dest", str(tree)]) == 0
    assert main(["new", "structure", "value_cache", "--group", "vc", "--dest", str(tree)]) == 0
    out = capsys.readouterr().out
    assert "edited  golden/mechanisms/registry.py" in out and "edited  synth/targets.yaml" in out
    registry = (tree / "golden/mechanisms/registry.py").read_text()
    assert '"obs-count": "golden.mechanisms.obs_count.mechanism:make_obs_count",' in registry
    for rel in ("golden/mechanisms/obs_count/mechanism.py", "golden/report/beside_obs_count.py",
                "golden/structures/vc/value_cache.py", "rtl/vc/value_cache.py",
                "tb/vc/test_value_cache.py", "tb/vc/value_cache_stimulus.py"):
        assert (tree / rel).is_file(), rel
    traced = (tree / "golden/structures/registry.py").read_text()
    assert "from golden.structures.vc import STRUCTURES as _VC" in traced
    r = run_pytest(tree, "tests/mechanisms/test_obs_count.py",
                   "tests/structures/test_vc_value_cache.py", "tb/vc/test_value_cache.py")
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "9 passed" in r.stdout, r.stdout[-2000:]


def test_a_second_structure_joins_its_scaffold_made_group(tree):
    if not (tree / "golden/structures/vc/__init__.py").exists():
        assert main(["new", "structure", "value_cache", "--group", "vc", "--dest", str(tree)]) == 0
    assert main(["new", "structure", "tag_store", "--group", "vc", "--dest", str(tree)]) == 0
    traced = (tree / "golden/structures/registry.py").read_text()
    assert traced.count("import STRUCTURES as _VC") == 1
    r = subprocess.run([sys.executable, "-c", "from golden.structures.registry import "
                        "traced_structures as t; s = t(); print(s['value_cache'].golden_cls"
                        ".__name__, s['tag_store'].params_cls.__name__, 'ilp_gshare' in s)"],
                       cwd=tree, env=environment(tree), capture_output=True, text=True)
    assert r.stdout.split() == ["ValueCache", "TagStoreParams", "True"], r.stderr[-2000:]


@pytest.mark.parametrize("argv, message", [
    (["new", "mechanism", "darsie"], "mechanism 'darsie' exists already in golden/mechanisms/registry.py"),
    (["new", "mechanism", "9lives"], "invalid mechanism name '9lives'"),
    (["new", "mechanism", "Reuse"], "invalid mechanism name 'Reuse'"),
    (["new", "mechanism", "class"], "'class' is a reserved word"),
    (["new", "structure", "cam_8x48"], "structure 'cam_8x48' exists already: synth/targets.yaml"),
    (["new", "structure", "value-cache"], "invalid structure name 'value-cache'"),
    (["new", "structure", "gshare", "--group", "ilp"], "exists already: golden/structures/ilp/gshare.py"),
    (["new", "structure", "ok_name", "--group", "Bad"], "invalid group name 'Bad'"),
    (["new", "structure", "ok_name", "--group", "ilp"],
     "group 'ilp' exists and golden/structures/ilp/__init__.py has no STRUCTURES table"),
    (["new", "structure", "ilp_gshare", "--group", "mine"],
     "golden/structures/ilp/__init__.py traces a structure of that name"),
])
def test_new_refuses_existing_and_invalid_names_in_one_line(tmp_path, capsys, argv, message):
    tree = tmp_path
    for rel in ("golden/mechanisms/registry.py", "synth/targets.yaml",
                "golden/structures/registry.py", "golden/structures/ilp/gshare.py",
                "golden/structures/ilp/__init__.py"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, tree / rel)
    before = sorted(p for p in tree.rglob("*"))
    assert main([*argv, "--dest", str(tree)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert sorted(p for p in tree.rglob("*")) == before
    assert (tree / "golden/mechanisms/registry.py").read_text() == \
        (REPO / "golden/mechanisms/registry.py").read_text()


def test_new_refuses_a_folder_that_is_no_source_tree(tmp_path, capsys):
    assert main(["new", "mechanism", "fine-name", "--dest", str(tmp_path)]) == 2
    assert "is not a simtlab source tree" in capsys.readouterr().err


def test_new_writes_into_this_checkout_by_default():
    assert default_dest() == REPO
