#!/usr/bin/env bash
# Device run 60: Schedule::x_swizzle (x in shared memory swizzled at batch 1, an option; default off).
# GPU properties (300 cases, swizzled kernels among them), racecheck and memcheck (20), then the
# same-run A/B `--x-swizzle 0,1` on uniform rows and on 2:4 / 4:8 / Bernoulli rows at d = 0.5.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 150 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes 12288x12288,28672x8192,7168x28672,4096x4096 --densities 0.5,0.3 --patterns 2:4,4:8,bernoulli --pattern-shapes 12288x12288,28672x8192,7168x28672,4096x4096 --kernels cublas_gemv,macko --x-shared 1 --x-swizzle 0,1"
