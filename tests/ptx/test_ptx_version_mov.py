"""Issue 19 item 17: ``.version`` / ``.target`` values ptxas (CUDA 13.0) rejects, and ``mov``
between mismatched types, are PTXErrors naming file:line (as ptxas reports them).

The accept/reject verdicts below were checked against ``ptxas -arch=sm_75`` 13.0."""

import pytest

from golden.errors import PTXError
from golden.ptx import parse_ptx


def _module(version="9.0", target="sm_75", body="mov.u32 %r1, 5;"):
    return f""".version {version}
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	.reg .pred %p<3>;
	.reg .b16 %rs<3>;
	.reg .u32 %u<3>;
	{body}
	ret;
}}
"""


@pytest.mark.parametrize("version,target", [
    ("9.0", "sm_75"), ("6.3", "sm_75"), ("7.0", "sm_80"), ("7.8", "sm_90"), ("8.0", "sm_90a"),
    ("8.7", "sm_120"), ("9.0", "sm_110"), ("7.4", "sm_87"), ("9.0", "sm_75, debug"),
    ("9.0", "sm_75, texmode_independent"), ("6.0", "sm_70"),
])
def test_accepted_version_target(version, target):
    parse_ptx(_module(version, target), "t.ptx")


@pytest.mark.parametrize("version,target,line,fragment", [
    ("9.1", "sm_75", 1, "unsupported .version 9.1: the newest PTX ISA version supported is 9.0"),
    ("10.0", "sm_75", 1, "unsupported .version 10.0"),
    ("7.9", "sm_75", 1, "there is no PTX ISA version 7.9"),
    ("9.00", "sm_75", 1, "malformed .version 9.00"),
    ("9.0", "sm_200", 2, "unsupported .target 'sm_200'"),
    ("9.0", "compute_75", 2, "unsupported .target 'compute_75'"),
    ("9.0", "sm_75, fast", 2, "unknown .target option 'fast'"),
    ("6.2", "sm_75", 2, "PTX .version 6.2 does not support .target sm_75"),
    ("7.7", "sm_90", 2, "PTX .version 7.7 does not support .target sm_90"),
    ("8.6", "sm_120", 2, "PTX .version 8.6 does not support .target sm_120"),
])
def test_rejected_version_target(version, target, line, fragment):
    with pytest.raises(PTXError) as e:
        parse_ptx(_module(version, target), "t.ptx")
    assert f"t.ptx:{line}:" in str(e.value)
    assert fragment in str(e.value)


@pytest.mark.parametrize("body", [
    "mov.u32 %r1, %r2;", "mov.f32 %f1, %r1;", "mov.b32 %f1, %r1;", "mov.s32 %u1, %r1;",
    "mov.f32 %r1, %f1;", "mov.f64 %fd1, %rd1;", "mov.b64 %rd1, %fd1;", "mov.s64 %rd1, -1;",
    "mov.f32 %f1, 0f3F800000;", "mov.b32 %r1, 0f3F800000;", "mov.f64 %fd1, 0d3FF0000000000000;",
    "mov.f32 %f1, 1.5;", "mov.pred %p1, 1;", "mov.u32 %r1, %tid.x;", "mov.u64 %rd1, p;",
    "mov.b64 %rd1, {%r1, %r2};", "mov.u16 %rs1, 7;",
])
def test_mov_accepted_as_ptxas_does(body):
    parse_ptx(_module(body=body), "t.ptx")


@pytest.mark.parametrize("body,fragment", [
    ("mov.u32 %r1, %rd1;", "register %rd1 is .b64"),
    ("mov.u64 %rd1, %r1;", "register %r1 is .b32"),
    ("mov.u32 %f1, %r1;", "register %f1 is .f32"),
    ("mov.u16 %rs1, %r1;", "register %r1 is .b32"),
    ("mov.u32 %r1, %rs1;", "register %rs1 is .b16"),
    ("mov.pred %p1, %r1;", "register %r1 is .b32"),
    ("mov.u32 %r1, %p1;", "register %p1 is .pred"),
    ("mov.f32 %f1, %fd1;", "register %fd1 is .f64"),
    ("mov.u64 %rd1, %fd1;", "register %fd1 is .f64"),
    ("mov.b32 %rd1, %r1;", "register %rd1 is .b64"),
    ("mov.f32 %f1, 1;", "integer immediate 1"),
    ("mov.u32 %r1, 0f3F800000;", "floating-point immediate"),
    ("mov.u32 %r1, 1.0;", "floating-point immediate"),
    ("mov.b32 %r1, 1.5;", "floating-point immediate"),
])
def test_mov_type_mismatch_rejected(body, fragment):
    with pytest.raises(PTXError) as e:
        parse_ptx(_module(body=body), "t.ptx")
    msg = str(e.value)
    assert "t.ptx:13:" in msg and "operand type mismatch" in msg and fragment in msg
    assert body in msg
