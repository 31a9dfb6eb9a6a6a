#!/usr/bin/env bash
# Device run 107: the block-size rules of run 106 (split rows on 16-warp blocks, x in shared memory on tall matrices above 9216 columns). MACKO properties
# (200 cases, every test but [large]: the default-schedule assertions included), then issue 4's
# table command (run 96's) on the final build.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 150 macko_spmv_gpu_props '~[large]'" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy"
