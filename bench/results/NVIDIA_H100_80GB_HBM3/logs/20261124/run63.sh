#!/usr/bin/env bash
# Device run 63: the x_swizzle default rule (gpu::default_schedule_for, macko::x_swizzle_pays).
# GPU properties (the new default_schedule_for cases among them), memcheck and racecheck over the
# x-in-shared-memory cases, then the same-run A/B on N:M, Bernoulli and uniform rows: the default
# (the rule decides) against --x-swizzle 0 (the old default), both with the default x_shared rule.
P="--shapes 12288x12288,28672x8192,7168x28672,4096x4096 --densities 0.5,0.3 --patterns 2:4,4:8,bernoulli --pattern-shapes 12288x12288,28672x8192,7168x28672,4096x4096 --kernels cublas_gemv,macko"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 200 macko_spmv_gpu_props" \
  run mem_xs "timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run race_xs "timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  bench_macko "$P" \
  bench_macko "$P --x-swizzle 0"
