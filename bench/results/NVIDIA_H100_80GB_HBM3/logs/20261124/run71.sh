#!/usr/bin/env bash
# Device run 71: time_launches with gated chunks (no host pause can fall inside an event pair).
# A short smoke run first (it must finish in a minute), then run 70's table again: does the
# disturbed row (12288^2 d = 0.3: p10 47.6, median 58.4, p90 228 us in run 70) go away?
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run smoke "timeout 90 ws_bench_macko --out \$OUT/smoke --shapes 4096x4096 --densities 0.5 --patterns none --kernels cublas_gemv,macko,copy --threads 16 && timeout 120 ws_bench_sparse24 --out \$OUT/smoke --sizes 4096x4096x4096 --weights none --kernels cublas_dense,warpsparse --ws-tiles tall_pipe" \
  run table "[ \$(grep -c 'check failures' \$OUT/smoke.log) = 2 ] && ws_bench_macko --out \$OUT/results --threads 16 --shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
