#!/usr/bin/env bash
# Device run 31: x staged in shared memory (Schedule::x_shared, persistent grid) against the
# default schedule, with 4 and 16 warps per block; properties first (x_shared cases included).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 150 macko_spmv_gpu_props" \
  bench_macko "--shapes 12288x12288,28672x7168,32000x5120,21504x7168,36864x12288 --densities 0.1,0.3,0.5 --patterns none --kernels cublas_gemv,macko,copy --x-shared 0,1 --warps-per-block 4,16"
