"""G-Scalar (seed 003) hardware structures: reference models.

* :mod:`.encoding` - vectorised byte-wise compression arithmetic (enc, base,
  decompression, array activations), usable on many warps at once.
"""

from golden.structures.gscalar.encoding import (  # noqa: F401
    ENC_CODES, arrays_read, byte_enc, common_bytes, covered_mask, decompress,
    enc_from_common, group_arrays_read, group_decompress, group_enc, half_enc,
)
