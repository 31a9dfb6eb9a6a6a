#!/usr/bin/env bash
# Device run 68 (experiment): ROMA windows aligned to 64 elements (128 bytes of fp16 values) instead
# of the format's 8. Run 67 saw uniform rows (starts shifted off 32-byte sectors by padding) read
# 6-7 % more L1 sectors than 2:4 rows (every row 128-byte aligned) of the same bytes. .devpkg_exp
# holds ws_bench_macko and macko_spmv_gpu_props built with -DWS_ROMA_ALIGN_ELEMS=64 (kernel and
# warp model both). Properties on that build, then the two builds alternately on the same cases.
A="--shapes 21504x7168,32000x5120,7168x28672,8192x28672,9216x36864,12288x12288,28672x8192,36864x12288 --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko"
bash scripts/device_run.sh \
  run props_exp "RC_PARAMS=max_success=150 timeout 200 .devpkg_exp/macko_spmv_gpu_props" \
  bench_macko "$A" \
  run bench_exp "$PWD/.devpkg_exp/ws_bench_macko --out \$OUT/results_exp --threads 16 $A" \
  bench_macko "$A" \
  run bench_exp2 "$PWD/.devpkg_exp/ws_bench_macko --out \$OUT/results_exp --threads 16 $A"
