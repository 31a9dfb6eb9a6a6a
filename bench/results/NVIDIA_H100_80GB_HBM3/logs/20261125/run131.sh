#!/usr/bin/env bash
# Device run 131: the final build (the 12-warp rule from kXSharedLowMinCols = 7168 columns on, after
# run 130; the kernels are run 119's). The MACKO properties (100 cases; the default case on 12-warp
# blocks is now 9504x7168) and issue 4's table command (run 127's).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 timeout 170 macko_spmv_gpu_props '~[large]'" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
