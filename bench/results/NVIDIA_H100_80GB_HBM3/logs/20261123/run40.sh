#!/usr/bin/env bash
# Device run 40: the overlapped copy of x (run 39) in its own kernel held at 64 registers by
# __launch_bounds__(1024) (A: ws_bench_macko), and B (ws_bench_macko_b): the 4-element kernel of
# d <= 0.15 held at 40 registers, three 512-thread blocks per SM. Against 6d1a283 (base).
S6=12288x12288,7168x28672,8192x28672,8192x29568,9216x36864,12288x49152
A="--threads 16 --shapes $S6 --patterns none --kernels cublas_gemv,macko,copy"
bash scripts/device_run.sh \
  run xs_case "timeout 60 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run race_xs "timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run props "RC_PARAMS=max_success=200 timeout 60 macko_spmv_gpu_props" \
  run base "ws_bench_macko_base --out \$OUT/results_base $A --densities 0.5,0.3,0.1" \
  run a "ws_bench_macko --out \$OUT/results_a $A --densities 0.5,0.3,0.1" \
  run b "ws_bench_macko_b --out \$OUT/results_b $A --densities 0.1"
