#!/usr/bin/env bash
# Device run 76 (3c8eb21): where the tall rules have no measurement. x through L1 or in shared
# memory, 4- or 16-warp blocks, 8 elements per lane, on the 15 tall Appendix D shapes at d = 0.3
# and 0.2 (the tall rule needs >= 2048 nonzeros per row; the low-density rule stops at 0.15), and
# the two 12288-column tall shapes at d = 0.5.
TALL=11008x4096,14336x4096,18944x3584,20480x3584,13824x5120,32000x4096,21504x7168,32000x5120,28672x7168,28672x8192,27648x9216,32000x8192,36864x9216,36864x12288,49152x12288
bash scripts/device_run.sh \
  run tall "ws_bench_macko --out \$OUT/tall --threads 16 --shapes $TALL --densities 0.3,0.2 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16 --lane-elems 8" \
  run tall12k "ws_bench_macko --out \$OUT/tall12k --threads 16 --shapes 36864x12288,49152x12288 --densities 0.5 --patterns none --kernels cublas_gemv,macko --x-shared 0,1 --warps-per-block 4,16 --lane-elems 8"
