"""cocotb testbenches of the uniform-vector structures (seed 002 ch. 2): IRB, SRF map,
uniform detection, on the generic bench of tb/common/bench.py."""
