#!/usr/bin/env bash
# Device run 23: four blocks per load group (unroll 4) at 8 and 4 lane elements against the default.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 200 macko_spmv_gpu_props" \
  bench_macko "--shapes 12288x12288,28672x8192,36864x12288,21504x7168,32000x5120 --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy --unroll-blocks 2,4 --lane-elems 8,4"
