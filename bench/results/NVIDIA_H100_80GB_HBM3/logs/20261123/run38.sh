#!/usr/bin/env bash
# Device run 38: memcheck and racecheck over the MACKO GPU properties with the x_shared default.
bash scripts/device_run.sh \
  run san_mem_macko "RC_PARAMS=max_success=30 timeout 250 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props" \
  run san_race_macko "RC_PARAMS=max_success=30 timeout 250 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props"
