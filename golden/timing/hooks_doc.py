"""Generate docs/hooks.md, the reference page of the mechanism hooks, from the code.

``python -m golden.timing.hooks_doc`` rewrites the page; ``--check`` exits 1 when the
committed page differs from what the code gives (tests/test_hooks_doc.py does the same).

What comes from where:

* the hooks, their order, signatures and docstrings: :class:`golden.timing.hooks.Mechanism`
  (every public method); the class attributes a mechanism declares, with their ``#:``
  comments;
* *when called* and *what the return value may change*: the hook's bullet in the module
  docstring of :mod:`golden.timing.hooks` ("Hook points and what a return value means"),
  and the short table :data:`EVENTS` below (the event that triggers the call, how often it
  happens, what a mechanism may change through it);
* *cost on the hot path*: how often the event happens (:data:`EVENTS`) and whether the
  timing model calls the hook on every attached mechanism or only on those that override
  it -- read from the source of golden/timing (``type(m).<hook> is not Mechanism.<hook>``
  filters) -- and the call sites found in golden/ (module and function).

A hook without an :data:`EVENTS` entry is an error, so a new hook cannot go undocumented.
"""

from __future__ import annotations

import argparse
import ast
import functools
import inspect
import re
import sys
from pathlib import Path

from golden.errors import SimtlabError
from golden.fileio import write_atomic

__all__ = ["EVENTS", "render", "main"]

GOLDEN = Path(__file__).resolve().parents[1]
PAGE = GOLDEN.parent / "docs" / "hooks.md"

#: hook -> (frequency tier, the event that triggers the call, what the mechanism may
#: change through it). Tiers: "instruction" (hot: per warp instruction or fetch),
#: "warp", "TB", "launch". Entries of hooks the Mechanism class does not have are ignored.
EVENTS: dict[str, tuple[str, str, str]] = {
    "on_fetch": ("instruction", "the fetch stage is about to fetch the next instruction of a "
                 "warp (asked again every cycle a fetch is refused)",
                 "skip the fetch (True); move ``warp.fetch_pc`` past skipped instructions"),
    "on_issue": ("instruction", "a warp instruction issues, before its functional step",
                 "eliminate it, convert it to another pipeline, or change its occupancy, "
                 "latency, lanes and injected work (IssueOverride)"),
    "on_skip": ("instruction", "a fetch-stage mechanism skipped an instruction whose results "
                "are already in the warp's registers",
                "the mechanism's own per-register state (nothing of the SM)"),
    "after_step": ("instruction", "the functional step of an issued instruction ran",
                   "apply the functional part of skips decided at fetch"),
    "on_operand_read": ("instruction", "an issued, not eliminated instruction reads its "
                        "source registers",
                        "the registers read from the banked RF (bank conflicts, RF energy)"),
    "on_writeback": ("instruction", "destination registers are written back",
                     "the registers counted as RF writes (RF energy, bank writes)"),
    "on_branch": ("instruction", "a control instruction (bra, bar, exit, ret...) issued",
                  "nothing returned: the mechanism's state, warp holds"),
    "predict_fetch": ("instruction", "a bra entered a warp's I-buffer",
                      "the PC fetch continues at (a predicted target)"),
    "speculate_branch": ("instruction", "a bra issued on an SM that speculates",
                         "whether the warp waits for the branch to resolve"),
    "on_dispatch": ("TB", "the dispatcher tries to place a TB on an SM",
                    "refuse the SM (False)"),
    "reclaim_warp": ("warp", "a warp finished", "free its registers, scheduler entry and "
                     "threads now (True) instead of with its TB"),
    "partial_dispatch": ("TB", "the next TB does not fit an SM whole",
                         "dispatch it with only its first warps resident (True)"),
    "on_warp_start": ("warp", "a warp became resident", "the mechanism's state"),
    "on_warp_exit": ("warp", "a warp finished", "the mechanism's state"),
    "make_tracker": ("warp", "a warp became resident",
                     "the warp's dependence tracker (e.g. a shared scoreboard)"),
    "form_warps": ("TB", "a TB became resident (all its warps)",
                   "who owns the TB's thread-to-warp mapping (dynamic warps)"),
    "launch_begin": ("launch", "a launch starts, before its first TB is dispatched",
                     "the mechanism's per-launch state (built here, not by comparing "
                     "``sm.launch``)"),
    "launch_end": ("launch", "a launch finished (in-flight writes drained)",
                   "its merged statistics; the base implementation calls on_complete"),
    "on_complete": ("launch", "a launch finished (called by launch_end)",
                    "its merged statistics"),
    "timeline_sample": ("interval", "a timeline (golden/timing/timeline.py) samples an SM, "
                        "once per interval and SM; never when no timeline is attached",
                        "nothing: it only reports gauges"),
}

_TIER_COST = {"instruction": "hot: per warp instruction",
              "warp": "per warp", "TB": "per thread block", "launch": "once per launch",
              "interval": "once per sampled interval and SM (off by default)"}
_FILTER = re.compile(r"type\(m\)\.(\w+) is not Mechanism\.\1")


def hook_names() -> list[str]:
    """Public methods of :class:`golden.timing.hooks.Mechanism`, in source order."""
    from golden.timing.hooks import Mechanism
    return [n for n, v in vars(Mechanism).items() if callable(v) and not n.startswith("_")]


def _bullets(doc: str) -> dict[str, str]:
    """``{hook or attribute: text}`` from the ``* :meth:`x` -- ...`` bullets of the module
    docstring (a bullet naming two hooks goes to both)."""
    out: dict[str, str] = {}
    for item in re.split(r"\n(?=\* )", doc):
        if not item.startswith("* "):
            continue
        head, sep, rest = item[2:].partition(" -- ")
        if not sep:
            continue
        text = " ".join(rest.split())
        for name in re.findall(r":meth:`(\w+)`|``([\w.]+)``", head):
            out[name[0] or name[1]] = text
    return out


def _attributes() -> list[tuple[str, str, str]]:
    """``(name, default, #: comment)`` of the class attributes of Mechanism."""
    import golden.timing.hooks as hooks
    src = Path(hooks.__file__).read_text()
    tree = ast.parse(src)
    lines = src.splitlines()
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Mechanism")
    out = []
    for node in cls.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            comment, i = [], node.lineno - 2
            while i >= 0 and lines[i].strip().startswith("#:"):
                comment.insert(0, lines[i].strip()[2:].strip())
                i -= 1
            out.append((target.id, ast.get_source_segment(src, node.value), " ".join(comment)))
    return out


def _collections() -> dict[str, frozenset]:
    """``{collection name: hooks}`` for the mechanism collections golden/timing builds with
    ``type(m).<hook> is not Mechanism.<hook>`` filters (``self.predictors``, ``partial``...):
    a hook called on such a collection is called only on mechanisms that override one of
    those hooks."""
    out: dict[str, frozenset] = {}
    assigns = []
    for path in sorted((GOLDEN / "timing").glob("*.py")):
        assigns += [n for n in ast.walk(ast.parse(path.read_text()))
                    if isinstance(n, ast.Assign) and len(n.targets) == 1]
    for node in assigns:
        hooks = frozenset(_FILTER.findall(ast.unparse(node.value)))
        name = _name(node.targets[0])
        if hooks and name:
            out[name] = out.get(name, frozenset()) | hooks
    for node in assigns:                 # local aliases: ``partial = self._partial``
        src, name = _name(node.value), _name(node.targets[0])
        if src in out and name and name not in out:
            out[name] = out[src]
    return out


def _name(node) -> str | None:
    """``x`` of ``x`` or ``self.x``; None for anything else."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _iter_name(node) -> str | None:
    return _name(node.iter)


@functools.lru_cache(maxsize=1)   # one scan of golden/ per process (~1 CPU-s)
def _call_sites(hooks: tuple) -> dict[str, list[tuple[str, frozenset | None]]]:
    """``{hook: [("golden/timing/sm.py: SM._execute", filter), ...]}``: calls
    ``m.<hook>(...)`` on an object other than ``self``/``super()`` in golden/ (outside
    this generator); ``filter`` is the set of hooks the mechanisms looped over must
    override (None: every attached mechanism)."""
    found: dict[str, set] = {h: set() for h in hooks}
    coll = _collections()
    for path in sorted(GOLDEN.rglob("*.py")):
        rel = path.relative_to(GOLDEN.parent).as_posix()
        if rel.startswith(("golden/scaffold/", "golden/timing/hooks")):
            continue
        tree = ast.parse(path.read_text())

        def visit(node, where, loop):
            for child in ast.iter_child_nodes(node):
                w, lp = where, loop
                if isinstance(child, ast.ClassDef):
                    w = child.name
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    w = f"{where}.{child.name}" if where else child.name
                elif isinstance(child, (ast.For, ast.comprehension)):
                    lp = _iter_name(child)
                elif isinstance(child, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
                    lp = _iter_name(child.generators[0])
                if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                        and child.func.attr in found
                        and isinstance(child.func.value, ast.Name)
                        and child.func.value.id not in ("self", "cls", "super")):
                    found[child.func.attr].add((f"{rel}: {where or '<module>'}", coll.get(loop)))
                visit(child, w, lp)
        visit(tree, "", None)
    return {h: sorted(v, key=lambda x: x[0]) for h, v in found.items()}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The text of docs/hooks.md for the code as it stands."""
    import golden.timing.hooks as hooks
    from golden.timing.hooks import Mechanism
    hooks_ = hook_names()
    missing = [h for h in hooks_ if h not in EVENTS]
    if missing:
        raise SimtlabError(f"hook(s) {', '.join(missing)} of golden/timing/hooks.py have no "
                           f"entry in golden.timing.hooks_doc.EVENTS (when called, what it "
                           f"may change): add one and run python -m golden.timing.hooks_doc")
    bullets = _bullets(hooks.__doc__ or "")
    sites = _call_sites(tuple(hooks_))
    md = ["# Mechanism hooks (reference)", "",
          "<!-- generated by `python -m golden.timing.hooks_doc` from golden/timing/hooks.py "
          "and the call sites in golden/; do not edit by hand -->", "",
          "A mechanism is a subclass of `golden.timing.hooks.Mechanism` that overrides some "
          "of the hooks below; the SM model calls them at the named points of the pipeline. "
          "A mechanism may change timing and events, never a kernel's results "
          "(`simtlab new mechanism NAME` writes a working one; docs/tutorial-mechanism.md "
          "walks through a real one).", "",
          "**Cost** says how often the triggering event happens and whether the model calls "
          "the hook on *every* attached mechanism (a Python call per event and mechanism, "
          "even for the base class's no-op) or only on mechanisms that *override* it (the "
          "SM filters them once, when it is built). The `instruction` hooks are the hot "
          "path: they run once per fetched or issued warp instruction.", "",
          "| hook | called when | may change | cost | called for |",
          "|---|---|---|---|---|"]
    for h in hooks_:
        tier, when, change = EVENTS[h]
        filters = {f for _, f in sites.get(h) or []}
        if sites.get(h) and None not in filters:
            names = sorted(set().union(*filters))
            who = "mechanisms that override " + " or ".join(f"`{n}`" for n in names)
        else:
            who = "every attached mechanism"
        md.append(f"| [`{h}`](#{h}) | {_cell(when)} | {_cell(change)} | "
                  f"{_TIER_COST.get(tier, f'per {tier}')} | {who} |")
    md += ["", "## Hooks", ""]
    for h in hooks_:
        fn = getattr(Mechanism, h)
        sig = str(inspect.signature(fn))
        md += [f"### {h}", "", f"```python\ndef {h}{sig}\n```", ""]
        md += [inspect.cleandoc(fn.__doc__ or "(no docstring)"), ""]
        if h in bullets:
            md += [f"*Contract (module docstring):* {bullets[h]}", ""]
        calls = sites.get(h) or []
        md += ["*Called from:* " + ("; ".join(f"`{c}`" for c, _ in calls) if calls
                                    else "nowhere in golden/ (reserved)"), ""]
    attrs = _attributes()
    if attrs:
        md += ["## Class attributes a mechanism declares", "",
               "| attribute | default | meaning |", "|---|---|---|"]
        md += [f"| `{n}` | `{_cell(v)}` | {_cell(c)} |" for n, v, c in attrs]
        md.append("")
    state = [(k, v) for k, v in bullets.items() if "." in k]
    if state:
        md += ["## SM state and services a mechanism may use", ""]
        md += [f"* `{k}` -- {v}" for k, v in state]
        md.append("")
    return "\n".join(md).rstrip("\n") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m golden.timing.hooks_doc",
                                 description="write docs/hooks.md from golden/timing/hooks.py")
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if docs/hooks.md differs from the generated page")
    ap.add_argument("--out", type=Path, default=PAGE, help=f"page to write (default {PAGE})")
    a = ap.parse_args(argv)
    try:
        text = render()
    except SimtlabError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.check:
        same = a.out.is_file() and a.out.read_text() == text
        if not same:
            print(f"{a.out} is out of date: run python -m golden.timing.hooks_doc", file=sys.stderr)
        return 0 if same else 1
    write_atomic(a.out, text)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
