#!/usr/bin/env bash
# Device run 81 (run 80's build): two rows per warp won 2-9 % on the narrow tall shapes at d <= 0.1
# (run 80b) with x in shared memory, 8 elements per lane and 4-warp blocks. All 31 Appendix D shapes
# at d = 0.15 / 0.1 / 0.07 / 0.05, sixteen schedules (x through L1 or in shared memory, 4 or 8
# elements per lane, 4- or 16-warp blocks, 32 or 16 lanes per row), in two calls of two densities.
d=${DENS:-0.15,0.1}
bash scripts/device_run.sh \
  run lowd16 "ws_bench_macko --out \$OUT/lowd16 --threads 16 --shapes paper --densities $d --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --lane-elems 4,8 --warps-per-block 4,16 --row-lanes 32,16"
