"""Validation of the baseline timing model: correlation with the reference simulator's
cycle counts on the same PTX (:mod:`golden.validate.correlation`) and microbenchmarks
whose timing follows from the configuration (:mod:`golden.validate.microbench`).
``simtlab validate`` / ``make validate`` run both (:mod:`golden.validate.cli`)."""
