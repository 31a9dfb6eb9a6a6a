#!/usr/bin/env bash
# Device run 74: the committed build (487f3ff) on another machine: properties (100 cases), Nsight
# Compute on the two tall shapes that still miss at d = 0.3 / 0.1, and run 73b's table again (how
# much do the ratios move from machine to machine?).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 macko_spmv_gpu_props" \
  ncu "--shapes 32000x5120,21504x7168 --densities 0.3,0.1" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
