"""G-Scalar (seed 003) RTL: compressor, decompressor and the compressed register-file bank.

Reference models: :mod:`golden.structures.gscalar`.
"""
