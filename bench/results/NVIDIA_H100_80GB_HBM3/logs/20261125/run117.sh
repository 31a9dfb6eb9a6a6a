#!/usr/bin/env bash
# Device run 117: the candidate build. Against 41785ae (ws_bench_macko_base) it has
# - interior_pair (run 115): one scan for a whole group's two steps;
# - the gathers of 16-bit x in shared memory at doubled prefix bytes (run 116's addr2), 8 elements
#   per lane;
# - masked_step4: a row's first and last steps by the SWAR sums over byte-masked increments
#   instead of the element-by-element walk (one vector, 8 elements per lane);
# - Schedule::x_f32 (x in shared memory as fp32) with 12-warp blocks, the default of tall matrices
#   of <= 9216 columns at d <= 0.4 (runs 115-116: +0.5-4.6 % at d = 0.3 and 2-8 % at 0.2-0.1 on
#   12-warp blocks).
# MACKO properties (the new x_f32 cases and defaults included), base / new at the defaults, and the
# x_f32 rule at d = 0.4 / 0.2 / 0.15 on the tall shapes (x_f32 on and off, 4- and 12-warp blocks).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
TALL=28672x8192,21504x7168,32000x5120,32000x8192,28672x7168,27648x9216,36864x9216
A="--threads 16 --densities 0.5,0.3,0.1 --patterns none --kernels macko --shapes $BIG"
R="--threads 16 --densities 0.4,0.2,0.15 --patterns none --kernels macko --shapes $TALL --warps-per-block 4,12 --x-f32 0,1"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=150 timeout 120 macko_spmv_gpu_props '~[large]'" \
  run base "timeout 110 ws_bench_macko_base $A --out \$OUT/r_base" \
  run new "timeout 110 ws_bench_macko $A --out \$OUT/r_new" \
  run rule "timeout 100 ws_bench_macko $R --out \$OUT/r_rule"
