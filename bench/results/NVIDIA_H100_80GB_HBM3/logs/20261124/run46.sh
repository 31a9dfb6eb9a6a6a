#!/usr/bin/env bash
# Device run 46: on the final code, the MACKO properties and sanitizers, the final MACKO table (default schedule) over the 15 Appendix D shapes with
# R x C >= 12288^2, and the final mma.sp / wgmma.sp numbers beside cuSPARSELt and cuBLAS.
BIG=12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568,27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy" \
  bench_sparse24 "--sizes 4096x4096x4096,8192x8192x8192 --weights none --kernels cublas_dense,cusparselt,warpsparse --ws-tiles hopper_tall_store,tall_pipe"
