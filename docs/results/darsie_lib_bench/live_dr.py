# usage: .venv/bin/python docs/results/darsie_lib_bench/live_dr.py golden/workloads/kernels/lib.ptx libor_portfolio 256,1,1
"""Max number of live registers defined only by DR-marked instructions, per PC (PTX liveness),
and the same without operand-foldable ones (kernel ld.param, mov of an immediate/symbol)."""
import sys
from pathlib import Path
from golden.simt.liveness import live_registers
from golden.mechanisms.darsie.marking import mark_kernel, MarkingOptions
from golden.mechanisms.darsie.lattice import Redundancy
from golden.ptx import parse_ptx
from golden.ptx.ir import Imm, Sym
from golden.simt.program import link
from golden.timing.sm import decode_program


def main():
    path, kern, block = Path(sys.argv[1]), sys.argv[2], tuple(int(x) for x in sys.argv[3].split(","))
    prog = link(parse_ptx(path.read_text(), str(path)), kern)
    m = mark_kernel(prog, block, MarkingOptions(warp_size=32, join_taint=True))
    dec = decode_program(prog); keys = sorted(prog.reg_types)
    dr_defs, other_defs, fold = {}, set(), {}
    for s, d in zip(prog.slots, dec):
        if s.inst is None: continue
        isdr = s.pc in m.skippable_pcs
        inst = s.inst
        srcs = inst.operands[1:] if inst.operands else []
        f = (inst.opcode == "ld" and "param" in inst.mods) or (inst.opcode == "mov" and all(isinstance(x, (Imm, Sym)) for x in srcs))
        for i in d.dsts:
            k = keys[i]
            if isdr: dr_defs.setdefault(k, []).append(f)
            else: other_defs.add(k)
    dr = {k for k in dr_defs if k not in other_defs}
    foldable = {k for k in dr if all(dr_defs[k])}
    live = live_registers(prog)
    best = max(((len(l & dr), len((l & dr) - foldable), s.pc) for l, s in zip(live, prog.slots)), key=lambda x: x[0])
    best2 = max(((len((l & dr) - foldable), s.pc) for l, s in zip(live, prog.slots)))
    print(f"{path.name}: DR-only registers {len(dr)} (foldable {len(foldable)}); max live DR {best[0]} at pc {best[2]:#x} ({best[1]} not foldable); max live non-foldable DR {best2[0]} at {best2[1]:#x}")


if __name__ == "__main__":
    main()
