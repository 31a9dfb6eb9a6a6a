#!/usr/bin/env bash
# Device run 52: Nsight Compute on the final default schedules at d = 0.5: 21504x7168 (x in shared
# memory, 4-warp blocks; misses 1.5x), 12288x12288 (16-warp blocks) and 9216x36864 (8 warps, 2 splits).
bash scripts/device_run.sh \
  ncu "--shapes 21504x7168,12288x12288,9216x36864 --densities 0.5"
