#!/usr/bin/env bash
# Device run 53: the batched MACKO kernels (Schedule::batch 2/4/8) and the batch-1 kernels they must
# not have changed: GPU properties (300 cases each), racecheck and memcheck (20), then a sweep of
# the batch schedules (elements per lane, x through L1 or in shared memory, warps per block).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 150 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes 12288x12288,28672x8192 --densities 1.0,0.5,0.1 --patterns none --batch 1,2,4,8 --kernels cublas_gemv,macko --lane-elems 8,4,2 --x-shared 0,1 --warps-per-block 4,16"
