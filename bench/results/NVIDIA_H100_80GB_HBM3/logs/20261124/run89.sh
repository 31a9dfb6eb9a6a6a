#!/usr/bin/env bash
# Device run 89: the final issue-4 table on the committed kernels (run 82's command), and batches of
# 2 / 4 / 8 (their 8-element kernels take the whole-group path too) against 7b91883 (base).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
B="--threads 16 --shapes 12288x12288,28672x8192,8192x28672 --densities 0.5,0.1 --batch 2,4,8 --patterns none --kernels cublas_gemv,macko"
bash scripts/device_run.sh \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy" \
  run batch_base "timeout 100 ws_bench_macko_base --out \$OUT/results_batch_base $B" \
  run batch_new "timeout 100 ws_bench_macko --out \$OUT/results_batch_new $B"
