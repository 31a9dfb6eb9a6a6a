#!/usr/bin/env bash
# Device run 91: the final main (fa80eb7). Every GPU test program (MACKO properties with [large],
# CSR properties, the 2:4 GEMM test); Nsight Compute (--set full, one profiled launch per case after
# one warm-up) on the two remaining d = 0.3 misses and on 12288^2 at d = 0.5, default schedules.
bash scripts/device_run.sh \
  tests \
  ncu "--shapes 21504x7168,32000x5120,12288x12288 --densities 0.3 --threads 16"
