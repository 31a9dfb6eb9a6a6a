#!/usr/bin/env bash
# Device run 33: the mma.sp issue ceiling (ws_mma_sp_peak), the row-by-row mma.sp tiles (*_pipe_rows)
# checked and timed beside their column-order twins and cuSPARSELt, every GPU test (the x_shared
# launch path of aef0496 included), sanitizers over the new tiles.
bash scripts/device_run.sh \
  run peak "ws_mma_sp_peak --out \$OUT/results" \
  run rows_check "timeout 200 sparse24_gemm_gpu_test --quick --tile pipe+rows" \
  bench_sparse24 "--sizes 4096x4096x4096,8192x8192x8192,12288x4096x12288 --weights none --kernels cusparselt,warpsparse --ws-tiles tall_pipe,tall_pipe_rows,large_pipe,large_pipe_rows,small_pipe,small_pipe_rows" \
  run mem_rows "timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 sparse24_gemm_gpu_test --quick --tile 256x128x64/s3/pipe+rows" \
  run race_rows "timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 sparse24_gemm_gpu_test --quick --tile 256x128x64/s3/pipe+rows" \
  run macko_xs "timeout 120 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run macko_props "RC_PARAMS=max_success=500 timeout 200 macko_spmv_gpu_props"
