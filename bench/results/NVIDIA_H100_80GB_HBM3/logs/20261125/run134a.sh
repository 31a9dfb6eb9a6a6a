#!/usr/bin/env bash
# Device run 134a: part of issue 4's full sweep (ws_bench_macko --full: densities 1.0, 0.9 ... 0.1,
# 0.05, uniform exact-nnz rows, the other pattern families at d = 0.5 on the quick shapes, every
# baseline) on 6e8d8f8 (the kernels of the fifteenth session, the 12-warp rule of 7f86360), run 99's shape groups.
bash scripts/device_run.sh bench_macko "--full --shapes 4096x4096,5120x5120,7168x7168,8192x8192,9216x9216,11008x4096,4096x11008,14336x4096,4096x14336,13824x5120,5120x13824,18944x3584,3584x18944,20480x3584,3584x20480,32000x4096"
