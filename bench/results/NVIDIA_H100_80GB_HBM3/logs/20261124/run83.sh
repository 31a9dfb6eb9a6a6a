#!/usr/bin/env bash
# Device run 83: run 82's build with default_schedule_for keeping N:M rows on one warp per row
# (swizzled) where the shape rule picks two rows per warp. Properties (300 cases); memcheck and
# racecheck (20 cases each) over every MACKO test, the fixed edge cases and default schedules included.
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  run racecheck "RC_PARAMS=max_success=20 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props"
