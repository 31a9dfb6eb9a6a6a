#!/usr/bin/env bash
# Device run 106 (0538b06 binaries): run 105's two leads in one run each. (1) Rows split over two
# warps with x in shared memory (the split-tail rule) on 8-warp blocks (the default) or 16-warp
# blocks: with 36864 columns x takes 72 KiB, so only 3 8-warp blocks (24 warps) fit an SM, and 2
# 16-warp blocks hold 32. The four shapes of runs 44-45 and 9216^2 at d = 1.0 / 0.5 / 0.3 / 0.1.
# (2) 36864x12288 and 49152x12288 (x through L1 by default) at d = 1.0 / 0.7 / 0.5 / 0.3, x through
# L1 or in shared memory, 4- or 12- or 16-warp blocks.
bash scripts/device_run.sh \
  run split "timeout 200 ws_bench_macko --threads 16 --out \$OUT/r_split --shapes 9216x36864,9216x9216,5120x5120,5120x13824 --densities 1.0,0.5,0.3,0.1 --patterns none --kernels macko --x-shared 1 --row-splits 2 --warps-per-block 8,16 --lane-elems 8" \
  run l1 "timeout 200 ws_bench_macko --threads 16 --out \$OUT/r_l1 --shapes 36864x12288,49152x12288 --densities 1.0,0.7,0.5,0.3 --patterns none --kernels macko --x-shared 0,1 --warps-per-block 4,12,16"
