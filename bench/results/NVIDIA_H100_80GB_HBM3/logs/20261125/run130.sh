#!/usr/bin/env bash
# Device run 130: the 12-warp rule out of sample. Eight tall shapes that are not in Appendix D
# (4096-9216 columns; by macko::busiest_sm_units on 132 SMs the rule takes 12-warp blocks on six and
# keeps 4 on 24576x6144 and 16384x5120), 4- and 12-warp blocks in the same call, d = 0.5 / 0.3 / 0.2.
S=24576x6144,40960x8192,18432x4608,30720x7680,45056x9216,16384x5120,14000x7000,40000x4096
bash scripts/device_run.sh \
  run wpb "timeout 300 ws_bench_macko --threads 16 --densities 0.5,0.3,0.2 --patterns none --kernels macko --shapes $S --warps-per-block 4,12 --out \$OUT/r_wpb"
