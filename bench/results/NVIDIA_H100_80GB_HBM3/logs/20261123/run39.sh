#!/usr/bin/env bash
# Device run 39: x copied with cp.async and waited for only after each warp's first row loads
# (SharedX::ready). Checks, sanitizers over the x_shared cases, the previous binary (6d1a283,
# ws_bench_macko_base) on the 6 cols >= rows shapes, then the new binary over all 15 big shapes.
S6=12288x12288,7168x28672,8192x28672,8192x29568,9216x36864,12288x49152
S=12288x12288,21504x7168,32000x5120,7168x28672,28672x7168,8192x28672,28672x8192,8192x29568,27648x9216,32000x8192,9216x36864,36864x9216,36864x12288,12288x49152,49152x12288
bash scripts/device_run.sh \
  run xs_case "timeout 120 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run race_xs "timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run san_mem "RC_PARAMS=max_success=30 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  run san_race "RC_PARAMS=max_success=30 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props" \
  run props "RC_PARAMS=max_success=500 timeout 200 macko_spmv_gpu_props" \
  run base "ws_bench_macko_base --out \$OUT/results_base --threads 16 --shapes $S6 --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy" \
  bench_macko "--shapes $S --densities 0.5,0.3,0.1,1.0 --patterns none --kernels cublas_gemv,macko,copy,read,row_stream"
