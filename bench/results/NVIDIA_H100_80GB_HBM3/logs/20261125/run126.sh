#!/usr/bin/env bash
# Device run 126: block sizes against the busiest SM's rows. Run 125 kept 12-warp blocks where they
# tie 4-warp blocks on the busiest SM (+0.6 % on average over 25 cases). Smaller blocks deal the rows
# to the SMs more evenly (21504 rows on 132 SMs: 180 rows on the busiest SM with 4-warp blocks,
# 165 with 3-warp blocks, 162.9 on average), at the price of more copies of x per SM. 0547c8c's
# binary with the default schedule and 2 / 3 / 4 / 6 / 12 warps per block on the 7 tall shapes at
# d = 0.5 / 0.3 / 0.2.
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
bash scripts/device_run.sh \
  run wpb "timeout 300 ws_bench_macko --threads 16 --densities 0.5,0.3,0.2 --patterns none --kernels macko --shapes $TALL --warps-per-block 2,3,4,6,12 --out \$OUT/r_wpb"
