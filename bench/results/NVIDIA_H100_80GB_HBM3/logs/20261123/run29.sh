#!/usr/bin/env bash
# Device run 29: the mma.sp refill without K-edge masking on interior tiles (B pass addresses with
# no select): every pipelined mma.sp tile's checks, memcheck on the default tile, and the bench
# against the previous binary (ws_bench_sparse24_base, d7277cd) in the same run.
SZ=4096x4096x4096,8192x8192x8192,12288x4096x12288
bash scripts/device_run.sh \
  run s24_pipe "timeout 200 sparse24_gemm_gpu_test --tile pipe" \
  run memcheck "timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 sparse24_gemm_gpu_test --quick --tile 256x128x64/s3/pipe" \
  run base "ws_bench_sparse24_base --out \$OUT/results_base --sizes $SZ --weights none --kernels warpsparse --ws-tiles tall_pipe,large_pipe" \
  bench_sparse24 "--sizes $SZ --weights none --kernels warpsparse --ws-tiles tall_pipe,large_pipe"
