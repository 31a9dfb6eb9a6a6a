#!/usr/bin/env bash
# Device run 113 (experiment): persistent grids take their rows from a queue (WS_MACKO_DYNAMIC,
# ws_bench_macko_dyn) instead of striding. Runs 111-112 traced the default launches: the warps end
# over the last 4-7 us (SMs holding 36 warps next to SMs holding 32 carry 12 % more rows and end last),
# and during that drain fewer and fewer warps stream. The base binary before and after.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels macko"
bash scripts/device_run.sh \
  run base1 "timeout 200 ws_bench_macko $A --out \$OUT/r_base1" \
  run dyn "timeout 200 ws_bench_macko_dyn $A --out \$OUT/r_dyn" \
  run base2 "timeout 200 ws_bench_macko $A --out \$OUT/r_base2"
