#!/usr/bin/env bash
# Device run 100 (experiment): units of several rows walked as one stream (Schedule::stream_rows).
# The kernels of one row per unit are unchanged (their PTX is identical to d4e480e's), so
# --stream-rows 1 in the same binary is the base. GPU properties of the new kernels (400 cases) and
# of all MACKO tests but [large] (100 cases), memcheck and racecheck over the new test (30 cases),
# then the 15 big shapes at d = 0.3 with k = 1, 2, 3, 4, 6, 8 (each shape's default schedule).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
T="MACKO kernel with units of several rows equals its warp model bit for bit"
bash scripts/device_run.sh \
  run props_stream "RC_PARAMS=max_success=400 timeout 100 macko_spmv_gpu_props '$T'" \
  run props_rest "RC_PARAMS=max_success=100 timeout 100 macko_spmv_gpu_props '~[large]'" \
  run memcheck "RC_PARAMS=max_success=30 timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '$T'" \
  run racecheck "RC_PARAMS=max_success=30 timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '$T'" \
  run sweep03 "timeout 200 ws_bench_macko --threads 16 --out \$OUT/r_sweep03 --shapes $BIG --densities 0.3 --patterns none --kernels macko --stream-rows 1,2,3,4,6,8"
