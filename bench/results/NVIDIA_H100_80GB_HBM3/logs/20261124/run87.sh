#!/usr/bin/env bash
# Device run 87: run 86's benchmarks again (its archive came back empty: the command was killed at
# the 600 s limit while packing). Same binaries: base (7b91883), new (whole-group path), base again.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy"
bash scripts/device_run.sh \
  run base "ws_bench_macko_base --out \$OUT/results_base $A" \
  run new "ws_bench_macko --out \$OUT/results_new $A" \
  run base2 "timeout 170 ws_bench_macko_base --out \$OUT/results_base2 $A"
