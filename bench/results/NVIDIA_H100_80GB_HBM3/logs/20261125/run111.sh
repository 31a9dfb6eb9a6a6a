#!/usr/bin/env bash
# Device run 111 (diagnosis, 0aea589 kernels + the WS_MACKO_TRACE build): where a launch spends the
# time that MACKO takes over its own loads on the short-row shapes.
# 1. ws_macko_trace: per row, when its warp started and stored it (default schedules; x through L1
#    for the two misses as a second view), at d = 0.3 / 0.5.
# 2. ws_bench_macko across the step boundary: 32000x5120 rows hold 1536 nonzeros at d = 0.3 plus ~5
#    padding elements, so 7 steps of 256 where 6 hold all but ~8 elements; at d <= 0.297 they fit 6.
#    21504x7168: 8 steps up to d ~ 0.284, 9 up to d ~ 0.3195.
bash scripts/device_run.sh \
  run trace "ws_macko_trace --out \$OUT/r_trace --shapes 21504x7168,32000x5120,28672x7168,32000x8192,12288x12288,36864x12288 --densities 0.3,0.5" \
  run trace_l1 "ws_macko_trace --out \$OUT/r_trace_l1 --x-shared 0 --shapes 21504x7168,32000x5120 --densities 0.3,0.5" \
  run steps "timeout 240 ws_bench_macko --threads 16 --out \$OUT/r_steps --shapes 32000x5120 --densities 0.294,0.297,0.3,0.303,0.306 --patterns none --kernels macko,read,row_stream,copy" \
  run steps2 "timeout 240 ws_bench_macko --threads 16 --out \$OUT/r_steps --shapes 21504x7168 --densities 0.28,0.284,0.2875,0.3,0.315,0.3195,0.323 --patterns none --kernels macko,read,row_stream,copy"
