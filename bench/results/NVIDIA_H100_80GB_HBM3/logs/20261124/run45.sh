#!/usr/bin/env bash
# Device run 45: the round-tail rule (cols >= rows: rows split over two warps, 8-warp blocks, when
# the persistent grid's last round is < half full). Properties, sanitizers, and the shapes the rule
# picks (9216x36864, 9216^2, 5120^2, 5120x13824) beside two it leaves (7168^2, 12288^2), every
# x_shared block size and split count.
S=9216x36864,9216x9216,5120x5120,5120x13824,7168x7168,12288x12288
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run race_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run mem_macko "RC_PARAMS=max_success=20 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes $S --densities 1.0,0.5,0.3 --patterns none --kernels cublas_gemv,macko,copy --x-shared 1 --warps-per-block 8,16 --row-splits 1,2"
