#!/usr/bin/env bash
# Device run 72d: with 32-bit offsets (new binary), 4 against 8 elements per lane at low density,
# x through L1 or in shared memory, 4- and 16-warp blocks, on all 31 Appendix D shapes at
# d = 0.1 and 0.05 (run 72c: with x in shared memory 8 elements beat 4 by 10-17 % at d = 0.1).
bash scripts/device_run.sh \
  run lowd "ws_bench_macko --out \$OUT/lowd --threads 16 --shapes paper --densities 0.1,0.05 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16 --lane-elems 4,8"
