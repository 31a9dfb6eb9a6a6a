#!/usr/bin/env bash
# Device run 57: Nsight Compute (--set full, clocks not locked) on the default schedules of batch 1
# and batch 8 at 12288^2, d = 0.5 (x in shared memory, 16 warps / x through L1, 4 warps) and d = 1.0
# (x in shared memory for both; batch 8 swizzled): what bounds the batch-8 kernel. The report file
# itself is not kept (too large to bring back).
bash scripts/device_run.sh \
  ncu "--shapes 12288x12288 --densities 0.5,1.0 --batch 1,8" \
  run drop_report 'rm -f "$OUT/macko.ncu-rep"'
