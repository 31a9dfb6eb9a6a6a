#!/usr/bin/env bash
# Device run 51: ws_mma_sp_peak (run 33's mma.sp ceiling) with the SM clock, power and throttle
# reasons sampled every 20 ms: at which clock was the ceiling measured?
bash scripts/device_run.sh \
  run peak_clocks "nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > \$OUT/clocks.csv 2>&1 & SMI=\$!; echo \"== start \$(date +%H:%M:%S.%N)\"; ws_mma_sp_peak --out \$OUT/results; echo \"== end \$(date +%H:%M:%S.%N)\"; echo \"== long \$(date +%H:%M:%S.%N)\"; timeout 150 ws_mma_sp_peak --out \$OUT/results_long --trips 65536; echo \"== end \$(date +%H:%M:%S.%N)\"; kill \$SMI"
