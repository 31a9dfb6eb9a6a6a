#!/usr/bin/env bash
# Device run 112 (diagnosis): run 111's trace with the launch timed as the benchmark times it (gated
# events, trace off) and the SMs grouped by the warps they held, on the two d = 0.3 misses and
# three shapes that pass.
bash scripts/device_run.sh \
  run trace "ws_macko_trace --out \$OUT/r_trace --shapes 21504x7168,32000x5120,28672x7168,12288x12288,36864x12288 --densities 0.3,0.5"
