#!/usr/bin/env bash
# Device run 135: the README's batched table (run 56's command) and bf16 at batch 1 on the 15 big
# shapes, on the current kernels (6e8d8f8). Run 56 (2ae8252) predates balanced rounds, the whole-group
# path, the fifteenth session's steps and every schedule rule since; bf16 had one shape then.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  bench_macko "--shapes 4096x4096,12288x12288,28672x8192,8192x28672,36864x12288 --densities 1.0,0.5,0.3,0.1 --patterns none --batch 1,2,4,8 --kernels cublas_gemv,cusparse_csr,macko,copy" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --value-types bf16 --kernels cublas_gemv,macko,copy"
