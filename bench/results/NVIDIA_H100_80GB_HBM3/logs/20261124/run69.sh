#!/usr/bin/env bash
# Device run 69: MackoParams::align_rows (each row padded to a multiple of 8 elements, so rows start
# aligned and an exact-nnz row of 14 x 256 elements takes 14 steps, not 15). GPU properties (200;
# align_rows drawn), memcheck on the default cases, then both encodings of the same matrices in one
# run (--align-rows 0,1) on the 15 big Appendix D shapes at d = 0.5, 0.3, 0.1.
BIG=12288x12288,28672x8192,8192x28672,36864x12288,21504x7168,32000x5120,7168x28672,9216x36864,8192x29568,32000x8192,28672x7168,27648x9216,36864x9216,49152x12288,12288x49152
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 200 macko_spmv_gpu_props" \
  run mem "RC_PARAMS=max_success=30 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel equals its warp model bit for bit'" \
  bench_macko "--shapes $BIG --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko --align-rows 0,1"
