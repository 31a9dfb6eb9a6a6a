#!/usr/bin/env bash
# Device run 138: the final build (kernels and schedule rules as run 134's; run 137's experiment
# removed). The MACKO properties (100 cases) and issue 4's table command in one call (run 131's).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=100 timeout 170 macko_spmv_gpu_props '~[large]'" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
