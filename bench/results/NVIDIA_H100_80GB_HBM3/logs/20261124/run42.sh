#!/usr/bin/env bash
# Device run 42: the default schedule with x in shared memory on tall matrices too
# (4-warp blocks, <= 9216 columns, >= 2048 nonzeros per row): properties, racecheck, and the final
# table of the 15 Appendix D shapes with R x C >= 12288^2 at d = 1.0 / 0.5 / 0.3 / 0.1.
BIG=12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568,27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes $BIG --densities 1.0,0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy"
