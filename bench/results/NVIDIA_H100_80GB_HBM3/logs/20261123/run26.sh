#!/usr/bin/env bash
# Device run 26: the group loop unrolled by two (ping-pong buffers, no cur = nxt copies) against
# the previous kernel (ws_bench_macko_base, 2f9b14d) in the same run; properties first.
S=12288x12288,28672x7168,32000x5120,9216x36864,36864x12288
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=500 timeout 200 macko_spmv_gpu_props" \
  run base "ws_bench_macko_base --threads 16 --out \$OUT/results_base --shapes $S --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy" \
  bench_macko "--shapes $S --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy"
