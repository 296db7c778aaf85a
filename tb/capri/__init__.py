"""cocotb testbenches of the CAPRI structures (seed 004): CAPT and warp compaction unit
with adequacy evaluator, on the generic bench of tb/common/bench.py."""
