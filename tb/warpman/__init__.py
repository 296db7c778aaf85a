"""cocotb testbenches of the WarpMan structures (seed 002 ch. 3): workload buffer and
dispatch check, on the generic bench of tb/common/bench.py."""
