#!/usr/bin/env bash
# Device run 48: the x_shared launch and the resident-rows query sharing one helper (xs_fit):
# properties, sanitizers, and the default schedule on three shapes that take its three branches.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes 9216x36864,12288x12288,28672x8192 --densities 0.5 --patterns none --kernels cublas_gemv,macko,copy"
