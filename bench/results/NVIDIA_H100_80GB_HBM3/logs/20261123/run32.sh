#!/usr/bin/env bash
# Device run 32: compute-sanitizer racecheck and memcheck over the x-in-shared-memory MACKO kernel
# (its own test case), then the property tests once more.
bash scripts/device_run.sh \
  run race "timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run mem "timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props 'MACKO kernel: x in shared memory'" \
  run props "RC_PARAMS=max_success=300 timeout 60 macko_spmv_gpu_props"
