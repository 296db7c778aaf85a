"""DARSIE (seeds 000/001): dimensionality-aware redundant SIMT instruction elimination.

* :mod:`.lattice`  - the V < CR < DR lattice and the launch-time CR promotion (§4.2);
* :mod:`.marking`  - the compiler pass marking every PC of a linked kernel (§4.2, Fig. 6);
* :mod:`.listing`  - the Fig. 6-style annotated PTX listing;
* :mod:`.limit_study` - value-based grid/TB/warp redundancy and the uniform/affine/
  unstructured taxonomy of TB-redundant instructions (§1-2, Figs. 1-2), with the
  soundness cross-check of the marking;
* :mod:`.observed`  - running a suite workload with instruction observers attached.
"""

from golden.mechanisms.darsie.lattice import PromotionDecision, Redundancy, promotion
from golden.mechanisms.darsie.marking import (Marking, MarkingOptions, MarkingSummary, PCMark,
                                              analyse_function, mark_kernel)

__all__ = ["Redundancy", "PromotionDecision", "promotion", "Marking", "MarkingOptions",
           "MarkingSummary", "PCMark", "analyse_function", "mark_kernel"]
