#!/usr/bin/env bash
# Device run 110b: part of issue 4's full sweep (ws_bench_macko --full: densities 1.0, 0.9 ... 0.1,
# 0.05, uniform exact-nnz rows, the other pattern families at d = 0.5 on the quick shapes, every
# baseline) on the final code (0aea589: the schedule rules of runs 103-106), run 99's shape groups.
bash scripts/device_run.sh bench_macko "--full --shapes 12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568"
