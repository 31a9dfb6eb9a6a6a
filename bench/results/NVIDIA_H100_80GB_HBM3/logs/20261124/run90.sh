#!/usr/bin/env bash
# Device run 90 (experiment): the narrow 4-bit 8-element one-vector kernels held at 48 registers
# (__maxnreg__(48): 56 -> 48 for x through L1, 51 -> 48 for x in shared memory, 0-12 bytes spilled),
# so 4-warp blocks fit 10 per SM instead of 9. Properties (100); base (b056600) / capped / base over
# the 15 big shapes at d = 0.5 / 0.3 / 0.1, default schedules.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy"
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 timeout 100 macko_spmv_gpu_props" \
  run base "timeout 150 ws_bench_macko_base --out \$OUT/results_base $A" \
  run new "timeout 150 ws_bench_macko --out \$OUT/results_new $A" \
  run base2 "timeout 150 ws_bench_macko_base --out \$OUT/results_base2 $A"
