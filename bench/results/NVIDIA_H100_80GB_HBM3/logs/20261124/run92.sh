#!/usr/bin/env bash
# Device run 92: run 89's table command again on the final kernels (binaries staged from fa80eb7;
# the later commits change comments and documents only), on another machine lease: how stable are
# the ratios near the targets' lines?
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
