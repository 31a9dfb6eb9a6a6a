#!/usr/bin/env bash
# Device run 66: default_schedule_for also moves x into shared memory for N:M rows where the shape
# rule keeps it in L1 (run 65). GPU properties (200; the new default_schedule_for cases among them),
# memcheck and racecheck over the x-in-shared-memory cases, then the default schedule on 2:4 and
# 4:8 rows beside uniform rows at d = 0.5 on all 31 Appendix D shapes.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=200 timeout 200 macko_spmv_gpu_props" \
  run mem_xs "timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run race_xs "timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  bench_macko "--shapes paper --densities 0.5 --patterns 2:4,4:8 --pattern-shapes paper --kernels cublas_gemv,macko"
