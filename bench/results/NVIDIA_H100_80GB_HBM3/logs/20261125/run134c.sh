#!/usr/bin/env bash
# Device run 134c: part of issue 4's full sweep (ws_bench_macko --full: densities 1.0, 0.9 ... 0.1,
# 0.05, uniform exact-nnz rows, the other pattern families at d = 0.5 on the quick shapes, every
# baseline) on 6e8d8f8 (the kernels of the fifteenth session, the 12-warp rule of 7f86360), run 99's shape groups.
bash scripts/device_run.sh bench_macko "--full --shapes 27648x9216,32000x8192,9216x36864,36864x9216"
