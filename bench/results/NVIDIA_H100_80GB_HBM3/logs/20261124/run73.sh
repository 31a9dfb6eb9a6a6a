#!/usr/bin/env bash
# Device run 73: the build with 32-bit offsets and the low-density rule (run 72d). Properties (300
# cases), memcheck and racecheck (20 each) over the MACKO kernels.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  run racecheck "RC_PARAMS=max_success=20 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props"
