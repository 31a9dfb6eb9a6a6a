#!/usr/bin/env bash
# Device run 61: do the reference numbers (cuSPARSELt ~1163, a public mma.sp kernel ~596 at
# 8192^3) come from short measurements that finish before the board reaches its power cap?
# ws_bench_sparse24 now samples the SM clock, power and clock-event reasons (NVML) over every timed
# series. The same cases three ways: back to back with the method's counts (100 warm-up, 200 timed),
# rested 3 s before each kernel with the method's counts, and rested with a do_bench-sized series
# (10 warm-up, 50 timed, about 0.1 s per kernel at 8192^3). nvidia-smi samples beside it as a check.
S="--sizes 4096x4096x4096,8192x8192x8192 --weights none --kernels cublas_dense,cusparselt,warpsparse --ws-tiles tall_pipe,hopper_tall_store"
bash scripts/device_run.sh \
  run smi_start "nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 50 > \$OUT/smi_clocks.csv 2>&1 & echo \$! > \$OUT/smi.pid; sleep 1" \
  bench_sparse24 "$S" \
  bench_sparse24 "$S --rest-ms 3000" \
  bench_sparse24 "$S --rest-ms 3000 --warmup 10 --iters 50" \
  run smi_stop "kill \$(cat \$OUT/smi.pid)"
