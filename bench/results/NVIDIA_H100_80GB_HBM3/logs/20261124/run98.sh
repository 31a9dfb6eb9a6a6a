#!/usr/bin/env bash
# Device run 98 (experiment): the next row's bounds loaded one row ahead (WS_NEXT_BOUNDS=1,
# ws_bench_macko_nb: lanes 0 and 1 load row_ptr of the warp's next unit before the current row's
# loads, one more register) against run 96's binary (balanced rounds; ws_bench_macko). Base / new /
# base over the 15 big shapes at d = 0.5 / 0.3 / 0.1 (macko only); then 32000x5120 at d = 0.3 with
# x through L1 or in shared memory on a persistent grid of at most 9 blocks per SM, both binaries.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels macko"
X="--threads 16 --shapes 32000x5120,21504x7168 --densities 0.3 --patterns none --kernels macko --x-shared 0,1 --blocks-per-sm 9"
bash scripts/device_run.sh \
  run base "timeout 150 ws_bench_macko --out \$OUT/r_base $A" \
  run nb "timeout 150 ws_bench_macko_nb --out \$OUT/r_nb $A" \
  run base2 "timeout 150 ws_bench_macko --out \$OUT/r_base2 $A" \
  run x_base "timeout 40 ws_bench_macko --out \$OUT/r_x_base $X" \
  run x_nb "timeout 40 ws_bench_macko_nb --out \$OUT/r_x_nb $X"
