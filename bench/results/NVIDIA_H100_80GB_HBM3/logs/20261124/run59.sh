#!/usr/bin/env bash
# Device run 59: x in shared memory swizzled at batch 1 too (16-byte chunks permuted inside each
# 128-byte row; the experiment after run 58's N:M finding). GPU properties (300 cases), racecheck and
# memcheck (20), then the x_shared shapes at d = 0.5 / 0.3 / 0.1 and 2:4 / 4:8 at d = 0.5, to set
# beside run 58 (same cases, unswizzled).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 150 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes 12288x12288,28672x8192,7168x28672,21504x7168,9216x36864,4096x4096 --densities 0.5,0.3,0.1 --patterns 2:4,4:8,bernoulli --pattern-shapes 12288x12288,28672x8192,4096x4096 --kernels cublas_gemv,macko"
