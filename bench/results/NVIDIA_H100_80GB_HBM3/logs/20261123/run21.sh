#!/usr/bin/env bash
# Device run 21: the read-only and row_stream bounds beside MACKO, cuBLAS and the copy.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  bench_macko "--shapes 4096x4096,12288x12288,28672x8192,36864x12288,7168x28672,12288x49152 --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy,read,row_stream"
