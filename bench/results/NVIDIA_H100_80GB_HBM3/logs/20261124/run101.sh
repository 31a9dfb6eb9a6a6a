#!/usr/bin/env bash
# Device run 101 (experiment): run 100's stream_rows sweep at the unit sizes that leave one round of
# units on the resident warps (k = ceil(rows / resident warps): 5 for 21504x7168, 7 for 32000x5120,
# 28672x8192, 32000x8192 and 28672x7168, 11 for 49152x12288), with the kernels held at 56 registers
# (ws_bench_macko) and at 64 (ws_bench_macko_r64: kStreamMaxRegs = 64, which spills nothing).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run r56 "timeout 200 ws_bench_macko --threads 16 --out \$OUT/r_r56 --shapes $BIG --densities 0.3 --patterns none --kernels macko --stream-rows 1,5,7,11" \
  run r64 "timeout 200 ws_bench_macko_r64 --threads 16 --out \$OUT/r_r64 --shapes $BIG --densities 0.3 --patterns none --kernels macko --stream-rows 1,2,3,5,7,8,11"
