#!/usr/bin/env bash
# Device run 134b: part of issue 4's full sweep (ws_bench_macko --full: densities 1.0, 0.9 ... 0.1,
# 0.05, uniform exact-nnz rows, the other pattern families at d = 0.5 on the quick shapes, every
# baseline) on 6e8d8f8 (the kernels of the fifteenth session, the 12-warp rule of 7f86360), run 99's shape groups.
bash scripts/device_run.sh bench_macko "--full --shapes 12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568"
