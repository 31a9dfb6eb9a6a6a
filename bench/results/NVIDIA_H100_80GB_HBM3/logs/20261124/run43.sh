#!/usr/bin/env bash
# Device run 43: the tall rule's edges. x in shared memory (4-warp blocks) or through L1
# on the 9 big tall shapes at d = 1.0 / 0.7, on the 6 smaller tall Appendix D shapes at
# d = 1.0 / 0.5 / 0.3, and 4- against 16-warp blocks on the 6 shapes with cols >= rows.
TALL=21504x7168,32000x5120,28672x7168,28672x8192,27648x9216,32000x8192,36864x9216,36864x12288,49152x12288
SMALL=11008x4096,13824x5120,14336x4096,18944x3584,20480x3584,32000x4096
WIDE=12288x12288,7168x28672,8192x28672,8192x29568,9216x36864,12288x49152
K="--patterns none --kernels cublas_gemv,macko,copy"
bash scripts/device_run.sh \
  bench_macko "--shapes $TALL --densities 1.0,0.7 $K --x-shared 0,1 --warps-per-block 4" \
  bench_macko "--shapes $SMALL --densities 1.0,0.5,0.3 $K --x-shared 0,1 --warps-per-block 4" \
  bench_macko "--shapes $WIDE --densities 0.5,0.3 $K --x-shared 1 --warps-per-block 4,16"
