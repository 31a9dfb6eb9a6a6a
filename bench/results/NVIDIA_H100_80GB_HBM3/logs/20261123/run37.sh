#!/usr/bin/env bash
# Device run 37: 32-warp blocks for the x_shared default (half the blocks, so half the copies of x
# per SM), beside the 16-warp default and the 4-warp schedule, over the 15 big shapes.
S=12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568,27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288
bash scripts/device_run.sh \
  bench_macko "--shapes $S --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy --warps-per-block 4,16,32"
