"""compile_op dispatch, error reporting, and every ALU instruction of the nvcc sample PTX."""

import pathlib
import re
import warnings

import numpy as np
import pytest

from golden.errors import PTXError
from golden.exec import DTYPE, EXECUTOR_OPCODES, SUPPORTED_OPCODES, compile_op, imm_as
from golden.ptx.ir import Imm, Reg
from exec_helpers import mk, rng

SAMPLES = pathlib.Path(__file__).resolve().parents[1] / "ptx" / "samples"
SPECIAL = re.compile(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|clock|clock64|lanemask_\w+|gridid)\b")


def test_unsupported_opcode_error_names_location_text_and_support():
    with pytest.raises(PTXError) as e:
        compile_op(mk("frobnicate.b32", "d", "a"))
    msg = str(e.value)
    assert "test.ptx:1:1" in msg and "frobnicate.b32 d, a;" in msg and "supported" in msg
    assert e.value.supported and "fma" in e.value.supported


def test_executor_opcodes_are_refused_with_a_pointer():
    with pytest.raises(PTXError, match="SIMT core"):
        compile_op(mk("bar.sync", "0"))
    assert not set(SUPPORTED_OPCODES) & EXECUTOR_OPCODES


def test_shared_opcodes_dispatch_on_type():
    assert compile_op(mk("add.f32", "d", "a", "b")).src_types == ("f32", "f32")
    assert compile_op(mk("add.s64", "d", "a", "b")).src_types == ("s64", "s64")
    op = compile_op(mk("mul.wide.s32", "d", "a", "b"))
    assert op.src_types == ("s32", "s32") and op.dst_types == ("s64",)
    op = compile_op(mk("shl.b64", "d", "a", "b"))
    assert op.src_types == ("b64", "u32")


def test_fn_raw_matches_fn():
    op = compile_op(mk("div.rn.f32", "d", "a", "b"))
    a, b = np.float32([1, 2, 0]), np.float32([3, 0, 0])
    with np.errstate(all="ignore"):
        raw = op.fn_raw(a, b)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        safe = op.fn(a, b)[0]
    assert np.array_equal(raw, safe, equal_nan=True)


def _sample_instructions():
    """(file:line, text) of every ALU instruction in the committed nvcc sample PTX."""
    out = []
    for path in sorted(SAMPLES.glob("*.ptx")):
        for no, line in enumerate(path.read_text().splitlines(), 1):
            s = line.split("//")[0].strip().rstrip(";").strip()
            if not s or s.startswith((".", "}", "{", "$")) or s.endswith(":"):
                continue
            s = re.sub(r"^@!?%p\d+\s+", "", s)
            head, _, rest = s.partition(" ")
            opcode = head.split(".")[0]
            if opcode in EXECUTOR_OPCODES or opcode not in SUPPORTED_OPCODES:
                continue
            if SPECIAL.search(rest) or "[" in rest:
                continue
            if opcode == "mov" and re.search(r",\s*[A-Za-z_$]", rest):  # symbol address
                continue
            out.append((f"{path.name}:{no}", head, [o.strip() for o in re.split(r",(?![^{]*})", rest)]))
    return out


SAMPLE_INSTS = _sample_instructions()


def test_samples_found():
    assert len(SAMPLE_INSTS) > 50


@pytest.mark.parametrize("where,head,operands", SAMPLE_INSTS, ids=[w for w, _, _ in SAMPLE_INSTS])
def test_nvcc_sample_instruction_runs(where, head, operands):
    op = compile_op(mk(head, *operands))
    g = rng(61)
    vals = []
    for o, t in zip(op.src_operands, op.src_types):
        if isinstance(o, Imm):
            vals.append(imm_as(o, t))
        else:
            assert isinstance(o, Reg)
            raw = g.integers(0, 256, 32 * DTYPE[t].itemsize, dtype=np.uint8)
            vals.append(raw.view(DTYPE[t]) if t != "pred" else raw[:32] > 127)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = op.fn(*vals)
    n = 1 if all(isinstance(o, Imm) for o in op.src_operands) else 32  # immediates broadcast
    for r, t in zip(res, op.dst_types):
        assert r.dtype == DTYPE[t] and r.shape == (n,)
