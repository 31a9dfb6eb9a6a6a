#!/usr/bin/env bash
# Device run 124 (experiment): run 123's launcher printed that every cluster launch, even of
# clusters of one, holds at most 8 blocks of 4 warps per SM (1056 on 132 SMs), and that the
# multicast build's default kernel takes 48 registers without spilling (base: 49), so 10 blocks
# (1320) fit without clusters. WS_MACKO_MC_MODE=plain now launches without clusters and without the
# cluster cap: the bulk-copy kernel at up to 10 blocks per SM. base / plain / base on the 15 big
# shapes at d = 0.5 / 0.3.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --densities 0.5,0.3 --patterns none --kernels macko --shapes $BIG"
bash scripts/device_run.sh \
  run base1 "timeout 90 ws_bench_macko $A --out \$OUT/r_base1" \
  run plain "WS_MACKO_MC_SIZE=1 WS_MACKO_MC_MODE=plain timeout 90 ws_bench_macko_mc $A --out \$OUT/r_plain" \
  run base2 "timeout 90 ws_bench_macko $A --out \$OUT/r_base2"
