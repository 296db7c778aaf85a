"""WarpMan: warp-level resource management (dissertation ch. 3)."""
