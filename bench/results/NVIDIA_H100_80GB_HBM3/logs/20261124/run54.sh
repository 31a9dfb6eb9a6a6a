#!/usr/bin/env bash
# Device run 54: the batch rule in default_schedule (from run 53). GPU properties (300 cases), racecheck
# and memcheck (20), then the batched table with the default schedules: five shapes, d = 1.0 / 0.5 /
# 0.3 / 0.1, batches 1 / 2 / 4 / 8 beside cuBLAS (GEMV / GEMM with N = batch) and cuSPARSE (SpMV /
# SpMM CSR_ALG3), fp16; and 12288^2 in bf16.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 150 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes 4096x4096,12288x12288,28672x8192,8192x28672,36864x12288 --densities 1.0,0.5,0.3,0.1 --patterns none --batch 1,2,4,8 --kernels cublas_gemv,cusparse_csr,macko,copy" \
  bench_macko "--shapes 12288x12288 --densities 0.5,0.1 --patterns none --value-types bf16 --batch 1,2,4,8 --kernels cublas_gemv,cusparse_csr,macko,copy"
