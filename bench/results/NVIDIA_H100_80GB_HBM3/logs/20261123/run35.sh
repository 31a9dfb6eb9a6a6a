#!/usr/bin/env bash
# Device run 35: every GPU test with x_shared as the default for cols >= rows; the x_shared rule
# checked on the 10 smaller Appendix D shapes with cols >= rows (d = 0.5, 0.1, 1.0) and at d = 1.0
# on the 6 big ones.
bash scripts/device_run.sh \
  tests \
  bench_macko "--shapes 4096x4096,5120x5120,7168x7168,8192x8192,9216x9216,5120x13824,3584x20480,4096x11008,4096x14336,3584x18944 --densities 0.5,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy --x-shared 0,1 --warps-per-block 4,8,16 --row-splits 1,2" \
  bench_macko "--shapes 12288x12288,7168x28672,8192x28672,8192x29568,9216x36864,12288x49152 --densities 1.0 --patterns none --kernels cublas_gemv,macko,copy --x-shared 0,1 --warps-per-block 4,8,16 --row-splits 1,2"
