"""G-Scalar (seed 003) hardware structures: reference models.

* :mod:`.encoding` - vectorised byte-wise compression arithmetic (enc, base, half/group
  codes with FS, decompression, array activations), usable on many warps at once;
* :mod:`.params` - :class:`GScalarParams` (lanes, registers per bank, groups) and lane packing;
* :mod:`.compressor` - :class:`Compressor` (comparison + leading-one broadcast);
* :mod:`.decompressor` - :class:`Decompressor` (per-byte select by the EBR);
* :mod:`.bank` - :class:`CompressedBank` (byte-reordered bank with BVR/EBR/D/FS);
* :mod:`.trace` - register write/read traces recorded from golden workload runs.
"""

from golden.structures.gscalar.encoding import (  # noqa: F401
    ENC_CODES, arrays_read, byte_enc, common_bytes, covered_mask, decompress,
    enc_from_common, group_arrays_read, group_decompress, group_enc, half_enc,
)
from golden.structures.gscalar.params import GScalarParams, pack_lanes, unpack_lanes  # noqa: F401
from golden.structures.gscalar.compressor import Compressor, CompressorOps, CompressorOutputs  # noqa: F401
from golden.structures.gscalar.decompressor import (  # noqa: F401
    Decompressor, DecompressorOps, DecompressorOutputs,
)
from golden.structures.gscalar.bank import BankOps, BankOutputs, CompressedBank  # noqa: F401
