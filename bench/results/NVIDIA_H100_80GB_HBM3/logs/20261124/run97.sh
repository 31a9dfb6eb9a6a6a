#!/usr/bin/env bash
# Device run 97: GPU tests on the balanced-rounds build (run 96's binaries): the MACKO properties
# (300 cases, with the [large] test past 2^31 elements, whose persistent launches now take the
# balanced grid), then memcheck and racecheck (20 cases each, every MACKO test but [large]).
bash scripts/device_run.sh \
  run props "RC_PARAMS=max_success=300 timeout 240 macko_spmv_gpu_props" \
  run memcheck "RC_PARAMS=max_success=20 timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'" \
  run racecheck "RC_PARAMS=max_success=20 timeout 170 compute-sanitizer --tool racecheck --error-exitcode 9 macko_spmv_gpu_props '~[large]'"
