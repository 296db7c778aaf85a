"""Property-based fuzzing of the user-input loaders (issue 19): random mutations of the real
PTX files of the workload suite (golden/workloads/kernels/*.ptx) and random edits of the
shipped YAML configurations. Every outcome must be a successful load or a project error
(:class:`golden.errors.SimtlabError` subclass), never another exception.

The PTX property parses the mutated text, links every kernel (as a launch would) and
decodes every ALU instruction (``compile_op``, what the SIMT core does on first execution).
The YAML property writes the edited file and loads it with ``load_config``; a third
property applies random dotted ``overrides``. Runs are derandomised (the same examples on
every run, so CI is deterministic) and bounded (``max_examples``; no deadline).
``SIMTLAB_FUZZ_EXAMPLES=5000`` runs longer with fresh random examples."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden.configs import load_config
from golden.configs.loader import CONFIG_DIR
from golden.errors import SimtlabError
from golden.exec.ops import EXECUTOR_OPCODES, compile_op
from golden.ptx import parse_ptx
from golden.simt.program import link

ROOT = Path(__file__).resolve().parent.parent
PTX_FILES = sorted((ROOT / "golden" / "workloads" / "kernels").glob("*.ptx"))
PTX_TEXTS = [p.read_text() for p in PTX_FILES]
YAML_FILES = sorted(CONFIG_DIR.glob("*.yaml"))
YAML_TEXTS = [p.read_text() for p in YAML_FILES]

#: SIMTLAB_FUZZ_EXAMPLES=N fuzzes longer with fresh random examples (not part of make test)
_LONG = int(os.environ.get("SIMTLAB_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=_LONG or 200, deadline=None, derandomize=not _LONG, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: tokens spliced into PTX: registers, types, punctuation, numbers, directives, labels
PTX_JUNK = ["%r1", "%rd1", "%f1", "%p1", "%r999", "%tid.x", "%tid", "%laneid.x", ".b32",
            ".u64", ".f32", ".pred", ".v4", ".v8", ".global", ".shared", ".param", "[", "]",
            "{", "}", "(", ")", ";", ",", "@", "@!", "|", "-", "+", "0", "-1", "0x", "0f",
            "0fZZ", "0d3FF0000000000000", "99999999999999999999999", "1.5e400", "$L__BB0_1",
            "$L__BB0_99", ".version", ".target", "sm_999", ".entry", ".func", ".reg",
            ".align 0", "<", ">", "<99999999>", ":", "bra", "call", "ret", "exit", "trap",
            "ld.global.v4.u32", "st.shared.b64", "mov.u32", "cvt.rn.f32.s32", "shfl.sync.bfly.b32",
            "vote.sync.ballot.b32", "match.any.sync.b32", "redux.sync.add.u32", "bar.sync",
            "atom.global.cas.b32", "setp.lt.s32", "selp.b32", "//", "/*", '"', "\\", "\u00e9",
            "\x00", ""]

YAML_JUNK = ["-1", "0", "1", "2", "32", "16", "1e309", "-.inf", ".nan", "0x10", "1_000",
             "abc", "~", "null", "true", "[]", "{}", "[1, 2]", "{a: 1}", "'32'", '"x"',
             "!!binary AA==", "!!float 1", "!!str 5", "&a 3", "*a", "*nope", "? [a]", ":",
             "- x", "|", ">", "%", "@", "`", "9" * 40, "-9" * 20, "1.5", "2.0", "lrr",
             "gto", "two_level", "inherits", "gtx480", "pascal", "nosuch.yaml", "\t", "\x00",
             "\u00e9"]
#: whole lines inserted into YAML: complex keys, merge keys, anchors, documents, tags
YAML_LINES = ["? [a, b]", ": 1", "? {a: 1}: 2", "[1, 2]: x", "{a: 1}: x", "<<: *nope",
              "core: &c {num_sms: 2}", "<<: {num_sms: 2}", "---", "...", "%YAML 1.1",
              "!!map", "inherits: gtx480", "inherits: [gtx480]", "inherits: ../x.yaml",
              "1: 2", "null: 3", "true: 4", "1.5: 5", "core:", "  num_sms: 3", "- 1",
              "key: !!set {a, b}", "key: !!omap [a: 1]", "key: 2001-12-14"]


# ----------------------------------------------------------------------------- PTX

@st.composite
def mutated_ptx(draw):
    k = draw(st.integers(0, len(PTX_TEXTS) - 1))
    lines = PTX_TEXTS[k].split("\n")
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        what = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "truncate",
                                     "insert"]))
        if what == "delete":
            del lines[i]
        elif what == "duplicate":
            lines.insert(i, lines[i])
        elif what == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif what == "token":
            toks = lines[i].replace("\t", " ").split(" ")
            t = draw(st.integers(0, len(toks) - 1))
            toks[t] = draw(st.one_of(st.sampled_from(PTX_JUNK),
                                     st.sampled_from(toks)))
            lines[i] = " ".join(toks)
        elif what == "truncate":
            c = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:c]
        else:
            c = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:c] + draw(st.sampled_from(PTX_JUNK)) + lines[i][c:]
    return PTX_FILES[k].name, "\n".join(lines)


@FUZZ
@given(mutated_ptx())
def test_mutated_ptx_is_loaded_or_refused_with_a_project_error(case):
    name, text = case
    try:
        module = parse_ptx(text, name)
        for kname in module.kernels:
            program = link(module, kname)
            for s in program.slots:
                if s.inst is not None and s.inst.opcode not in EXECUTOR_OPCODES:
                    compile_op(s.inst)
    except SimtlabError:
        pass


# ----------------------------------------------------------------------------- YAML

_TMP = tempfile.TemporaryDirectory(prefix="simtlab-fuzz-")


@st.composite
def edited_yaml(draw):
    k = draw(st.integers(0, len(YAML_TEXTS) - 1))
    lines = YAML_TEXTS[k].split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        what = draw(st.sampled_from(["value", "value", "key", "delete", "duplicate", "swap",
                                     "indent", "insert", "line"]))
        if what == "value" and ":" in line:
            key, _, rest = line.partition(":")
            comment = rest[rest.index("#"):] if "#" in rest else ""
            lines[i] = f"{key}: {draw(st.sampled_from(YAML_JUNK))} {comment}".rstrip()
        elif what == "key" and ":" in line:
            key, _, rest = line.partition(":")
            indent = key[:len(key) - len(key.lstrip())]
            lines[i] = indent + draw(st.sampled_from(YAML_JUNK + [key.strip() + "x"])) + ":" + rest
        elif what == "delete":
            del lines[i]
        elif what == "duplicate":
            lines.insert(i, line)
        elif what == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif what == "line":
            indent = draw(st.sampled_from(["", "  ", "    "]))
            lines.insert(i, indent + draw(st.sampled_from(YAML_LINES)))
        elif what == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + line.lstrip()
        else:
            c = draw(st.integers(0, len(line)))
            lines[i] = line[:c] + draw(st.sampled_from(YAML_JUNK)) + line[c:]
        if not lines:
            lines = [""]
    return YAML_FILES[k].name, "\n".join(lines)


@FUZZ
@given(edited_yaml())
def test_edited_yaml_config_is_loaded_or_refused_with_a_config_error(case):
    name, text = case
    path = Path(_TMP.name) / name
    path.write_text(text, encoding="utf-8")
    try:
        load_config(path)
    except SimtlabError:
        pass


_OVERRIDE_KEYS = ["core.num_sms", "core.warp_size", "core.scheduler", "memory.l1.assoc",
                  "memory.l1", "memory", "core", "pipelines.alu.latency", "nosuch",
                  "core.nosuch", "memory.l1.size_bytes.x", "", ".", "core..num_sms", "energy"]
_OVERRIDE_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                             st.floats(allow_nan=True, allow_infinity=True),
                             st.text(max_size=8), st.lists(st.integers(), max_size=3),
                             st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


@FUZZ
@given(st.sampled_from(["gtx480", "pascal", "fx5800", "warpman"]),
       st.dictionaries(st.one_of(st.sampled_from(_OVERRIDE_KEYS), st.integers()),
                       _OVERRIDE_VALUES, max_size=3))
def test_random_overrides_are_applied_or_refused_with_a_config_error(name, overrides):
    try:
        load_config(name, overrides=overrides)
    except SimtlabError:
        pass
