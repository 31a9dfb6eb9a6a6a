#!/usr/bin/env bash
# Device run 105 (experiment, 0538b06 binaries): block sizes that are not powers of two with x in
# shared memory. Every block copies x before its warps compute: 4-warp blocks hold 36 warps per SM
# in 9 blocks (9 copies of x per SM), 16-warp blocks 32 warps in 2. 12-warp blocks hold 36 warps in
# 3 blocks at 51-56 registers, 6-warp blocks 36 in 6. The 15 big shapes at d = 0.5 / 0.3, x in
# shared memory, 4 / 6 / 12 / 16 warps per block (each shape's other default fields).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run wpb "timeout 300 ws_bench_macko --threads 16 --out \$OUT/r_wpb --shapes $BIG --densities 0.5,0.3 --patterns none --kernels macko --x-shared 1 --warps-per-block 4,6,12,16"
