#!/usr/bin/env bash
# Device run 44: x in shared memory with each row split over two warps (Variant<4,1,2,true,8,2,true>),
# on the shapes that still miss a target or sit on its line, against the current default.
S=9216x36864,7168x28672,12288x12288,8192x28672,21504x7168,32000x5120,28672x7168
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes $S --densities 1.0,0.5,0.3 --patterns none --kernels cublas_gemv,macko,copy --x-shared 1 --warps-per-block 4,8,16 --row-splits 1,2"
