#!/usr/bin/env bash
# Device run 80b: the narrow tall shapes with x through L1 or in shared memory, 4 or 8 elements
# per lane, 32 or 16 lanes per row (same build as run 80).
bash scripts/device_run.sh \
  run tall "ws_bench_macko --out \$OUT/tall --threads 16 --shapes 32000x5120,21504x7168,28672x7168,13824x5120,14336x4096,11008x4096,32000x4096 --densities 0.3,0.2,0.1,0.05 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --lane-elems 4,8 --row-lanes 32,16"
