"""PTX listing annotated with DARSIE's marks, in the style of the paper's Fig. 6.

Each instruction line shows the launch-time class (DR = skipped by follower warps, V =
executed by every warp), the static 2-bit PTX hint (DR/CR/V), the PC and the PTX text;
labels are printed where they appear in the source. A summary line ends the listing.
"""

from __future__ import annotations

from golden.mechanisms.darsie.marking import Marking


def format_marking(marking: Marking, reasons: bool = False) -> str:
    """The annotated listing of ``marking`` (one line per PC; ``reasons`` adds why)."""
    d = marking.decision
    lines = [f"// kernel {marking.kernel}, TB {d.block}: {d.reason}",
             f"// launch  static  PC       instruction"]
    width = max((len(m.text) for m in marking.marks), default=0)
    for m in marking.marks:
        for lab in marking.labels.get(m.pc, ()):
            lines.append(lab)
        final = d.resolve(m.static)
        line = f"   {final.name:<6}  {m.static.name:<6}  0x{m.pc:05x}  {m.text}"
        if reasons:
            line = f"{line:<{width + 32}}  // {m.reason}"
        lines.append(line.rstrip())
    lines.append(format_summary(marking))
    return "\n".join(lines)


def format_summary(marking: Marking) -> str:
    """One line: static DR/CR/V counts and how many PCs are skippable for this launch."""
    s = marking.summary()
    return (f"// {marking.kernel}: {s.instructions} instructions, static DR {s.static_dr}, "
            f"CR {s.static_cr}, V {s.static_v}; TB-redundant at launch {s.skippable} "
            f"({100 * s.skippable_fraction:.1f}%)")
