#!/usr/bin/env bash
# Device run 88: the committed form of the whole-group path (kWholeGroups: 8 elements per lane only;
# the other kernels' PTX equals 7b91883's up to the operand order of one integer add). Properties
# (300), memcheck and racecheck (20 each, every MACKO test but [large]).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 200 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 timeout 180 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'"
