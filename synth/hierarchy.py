"""Share identical submodules of an Amaranth Verilog netlist, so replicated structure is
synthesised once.

Amaranth writes one Verilog module per submodule *instance*: a skip table of 32 TB banks
(``rtl.darsie.skip_table.SkipTableBank``) becomes 32 modules with the same body. Yosys
would synthesise each of them. :func:`share_identical_modules` keeps one module per
distinct body (compared bottom-up, with the module's own name and its children's names
abstracted) and points every instance at it; :func:`replicated` names the modules that are
now instantiated more than once and hold state. Both area flows take the result of
:func:`share`, mark those modules ``keep_hierarchy`` and flatten everything else, so a replicated bank is mapped once and ``stat`` counts it once
per instance (optimisation across the bank boundary is given up, as in a hierarchical
physical design).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

from .errors import SynthError

_MODULE_RE = re.compile(r"^module (\\\S+ |[A-Za-z_][A-Za-z0-9_$]*)\s*\(", re.M)
_END_RE = re.compile(r"^endmodule\b.*$", re.M)
#: An instantiation line: indentation, module name (escaped or plain), instance name, "(".
_INST_RE = re.compile(r"^(\s+)(\\\S+ |[A-Za-z_][A-Za-z0-9_$]*) +(\\\S+ |[A-Za-z_][A-Za-z0-9_$]*) *\($", re.M)

_KEYWORDS = {"module", "input", "output", "inout", "wire", "reg", "assign", "always", "initial",
             "if", "else", "case", "casez", "endcase", "begin", "end", "for", "function", "task"}


def _split(verilog: str) -> tuple[str, list[tuple[str, str]]]:
    """(text before the first module, [(name, full text incl. attributes) ...])."""
    starts = list(_MODULE_RE.finditer(verilog))
    if not starts:
        return verilog, []
    # attributes (* ... *) on the lines just above "module" belong to the module
    cuts = []
    for m in starts:
        pos = m.start()
        while True:
            prev = verilog.rfind("\n", 0, max(pos - 1, 0))
            line = verilog[prev + 1:pos]
            if line.strip().startswith("(*") and line.strip().endswith("*)"):
                pos = prev + 1
            else:
                break
        cuts.append((pos, m.group(1).strip()))
    head = verilog[:cuts[0][0]]
    modules = []
    for pos, name in cuts:
        end = _END_RE.search(verilog, pos)
        modules.append((name, verilog[pos:end.end() if end else len(verilog)]))
    return head, modules


def _children(text: str, known: set[str]) -> list[tuple[str, str]]:
    """(module name, instance name) of every instantiation of a module in ``known``."""
    out = []
    for m in _INST_RE.finditer(text):
        mod = m.group(2).strip()
        if mod in known and mod not in _KEYWORDS:
            out.append((mod, m.group(3).strip()))
    return out


def _rename(text: str, name: str, new: str) -> str:
    """Replace the module-name token ``name`` (escaped identifiers end with a space)."""
    if name.startswith("\\"):
        return text.replace(name + " ", new + " ")
    return re.sub(rf"(?<![A-Za-z0-9_$\\]){re.escape(name)}(?![A-Za-z0-9_$])", new, text)


_AUTO_RE = re.compile(r"\\\$auto\$\S+")


def _normalise_auto(text: str) -> str:
    """Number Yosys' ``\\$auto$...$N`` names by first appearance (N differs per module)."""
    seen: dict[str, str] = {}
    return _AUTO_RE.sub(lambda m: seen.setdefault(m.group(0), f"\\$auto_{len(seen)}"), text)


def share_identical_modules(verilog: str) -> str:
    """Verilog with one module per distinct body; instances of duplicates point at the kept one."""
    head, modules = _split(verilog)
    if len(modules) < 2:
        return verilog
    texts = dict(modules)
    names = set(texts)
    canon: dict[str, str] = {}            # module -> digest of its abstracted body

    def visit(name: str, stack: tuple[str, ...] = ()) -> str:
        if name in canon:
            return canon[name]
        if name in stack:                   # recursion cannot happen in a netlist; be safe
            return name
        body = _rename(texts[name], name, "\\__self__")
        for child, _ in _children(texts[name], names):
            body = _rename(body, child, "\\__" + visit(child, stack + (name,)) + "__")
        canon[name] = hashlib.sha256(_normalise_auto(body).encode()).hexdigest()[:16]
        return canon[name]

    for name, _ in modules:
        visit(name)
    keep: dict[str, str] = {}             # digest -> first module name with it
    for name, _ in modules:
        keep.setdefault(canon[name], name)
    out = [head]
    for name, text in modules:
        if keep[canon[name]] != name:
            continue
        for child, _ in _children(text, names):
            rep = keep[canon[child]]
            if rep != child:
                text = _rename(text, child, rep)
        out.append(text)
    return "\n".join(part.rstrip("\n") for part in out if part) + "\n"


def replicated(verilog: str) -> dict[str, int]:
    """Stateful modules instantiated more than once in ``verilog`` -> number of instances.

    Only modules that hold state (a clocked process in them or below them) count: those are
    the replicated banks of the papers' structures. Small combinational helpers (a priority
    encoder per lane) are left to be flattened, where constant inputs and shared logic can
    still be optimised across their boundary."""
    _, modules = _split(verilog)
    texts = dict(modules)
    names = set(texts)
    counts = Counter(child for _, text in modules for child, _ in _children(text, names))

    def stateful(name: str, depth: int = 0) -> bool:
        text = texts.get(name, "")
        return "posedge" in text or (depth < 64 and any(
            stateful(c, depth + 1) for c, _ in _children(text, names)))

    return {n: c for n, c in counts.items() if c > 1 and stateful(n)}


def instance_counts(verilog: str, top: str) -> dict[str, int]:
    """How many times each module occurs in the design under ``top`` (1 for ``top``)."""
    _, modules = _split(verilog)
    texts = dict(modules)
    names = set(texts)
    counts: dict[str, int] = {}

    def walk(name: str, times: int, depth: int = 0) -> None:
        counts[name] = counts.get(name, 0) + times
        if depth < 64:
            for child, _ in _children(texts.get(name, ""), names):
                walk(child, times, depth + 1)

    walk(top, 1)
    return counts


@dataclass(frozen=True)
class SharedDesign:
    """A netlist with its identical submodules shared (:func:`share`), ready for Yosys."""

    verilog: str
    #: stateful modules instantiated more than once -> instances (names without the leading backslash)
    replicated: dict[str, int]
    #: every module under the top -> times it occurs (names without the leading backslash)
    instances: dict[str, int]

    @property
    def keep_script(self) -> str:
        """Yosys commands marking the replicated modules ``keep_hierarchy`` (so ``synth
        -flatten`` maps each once and ``stat`` counts it per instance)."""
        for mod in self.replicated:
            if re.search(r"[\s*?\[\]/]", mod):
                raise SynthError(f"replicated module {mod!r}: name cannot be selected in Yosys")
        return "".join(f"setattr -mod -set keep_hierarchy 1 {mod}\n" for mod in sorted(self.replicated))


def share(verilog: str, top: str) -> SharedDesign:
    """:func:`share_identical_modules`, then its replicated modules and instance counts."""
    shared = share_identical_modules(verilog)
    return SharedDesign(shared, {m.lstrip("\\"): n for m, n in replicated(shared).items()},
                        {m.lstrip("\\"): n for m, n in instance_counts(shared, top).items()})
