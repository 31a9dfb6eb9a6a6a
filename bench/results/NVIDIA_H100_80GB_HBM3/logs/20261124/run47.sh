#!/usr/bin/env bash
# Device run 47: 32- against 16-warp blocks for x in shared memory where cols >= rows, on the final
# x_shared kernel (run 37 measured it on the kernel before the overlapped copy).
S=12288x12288,7168x28672,8192x28672,8192x29568,12288x49152,9216x36864,4096x14336,3584x20480,8192x8192
bash scripts/device_run.sh \
  bench_macko "--shapes $S --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy --x-shared 1 --warps-per-block 16,32"
