#!/usr/bin/env bash
# Device run 80: two rows per warp (Schedule::row_lanes = 16), first build. Properties (the new
# two-rows test 400 cases, the rest 200), memcheck and racecheck (20 each) on the two-rows test;
# then every Appendix D shape at d = 0.5 / 0.3 / 0.1 with the default schedule at 32 and 16 lanes
# per row (run 80b: the narrow tall shapes).
bash scripts/device_run.sh \
  run props16 "RC_PARAMS=max_success=400 macko_spmv_gpu_props 'MACKO kernel with two rows per warp equals its warp model bit for bit'" \
  run props "RC_PARAMS=max_success=200 macko_spmv_gpu_props" \
  run memcheck16 "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel with two rows per warp equals its warp model bit for bit'" \
  run racecheck16 "RC_PARAMS=max_success=20 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel with two rows per warp equals its warp model bit for bit'" \
  run paper "ws_bench_macko --out \$OUT/paper --threads 16 --shapes paper --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko --row-lanes 32,16"
