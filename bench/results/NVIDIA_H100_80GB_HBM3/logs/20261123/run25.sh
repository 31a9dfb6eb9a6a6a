#!/usr/bin/env bash
# Device run 25 (2f9b14d, clean): the final MACKO table, part 2 (the other 7 shapes with R x C >= 12288^2).
bash scripts/device_run.sh \
  bench_macko "--shapes 27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288 --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy,read,row_stream"
