#!/usr/bin/env bash
# Device run 127: the final build (0547c8c: run 119's kernels; tall x_shared matrices above d = 0.15
# take 12-warp blocks where the busiest SM gets no more rows). Issue 4's table command (run 119's)
# and compute-sanitizer memcheck over the MACKO properties (20 cases, every test but [large]).
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,cusparse_csr,macko,copy" \
  run memcheck "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'"
