#!/usr/bin/env bash
# Device run 34: x in shared memory over the 15 Appendix D shapes with R x C >= 12288^2, and on
# 12288^2 the persistent 16-warp grid without x in shared memory (is the gain the grid or x?).
S=12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568,27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288
bash scripts/device_run.sh \
  bench_macko "--shapes $S --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy --x-shared 0,1 --warps-per-block 4,8,16 --row-splits 1,2" \
  bench_macko "--shapes 12288x12288,28672x7168 --densities 0.5,0.1 --patterns none --kernels macko --x-shared 0,1 --warps-per-block 16 --blocks-per-sm 0,4"
