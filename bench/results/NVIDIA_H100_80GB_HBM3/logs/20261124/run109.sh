#!/usr/bin/env bash
# Device run 109: Nsight Compute (--set full, one profiled launch per case after one warm-up) on the
# two d = 0.3 misses with the final default schedules (a97866e): 21504x7168 (x in shared memory,
# 4-warp blocks, as in run 91) and 32000x5120 (now x in shared memory too; run 91 profiled it with x
# through L1).
bash scripts/device_run.sh \
  ncu "--shapes 21504x7168,32000x5120 --densities 0.3 --threads 16"
