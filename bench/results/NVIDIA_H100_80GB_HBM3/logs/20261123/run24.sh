#!/usr/bin/env bash
# Device run 24 (2f9b14d, clean): every GPU test, then the final MACKO table, part 1 (8 of the 15 Appendix D shapes with R x C >= 12288^2).
bash scripts/device_run.sh \
  tests \
  bench_macko "--shapes 12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568 --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy,read,row_stream"
