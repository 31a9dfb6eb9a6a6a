#!/usr/bin/env bash
# Device run 55: batches on a wide matrix whose x does not fit shared memory at batch 4 / 8
# (8192x28672): x through L1 with 8 / 4 / 2 elements per lane, whole or split rows, 4 / 8 / 16 warps;
# and run 54's disturbed row (4096^2, d = 0.5, batch 4) again.
bash scripts/device_run.sh \
  bench_macko "--shapes 8192x28672 --densities 1.0,0.5,0.1 --patterns none --batch 2,4,8 --kernels cublas_gemv,macko --x-shared 0 --lane-elems 8,4,2 --row-splits 1,2 --warps-per-block 4,8,16" \
  bench_macko "--shapes 4096x4096 --densities 0.5 --patterns none --batch 1,2,4,8 --kernels cublas_gemv,macko"
