#!/usr/bin/env bash
# Device run 50: the SM clock while the 2:4 GEMMs run (is the mma.sp kernel's 542-560 TFLOP/s at
# 8192^3 taken at the 1980 MHz of run 33's ceiling?). nvidia-smi samples clock, power and throttle
# reasons every 20 ms beside ws_bench_sparse24, one kernel per invocation so the samples separate.
bash scripts/device_run.sh \
  run clocks_gemm "nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > \$OUT/clocks.csv 2>&1 & SMI=\$!; for t in tall_pipe hopper_tall_store; do echo \"== \$t \$(date +%H:%M:%S.%N)\"; ws_bench_sparse24 --out \$OUT/results --sizes 8192x8192x8192 --weights none --kernels warpsparse --ws-tiles \$t --warmup 300 --iters 600; echo \"== end \$(date +%H:%M:%S.%N)\"; done; kill \$SMI"
