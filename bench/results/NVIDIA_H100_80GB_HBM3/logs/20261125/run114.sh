#!/usr/bin/env bash
# Device run 114 (experiment): a row's lone last block loaded with the group before it
# (WS_MACKO_TAIL). Run 111 measured the time jump when rows cross into one more load group:
# 32000x5120 50.6 -> 53.8 us from d = 0.297 to 0.3 (6 -> 7 steps, 3 -> 4 groups), 21504x7168 45.5
# -> 50.1 us from d = 0.284 to 0.2875 (8 -> 9 steps, 4 -> 5 groups), for ~1 % more bytes. The
# x-in-shared-memory kernels take 61 registers with it (ws_bench_macko_tail: 8 blocks of 4 warps per
# SM instead of 9) or are held at 56 (ws_bench_macko_tail56, __maxnreg__, no spills in the default
# kernel). The base binary before and after.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
A="--threads 16 --shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels macko"
bash scripts/device_run.sh \
  run base1 "timeout 150 ws_bench_macko $A --out \$OUT/r_base1" \
  run tail "timeout 150 ws_bench_macko_tail $A --out \$OUT/r_tail" \
  run tail56 "timeout 150 ws_bench_macko_tail56 $A --out \$OUT/r_tail56" \
  run base2 "timeout 150 ws_bench_macko $A --out \$OUT/r_base2"
