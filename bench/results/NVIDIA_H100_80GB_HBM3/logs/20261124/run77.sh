#!/usr/bin/env bash
# Device run 77: the tall rule extended to every density on 7168-9216 columns (run 76). Properties
# (300 cases); the tall shapes at d = 0.2 with default schedules (now x in shared memory on the
# 7168-9216-column ones) beside the L1 schedule; and, for a later rule, the two 12288-column tall
# shapes at d = 1.0 and 0.7 with x through L1 or in shared memory on 4- or 16-warp blocks.
TALL=21504x7168,28672x7168,28672x8192,27648x9216,32000x8192,36864x9216
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run tall_default "ws_bench_macko --out \$OUT/tall_default --threads 16 --shapes $TALL --densities 0.2 --patterns none --kernels cublas_gemv,macko" \
  run tall_l1 "ws_bench_macko --out \$OUT/tall_l1 --threads 16 --shapes $TALL --densities 0.2 --patterns none --kernels macko --x-shared 0 --warps-per-block 4" \
  run tall12k "ws_bench_macko --out \$OUT/tall12k --threads 16 --shapes 36864x12288,49152x12288 --densities 1.0,0.7 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16 --lane-elems 8"
