#!/usr/bin/env bash
# Device run 41: mma.sp with 64x32 warp tiles (more warps per scheduler: 8 warps of 128x128 at one
# CTA per SM, 12 warps of 128x192, 16 warps of 256x128 at 128 registers with spills), column and row
# issue order, checked, timed against tall_pipe and cuSPARSELt, sanitised; MACKO: memcheck over the
# properties on the current x_shared kernel, and x in shared memory re-measured on the 9 tall shapes.
TALL=21504x7168,32000x5120,28672x7168,28672x8192,27648x9216,32000x8192,36864x9216,36864x12288,49152x12288
bash scripts/device_run.sh \
  run w32_check "timeout 240 sparse24_gemm_gpu_test --quick --perf --tile w64x32" \
  bench_sparse24 "--sizes 4096x4096x4096,8192x8192x8192,12288x4096x12288 --weights none --kernels cusparselt,warpsparse --ws-tiles tall_pipe,small_w32_pipe1,small_w32_pipe_rows,wide_w32_pipe,wide_w32_pipe_rows,tall_w32_pipe,tall_w32_pipe_rows" \
  run mem_w32 "timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 sparse24_gemm_gpu_test --quick --tile 128x192" \
  run race_w32 "timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 sparse24_gemm_gpu_test --quick --tile 128x192x64/s4/w64x32/pipe+rows" \
  run mem_macko "RC_PARAMS=max_success=30 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  bench_macko "--shapes $TALL --densities 0.5,0.3,0.1 --patterns none --kernels cublas_gemv,macko,copy --x-shared 0,1 --warps-per-block 4,16"
