#!/usr/bin/env bash
# Device run 62: run 61 found the mma.sp GEMM's time at 8192^3 the same at 1740 MHz (power-capped)
# and at 1980 MHz (rested). Does the bare mma.sp loop's rate follow the SM clock? ws_mma_sp_peak on
# the 64x64 and 32x32 warp tiles, cool and right after 3 s of dense cuBLAS GEMMs (--heat-ms), with
# NVML's SM clock and CTA 0's clock64 span over the event time beside each row.
bash scripts/device_run.sh \
  run peak_cool "ws_mma_sp_peak --out \$OUT/results --tiles 4x8,2x4 --warps 2 --max-warps 4 --trips 16384" \
  run peak_heated "ws_mma_sp_peak --out \$OUT/results --tiles 4x8,2x4 --warps 2 --max-warps 4 --trips 16384 --heat-ms 3000" \
  run peak_cool_again "ws_mma_sp_peak --out \$OUT/results --tiles 4x8 --warps 2 --max-warps 2 --trips 16384"
