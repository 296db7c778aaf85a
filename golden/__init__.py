"""simtlab golden SIMT model.

Importing the package installs the compiled timing core when a build matches the current
sources (:mod:`golden.native`; ``SIMTLAB_PURE_PYTHON=1`` keeps everything plain Python).
"""

from golden import native as _native

_native.install()
